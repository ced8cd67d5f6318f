// The README's shell examples, run as written against a fresh server started as the README starts it
// (with EDGEPLANE_API_KEY=local-dev-key), on a free port instead of 8080.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, assertBuilt, cleanEnv, CLI, freePort, jsonValues, readmeBlock, reap, ROOT, shell, waitUntil } from '../support/built.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-examples-'));
let server: ChildProcess;
let port: number;
beforeAll(async () => {
  assertBuilt();
  port = await freePort();
  server = spawn(process.execPath, [CLI, 'serve', '--memory', '--port', String(port)], {
    cwd: ROOT,
    env: cleanEnv({ EDGEPLANE_API_KEY: 'local-dev-key', EDGEPLANE_ADMIN_TOKEN: 'local-operator-token' }),
    stdio: 'ignore',
  });
  await waitUntil('the server', () => answers(`http://127.0.0.1:${port}/_edgeplane/health`));
});
afterAll(async () => {
  await reap(server);
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Runs a README shell block in a scratch folder against the test server; returns its output. */
async function runBlock(script: string, env: Record<string, string> = {}): Promise<string> {
  const block = shell(script.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`), { cwd: scratch, env: { KEY: 'local-dev-key', ...env } });
  const code = await block.done;
  expect(code, block.output()).toBe(0);
  return block.output();
}

describe('README examples', () => {
  it('first call with curl: the account of the chosen key', async () => {
    expect(JSON.parse(await runBlock(readmeBlock('First call with curl', 'sh')))).toMatchObject({ email: 'demo@edgeplane.local' });
  });

  it('CDN rule templates: create, PATCH, PUT, list and delete the template just made', async () => {
    const output = await runBlock(readmeBlock('CDN rule templates: create and change one', 'sh'));
    const [created, patched, replaced, list] = jsonValues(output) as any[];
    expect(created).toMatchObject({ name: 'images', ruleType: 0, default: false });
    expect(patched).toMatchObject({ id: created.id, options: { gzipOn: { enabled: false, value: true } } });
    expect(patched.options.edge_cache_settings ?? null).toBeNull();
    expect(replaced).toMatchObject({ id: created.id, rule: '/img/.*', ruleType: 0 });
    expect(list.results.map((t: { id: number }) => t.id)).toContain(created.id);
    expect(output.trimEnd().endsWith('204')).toBe(true);
  });

  it('cloud with curl: an instance from a listed image, with an uploaded key, a group and a reserved IP, behind a balancer', async () => {
    const output = await runBlock(readmeBlock('Cloud: an instance behind a load balancer', 'sh'));
    expect(output).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/m);
    expect(output).toMatch(/^203\.0\.113\.\d+$/m);
    const [status] = jsonValues(output) as any[];
    expect(status).toMatchObject({
      name: 'web-lb',
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
      listeners: [
        {
          name: 'http',
          pools: [{ name: 'web', health_monitor: { type: 'HTTP' }, members: [{ address: '10.0.1.2', protocol_port: 80, operating_status: 'ONLINE' }] }],
        },
      ],
    });
  });
});
