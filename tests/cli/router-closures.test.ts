// The bundles' router (find-my-way rewritten by scripts/router-closures.ts, without `new Function` per
// route) finds the same routes with the same parameters as the router as published.
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routerClosures } from '../../scripts/router-closures.js';

interface Found {
  handler: (...args: unknown[]) => unknown;
  params: Record<string, string>;
}
interface Router {
  on(method: string, path: string, options: object, handler: (...args: unknown[]) => unknown): void;
  find(method: string, path: string, constraints?: Record<string, string>): Found | null;
}
type RouterFactory = (options?: object) => Router;

/** find-my-way bundled the way the server's bundle is, loaded as a module of its own. */
async function rewrittenFactory(): Promise<RouterFactory> {
  const result = await build({
    stdin: { contents: "module.exports = require('find-my-way')", resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    plugins: [routerClosures],
    logLevel: 'silent',
  });
  const source = result.outputFiles[0].text;
  expect(source).not.toMatch(/new Function\('path'|new Function\("path"/);
  const module = { exports: {} as RouterFactory };
  new Function('module', 'exports', 'require', source)(module, module.exports, createRequire(import.meta.url));
  return module.exports;
}

const ROUTES = [
  '/',
  '/iam/clients/me',
  '/iam/clients/:client_id',
  '/iam/clients/:client_id/tokens/:token_id',
  '/cloud/v1/projects',
  '/cloud/v1/projects/:project_id',
  '/cloud/v1/regions/:region_id',
  '/cloud/v1/networks/:project_id/:region_id',
  '/cloud/v1/networks/:project_id/:region_id/:network_id',
  '/cloud/v1/networks/:project_id/:region_id/:network_id/ports',
  '/cloud/v1/a/:p1/:p2/:p3/:p4/:p5/:p6',
  '/cdn/resources/rule_templates',
  '/cdn/resources/rule_templates/:rule_template_id',
  '/cdn/resources/:resource_id/rules/:rule_id',
  '/cdn/resources/:resource_id/purge',
  '/cdn/advanced/v2',
  '/cdn/advanced/v1',
  '/dns/v2/zones/:name/:rrset/:type',
  '/dns/v2/zones/:name/import',
  '/waap/v1/analytics/requests',
  '/storage/provisioning/v1/storage/:storage_id/s3/bucket/:name',
  '/files/*',
  '/a-very-long-static-prefix-of-many-characters/x',
  '/a-very-long-static-prefix-of-many-characters/y',
];
const PATHS = [
  '/',
  '/iam/clients/me',
  '/iam/clients/12',
  '/iam/clients/12/tokens/7',
  '/iam/clients/12/tokens',
  '/iam/client/me',
  '/cloud/v1/projects',
  '/cloud/v1/projects/',
  '/cloud/v1/projects/1',
  '/cloud/v1/regions/76',
  '/cloud/v1/networks/1/76',
  '/cloud/v1/networks/1/76/net-a',
  '/cloud/v1/networks/1/76/net-a/ports',
  '/cloud/v1/networks/1/76/net-a/portz',
  '/cloud/v1/a/1/2/3/4/5/6',
  '/cdn/resources/rule_templates',
  '/cdn/resources/rule_templates/5',
  '/cdn/resources/3/rules/9',
  '/cdn/resources/3/purge',
  '/cdn/resources/3/purgeX',
  '/cdn/advanced/v2',
  '/cdn/advanced/v3',
  '/dns/v2/zones/example.com/www.example.com/A',
  '/dns/v2/zones/example.com/import',
  '/waap/v1/analytics/requests',
  '/waap/v1/analytics/request',
  '/storage/provisioning/v1/storage/4/s3/bucket/b%20c',
  '/files/a/b/c.txt',
  '/a-very-long-static-prefix-of-many-characters/x',
  '/a-very-long-static-prefix-of-many-characters/z',
  '/a-very-long-static-prefix-of-many-chars/x',
  '/nowhere',
  '',
];

function routerOf(factory: RouterFactory): Router {
  const router = factory({ ignoreTrailingSlash: false });
  ROUTES.forEach((path, i) => {
    for (const method of ['GET', 'POST'])
      router.on(
        method,
        path,
        {},
        Object.assign(() => i, { route: `${method} ${path}` }),
      );
  });
  // Constraints: the one kind of route whose matcher the rewrite compiles on first use.
  router.on(
    'GET',
    '/versioned',
    { constraints: { version: '1.2.0' } },
    Object.assign(() => 'v1', { route: 'v1' }),
  );
  router.on(
    'GET',
    '/versioned',
    { constraints: { version: '2.0.0' } },
    Object.assign(() => 'v2', { route: 'v2' }),
  );
  router.on(
    'GET',
    '/versioned',
    {},
    Object.assign(() => 'none', { route: 'unversioned' }),
  );
  return router;
}

const answer = (found: Found | null) => (found ? { route: (found.handler as unknown as { route: string }).route, params: { ...found.params } } : null);

describe('the bundled router (router-closures)', () => {
  it('finds what the published router finds, with the same parameters in the same order', async () => {
    const published = routerOf(createRequire(import.meta.url)('find-my-way') as RouterFactory);
    const rewritten = routerOf(await rewrittenFactory());
    for (const method of ['GET', 'POST', 'DELETE']) {
      for (const path of PATHS) {
        const expected = answer(published.find(method, path));
        const got = answer(rewritten.find(method, path));
        expect(got, `${method} ${path}`).toEqual(expected);
        if (got) expect(Object.keys(got.params)).toEqual(Object.keys(expected!.params));
      }
    }
    expect(answer(rewritten.find('GET', '/cloud/v1/a/1/2/3/4/5/6'))?.params).toEqual({ p1: '1', p2: '2', p3: '3', p4: '4', p5: '5', p6: '6' });
    for (const version of ['1.x', '2.0.0', '3.x']) {
      expect(answer(rewritten.find('GET', '/versioned', { version })), version).toEqual(answer(published.find('GET', '/versioned', { version })));
    }
    expect(answer(rewritten.find('GET', '/versioned'))?.route).toBe('unversioned');
  });
});
