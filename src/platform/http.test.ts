// HTTP-level behaviour every route shares: error shapes for bad requests, request ids, metrics, docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp({ bodyLimit: 4096 });
  a = await t.account();
});
afterAll(async () => t.close());

const tokenBody = { name: 'x', exp_date: null, client_user: { role: { name: 'Users' } } };

describe('bad requests get a clear 4xx in the product envelope', () => {
  it('400 for malformed JSON', async () => {
    const res = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, { headers: a.headers, body: '{"name": ' });
    expect(res.statusCode).toBe(400);
    // IAM's JSONParseError body.
    expect(res.json().message).toMatch(/JSON parse error/);
  });

  it('415 for a body that is not JSON', async () => {
    const res = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, { headers: { ...a.headers, 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toHaveProperty('detail');
  });

  it('413 for a body over the limit', async () => {
    const res = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, { headers: a.headers, body: { ...tokenBody, name: 'x'.repeat(10_000) } });
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toBeTruthy();
  });

  it('the status the operation declares (400 here), naming every wrong field at once; unknown fields are dropped', async () => {
    const res = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, {
      headers: a.headers,
      body: { name: 5, surprise: true, client_user: { role: { name: 'Users' }, also: 1 } },
    });
    expect(res.statusCode).toBe(400);
    const { errors } = res.json();
    expect(Object.keys(errors).sort()).toEqual(['exp_date', 'name']);
    expect(errors.name[0]).toMatch(/string/);
    expect(errors.exp_date[0]).toMatch(/required/);
    const accepted = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, {
      headers: a.headers,
      body: { ...tokenBody, surprise: true, client_user: { role: { name: 'Users' }, also: 1 } },
    });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).not.toHaveProperty('surprise');
  });

  it("422, the product's convention, for a path id that is not an integer where the operation declares neither 400 nor 422", async () => {
    const res = await t.request('GET', `/iam/v2/clients/abc/tokens`, { headers: a.headers });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.path.clientId).toBeTruthy();
  });

  it('accepts Content-Type: application/json on a DELETE without a body (as the official client sends it)', async () => {
    const created = (await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, { headers: a.headers, body: tokenBody })).json();
    const res = await t.request('DELETE', `/iam/v2/clients/${a.clientId}/tokens/${created.id}`, {
      headers: { ...a.headers, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(204);
  });

  it('404 JSON for an unknown route, in the envelope of the product that owns the prefix', async () => {
    const iam = await t.request('GET', '/iam/nothing-here', { headers: a.headers });
    expect(iam.statusCode).toBe(404);
    expect(iam.json()).toEqual({ detail: 'No route for GET /iam/nothing-here' });
    const elsewhere = await t.request('GET', '/nowhere');
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('405 with Allow for a wrong method on a known path', async () => {
    const res = await t.request('PUT', '/iam/clients/me', { headers: a.headers });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.json().detail).toMatch(/not allowed/);
  });

  it('ignores unknown headers', async () => {
    const res = await t.request('GET', '/iam/clients/me', { headers: { ...a.headers, 'x-stainless-lang': 'python', 'x-whatever': '1' } });
    expect(res.statusCode).toBe(200);
  });

  it('parses true/false booleans in the query', async () => {
    const res = await t.request('GET', `/iam/v2/clients/${a.clientId}/tokens?deleted=true`, { headers: a.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().every((tok: { deleted: boolean }) => tok.deleted)).toBe(true);
    const bad = await t.request('GET', `/iam/v2/clients/${a.clientId}/tokens?deleted=maybe`, { headers: a.headers });
    expect(bad.statusCode).toBe(422);
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id', async () => {
    const res = await t.request('GET', '/iam/clients/me', { headers: { ...a.headers, 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('generates one otherwise, also on errors', async () => {
    const res = await t.request('GET', '/iam/clients/me', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('operations endpoints', () => {
  it('exposes Prometheus metrics per operation: exact counts, cumulative latency buckets', async () => {
    const scrape = async () => {
      const res = await t.request('GET', '/metrics');
      expect(res.statusCode).toBe(200);
      const value = (pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(res.body)?.[1] ?? 0);
      const buckets = [
        ...res.body.matchAll(/^edgeplane_http_request_duration_seconds_bucket\{le="([^"]+)",operation="iam.account.get",method="GET"\} (\d+)$/gm),
      ];
      return {
        ok: value('edgeplane_http_requests_total\\{operation="iam.account.get",method="GET",status="200"\\}'),
        unauthorized: value('edgeplane_http_requests_total\\{operation="iam.account.get",method="GET",status="401"\\}'),
        count: value('edgeplane_http_request_duration_seconds_count\\{operation="iam.account.get",method="GET"\\}'),
        sum: value('edgeplane_http_request_duration_seconds_sum\\{operation="iam.account.get",method="GET"\\}'),
        buckets: buckets.map((m) => [m[1], Number(m[2])] as const),
        body: res.body,
      };
    };
    const before = await scrape();
    for (let i = 0; i < 3; i += 1) await t.request('GET', '/iam/clients/me', { headers: a.headers });
    await t.request('GET', '/iam/clients/me');
    const after = await scrape();
    expect(after.ok - before.ok).toBe(3);
    expect(after.unauthorized - before.unauthorized).toBe(1);
    expect(after.count - before.count).toBe(4);
    expect(after.sum).toBeGreaterThan(before.sum);
    expect(after.buckets.map(([le]) => le)).toEqual(['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf']);
    const counts = after.buckets.map(([, n]) => n);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
    expect(counts.at(-1)).toBe(after.count);
    expect(after.body).toMatch(/^# TYPE edgeplane_http_request_duration_seconds histogram$/m);
    expect(after.body).toMatch(/^# TYPE edgeplane_http_requests_total counter$/m);
    expect(after.body).toMatch(/^edgeplane_process_cpu_user_seconds_total /m);
  });

  it('serves the generated OpenAPI document and the docs page', async () => {
    const doc = await t.request('GET', '/openapi.json');
    expect(doc.statusCode).toBe(200);
    const spec = doc.json();
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.paths['/iam/clients/me'].get.operationId).toBe('iam.account.get');
    expect(spec.paths['/iam/v2/clients/{clientId}/tokens'].post.requestBody).toBeTruthy();
    const docs = await t.request('GET', '/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger/i);
  });

  it('reports health and readiness with the database', async () => {
    const res = await t.request('GET', '/_edgeplane/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ live: true, ready: true, database: { ok: true } });
  });
});

describe('HEAD, answered by the GET route of every path over HTTP', () => {
  it("sends the GET answer's status and headers without the body, and keeps the connection in step", async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const get = await fetch(`${base}/iam/clients/me`, { headers: a.headers });
    const body = await get.text();
    const head = await fetch(`${base}/iam/clients/me`, { method: 'HEAD', headers: a.headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(body));
    expect(await head.text()).toBe('');
    // The same (kept-alive) connection answers the next request as usual after a HEAD.
    expect((await fetch(`${base}/iam/clients/me`, { headers: a.headers })).status).toBe(200);
    expect((await fetch(`${base}/iam/clients/me`, { method: 'HEAD' })).status).toBe(401);
    expect((await fetch(`${base}/cloud/v1/projects/1`, { method: 'HEAD', headers: a.headers })).status).toBeLessThan(500);
    // A path with no GET: 405 naming what it allows, as for any other method it does not take.
    const postOnly = await fetch(`${base}/cdn/resources/1/purge`, { method: 'HEAD', headers: a.headers });
    expect([postOnly.status, postOnly.headers.get('allow')]).toEqual([405, 'POST']);
    const journal = await t.request('GET', '/_edgeplane/journal?path=/iam/clients/me&order=desc&limit=2', { headers: t.operator });
    expect(journal.json().results.map((e: { method: string; status: number }) => [e.method, e.status])).toEqual([
      ['HEAD', 401],
      ['GET', 200],
    ]);
    const metrics = (await t.request('GET', '/metrics')).body;
    expect(metrics).toMatch(/^edgeplane_http_requests_total\{operation="iam.account.get",method="HEAD",status="200"\} [1-9]/m);
  });
});
