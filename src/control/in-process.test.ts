// The package entry as a test suite uses it: a real server on a free port, driven over HTTP.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../config.js';
import { dropPostgresSchema } from '../platform/db/index.js';
import { type RunningEdgeplane, startEdgeplane, ControlError } from '../index.js';

// On the PostgreSQL leg each server gets its own schema, dropped afterwards.
const schemas: string[] = [];
function engineSettings() {
  const databaseUrl = testDatabaseUrl();
  if (!databaseUrl) return {};
  const databaseSchema = `t_${randomBytes(6).toString('hex')}`;
  schemas.push(databaseSchema);
  return { databaseUrl, databaseSchema };
}

let ep: RunningEdgeplane;
beforeAll(async () => {
  ep = await startEdgeplane({ settings: engineSettings() });
});
afterAll(async () => {
  await ep.close();
  const databaseUrl = testDatabaseUrl();
  if (databaseUrl) for (const schema of schemas) await dropPostgresSchema(databaseUrl, schema);
});

const api = (url: string, init: { headers?: Record<string, string>; token?: string } = {}) =>
  fetch(new URL(url, ep.url), { headers: { authorization: `APIKey ${init.token ?? ep.apiKey}`, ...init.headers } });

/** Retries 429 and 5xx twice, waiting what Retry-After says, like the official client (waits recorded, not slept). */
async function getWithRetries(url: string, waits: number[], headers: Record<string, string> = {}) {
  for (let attempt = 0; ; attempt += 1) {
    const res = await api(url, { headers });
    if (attempt === 2 || (res.status !== 429 && res.status < 500)) return res;
    waits.push(Number(res.headers.get('retry-after')));
  }
}

describe('startEdgeplane', () => {
  it('serves the API on a free port with the returned demo token', async () => {
    expect(ep.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await api('/iam/clients/me');
    expect(res.status).toBe(200);
    expect((await res.json()).id).toBe(ep.clientId);
  });

  it('a 503 fault is answered with Retry-After and a retrying client gets through', async () => {
    const fault = await ep.control.faults.create({ operationId: 'iam.account.get', status: 503, times: 1, retryAfter: 2 });
    const waits: number[] = [];
    const res = await getWithRetries('/iam/clients/me', waits);
    expect(res.status).toBe(200);
    expect(waits).toEqual([2]);
    expect(await ep.control.faults.get(fault.id)).toMatchObject({ fired: 1, remaining: 0 });
  });

  it("parallel scenarios do not see each other's faults", async () => {
    await ep.control.faults.create({ path: '/iam/clients/me', status: 429, scenario: 'suite-a' });
    const [a, b] = await Promise.all([
      api('/iam/clients/me', { headers: { 'x-edgeplane-scenario': 'suite-a' } }),
      api('/iam/clients/me', { headers: { 'x-edgeplane-scenario': 'suite-b' } }),
    ]);
    expect([a.status, b.status]).toEqual([429, 200]);
    await ep.control.faults.clear('suite-a');
    expect((await api('/iam/clients/me', { headers: { 'x-edgeplane-scenario': 'suite-a' } })).status).toBe(200);
  });

  it('drives the clock and reads the journal', async () => {
    await ep.control.clock.freeze();
    await ep.control.clock.set('2030-05-01T00:00:00Z');
    const state = await ep.control.clock.advance(3600);
    expect(state).toMatchObject({ now: '2030-05-01T01:00:00.000Z', frozen: true });
    await api('/iam/clients/me', { headers: { 'x-request-id': 'in-process-1' } });
    const { results } = await ep.control.journal.list({ requestId: 'in-process-1' });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ time: '2030-05-01T01:00:00.000Z', clientId: ep.clientId, status: 200 });
    await ep.control.clock.resume();
  });

  it('export then import into a fresh server gives identical API answers', async () => {
    const document = await ep.control.state.export();
    const fresh = await startEdgeplane({ settings: engineSettings() });
    try {
      await fresh.control.state.import(document);
      // The exported server's token now works on the fresh one.
      const before = await (await api('/iam/clients/me')).json();
      const after = await (await fetch(new URL('/iam/clients/me', fresh.url), { headers: { authorization: `APIKey ${ep.apiKey}` } })).json();
      expect(after).toEqual(before);
    } finally {
      await fresh.close();
    }
  });

  it('control errors surface as ControlError with the status and body', async () => {
    const error = await ep.control.faults.get(999).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlError);
    expect(error).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});

describe('seeding', () => {
  const seed = {
    seed: 7,
    clients: [{ ref: 'acme', email: 'ops@acme.test', companyName: 'Acme', tokens: [{ name: 'ci' }, { name: 'viewer', role: 'Users' as const }] }],
    requests: [{ method: 'GET' as const, path: '/iam/clients/me', as: 'acme', expect: 200 }],
  };

  it('gives the same ids and tokens for the same seed number, and the tokens work', async () => {
    const first = await startEdgeplane({ seed, settings: engineSettings() });
    const second = await startEdgeplane({ seed, settings: engineSettings() });
    try {
      expect(second.seeded!.clients).toEqual(first.seeded!.clients);
      const acme = first.seeded!.clients[0];
      expect(acme.tokens.map((t) => t.name)).toEqual(['ci', 'viewer']);
      expect(first.seeded!.requests[0]).toMatchObject({ status: 200, body: { id: acme.clientId, companyName: 'Acme' } });
      const res = await fetch(new URL('/iam/clients/me', first.url), { headers: { authorization: `APIKey ${acme.tokens[1].token}` } });
      expect((await res.json()).id).toBe(acme.clientId);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('reads a seed file at start (edgeplane serve --seed file.json)', async () => {
    const file = path.join(os.tmpdir(), `edgeplane-seed-${randomBytes(4).toString('hex')}.json`);
    fs.writeFileSync(file, JSON.stringify({ ...seed, clients: [{ ...seed.clients[0], tokens: [{ name: 'fixed', token: 'fixed-token-0123456789' }] }] }));
    const server = await startEdgeplane({ seed: file, settings: engineSettings() });
    try {
      const res = await fetch(new URL('/iam/clients/me', server.url), { headers: { authorization: 'APIKey fixed-token-0123456789' } });
      expect((await res.json()).companyName).toBe('Acme');
    } finally {
      await server.close();
      fs.rmSync(file);
    }
  });

  it('a bad seed file stops the start with a clear error', async () => {
    const file = path.join(os.tmpdir(), `edgeplane-seed-${randomBytes(4).toString('hex')}.json`);
    fs.writeFileSync(file, JSON.stringify({ clients: [{ email: 'x@y.z' }] }));
    await expect(startEdgeplane({ seed: file })).rejects.toThrow(/companyName/);
    fs.rmSync(file);
  });
});
