// /docs is built on its first request (so start-up does not load swagger-ui) and relays swagger-ui's
// answers: the page, its assets with their caching headers, the document, and 404s in the API's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../tests/support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('/docs', () => {
  it('serves the page without a token, with and without the trailing slash', async () => {
    for (const url of ['/docs', '/docs/']) {
      const res = await t.request('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toMatch(/swagger-ui-bundle\.js/);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('serves the page assets with their validators, and answers a revalidation with 304', async () => {
    const asset = await t.request('GET', '/docs/static/swagger-ui-bundle.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(Number(asset.headers['content-length'])).toBe(asset.rawPayload.length);
    expect(asset.rawPayload.length).toBeGreaterThan(100_000);
    const etag = String(asset.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const again = await t.request('GET', '/docs/static/swagger-ui-bundle.js', { headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const init = await t.request('GET', '/docs/static/swagger-initializer.js');
    expect(init.statusCode).toBe(200);
    expect(init.body).toMatch(/SwaggerUIBundle/);
  });

  it('answers HEAD like GET without the body (over HTTP: see answerHeadAsGet)', async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${base}/docs/static/index.css`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  it('gives swagger-ui the generated document, as JSON and YAML', async () => {
    const json = await t.request('GET', '/docs/json');
    expect(json.statusCode).toBe(200);
    expect(json.json().paths['/iam/clients/me'].get.operationId).toBe('iam.account.get');
    expect(json.json()).toEqual((await t.request('GET', '/openapi.json')).json());
    const yaml = await t.request('GET', '/docs/yaml');
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/x-yaml/);
    expect(yaml.body).toMatch(/^openapi: 3\.1\.0/);
  });

  it('relays a redirect without inventing a body', async () => {
    const res = await t.request('GET', '/docs/static/index.html');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/docs/');
    expect(res.headers['content-type']).toBeUndefined();
  });

  it('answers a missing asset or page with a 404 in the API error shape', async () => {
    for (const url of ['/docs/static/missing.js', '/docs/nothing']) {
      const res = await t.request('GET', url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'not_found', message: `No route for GET ${url}` });
    }
  });

  it('keeps the docs routes out of the OpenAPI document', async () => {
    const paths = Object.keys((await t.request('GET', '/openapi.json')).json().paths);
    expect(paths.filter((p) => p.startsWith('/docs'))).toEqual([]);
  });
});

describe('the catalogue engine in /openapi.json', () => {
  it('lists all 1017 reference operations, each marked modelled or catalogue', async () => {
    const { createTestApp } = await import('../../tests/support/app.js');
    const { catalogueOperations } = await import('./catalogue/index.js');
    const app = await createTestApp();
    try {
      const doc = (await app.request('GET', '/openapi.json')).json();
      const listed = new Map<string, string>();
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { 'x-edgeplane-implementation': string }>>)) {
        for (const [method, op] of Object.entries(item))
          listed.set(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`, op['x-edgeplane-implementation']);
      }
      const missing = catalogueOperations().filter((op) => !listed.has(`${op.method} ${op.path.replace(/\{[^}]+\}/g, '{}')}`));
      expect(missing).toEqual([]);
      expect(listed.get('GET /iam/clients/me')).toBe('modelled');
      expect(listed.get('POST /dns/v2/zones')).toBe('modelled');
      expect(listed.get('POST /fastedge/v1/kv')).toBe('catalogue');
      // An operation the engine answers through its wildcard is listed as a route of its own would be.
      expect(doc.paths['/cloud/v1/ports/{project_id}/{region_id}/{port_id}'].patch).toEqual({
        operationId: 'catalogue.PortDetailView.patch',
        tags: ['Catalogue engine'],
        parameters: ['project_id', 'region_id', 'port_id'].map((name) => ({ schema: { type: 'string' }, in: 'path', name, required: true })),
        responses: { 200: { description: 'Default Response' } },
        'x-edgeplane-implementation': 'catalogue',
      });
    } finally {
      await app.close();
    }
  });
});
