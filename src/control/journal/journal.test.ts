import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { Journal } from './service.js';

let t: TestApp;
let a: TestAccount;
const journal = (query = '') => t.request('GET', `/_edgeplane/journal${query}`, { headers: t.operator });

beforeAll(async () => {
  t = await createTestApp({ journalBodies: true, journalBodyLimit: 2000 });
  a = await t.account();
});
afterAll(async () => t.close());

describe('the request journal', () => {
  it('records each request with client, operation, status, duration and request id, oldest first', async () => {
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    t.clock.freeze();
    t.clock.set(Date.parse('2026-03-01T10:00:00Z'));
    await t.request('GET', '/iam/clients/me', { headers: { ...a.headers, 'x-request-id': 'req-1', 'x-edgeplane-scenario': 'sc' } });
    await t.request('GET', '/iam/clients/me');
    const res = await journal();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(2);
    expect(body.results[0]).toMatchObject({
      time: '2026-03-01T10:00:00.000Z',
      requestId: 'req-1',
      clientId: a.clientId,
      operationId: 'iam.account.get',
      method: 'GET',
      path: '/iam/clients/me',
      status: 200,
      scenario: 'sc',
    });
    expect(body.results[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(body.results[0].headers.authorization).toBe('[redacted]');
    expect(body.results[1]).toMatchObject({ clientId: null, status: 401 });
    t.clock.resume();
  });

  it('shows the query and headers the client sent, not what validation made of them', async () => {
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    await t.request('GET', '/cloud/v1/projects?limit=5&name=a+b&name=c', { headers: { ...a.headers, 'x-request-id': 'req-q', 'X-Custom': 'v' } });
    const [entry] = (await journal('?requestId=req-q')).json().results;
    expect(entry.query).toEqual({ limit: '5', name: ['a b', 'c'] });
    expect(entry.headers).toMatchObject({ 'x-request-id': 'req-q', 'x-custom': 'v', authorization: '[redacted]' });
  });

  it('keeps bodies with secrets redacted (the created token never appears)', async () => {
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    const created = await t.request('POST', `/iam/v2/clients/${a.clientId}/tokens`, {
      headers: a.headers,
      body: { name: 'ci', client_user: { role: { id: 1, name: 'Administrators' } }, exp_date: null },
    });
    expect(created.statusCode).toBe(200);
    const secret = created.json().token as string;
    const [entry] = (await journal('?operationId=iam.tokens.v2.create')).json().results;
    expect(entry.requestBody).toContain('"name":"ci"');
    expect(entry.responseBody).toContain('[redacted]');
    expect(JSON.stringify(entry)).not.toContain(secret);
  });

  it('filters by client, method, path glob, status, scenario and time, and paginates', async () => {
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    for (let i = 0; i < 5; i += 1) await t.request('GET', '/iam/clients/me', { headers: a.headers });
    await t.request('GET', '/iam/clients/me', { headers: { ...a.headers, 'x-edgeplane-scenario': 'one' } });
    await t.request('GET', '/nowhere', { headers: a.headers });
    expect((await journal(`?clientId=${a.clientId}`)).json().count).toBe(6);
    expect((await journal('?status=404')).json().results[0]).toMatchObject({ path: '/nowhere', operationId: null });
    expect((await journal('?status=404&status=200')).json().count).toBe(7);
    expect((await journal('?path=/iam/**&method=get')).json().count).toBe(6);
    expect((await journal('?scenario=one')).json().count).toBe(1);
    const page = (await journal('?limit=2&offset=1&order=desc')).json();
    expect(page.count).toBe(7);
    expect(page.results.map((e: { seq: number }) => e.seq)).toEqual([...page.results.map((e: { seq: number }) => e.seq)].sort((x, y) => y - x));
    expect(page.results).toHaveLength(2);
    expect((await journal(`?since=${encodeURIComponent(new Date(t.clock.now() + 60_000).toISOString())}`)).json().count).toBe(0);
  });

  it('does not record reads of the journal itself; DELETE empties it', async () => {
    await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator });
    await journal();
    await journal();
    expect((await journal()).json().count).toBe(0);
    await t.request('GET', '/iam/clients/me', { headers: a.headers });
    expect((await t.request('DELETE', '/_edgeplane/journal', { headers: t.operator })).json()).toEqual({ deleted: 1 });
  });

  it('is operator-only and validates its query', async () => {
    expect((await t.request('GET', '/_edgeplane/journal', { headers: a.headers })).statusCode).toBe(403);
    const bad = await journal('?status=abc');
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });
  });
});

describe('the ring buffer', () => {
  const entry = (n: number) => ({
    timeMs: n,
    requestId: `r${n}`,
    clientId: 1,
    operationId: null,
    method: 'GET',
    url: '/x?token=x',
    rawHeaders: [],
    status: 200,
    elapsedMs: 1,
    requestBody: null,
    responseBody: null,
  });
  const all = { limit: 1000, offset: 0, order: 'asc' as const };

  it('keeps only the last N entries, in order', () => {
    const j = new Journal({ size: 3, bodies: false, bodyLimit: 10 });
    for (let n = 1; n <= 5; n += 1) j.record(entry(n));
    expect(j.query(all).results.map((e) => e.requestId)).toEqual(['r3', 'r4', 'r5']);
    expect(j.clear()).toBe(3);
    expect(j.query(all).count).toBe(0);
  });

  it('shows the query and headers as sent, from the URL and the raw header list', () => {
    const j = new Journal({ size: 2, bodies: false, bodyLimit: 10 });
    j.record({
      ...entry(1),
      url: '/x?tag=a&tag=b&name=a+b%21&api_key=k&empty=',
      rawHeaders: ['Host', 'h', 'X-Edgeplane-Scenario', 'sc', 'Authorization', 'APIKey t', 'X-A', '1', 'x-a', '2', 'Cookie', 'a=1', 'cookie', 'b=2'],
    });
    j.record({ ...entry(2), url: '/y?', rawHeaders: ['x-edgeplane-scenario', ''] });
    const [first, second] = j.query(all).results;
    expect(first.query).toEqual({ tag: ['a', 'b'], name: 'a b!', api_key: '[redacted]', empty: '' });
    expect(first.headers).toEqual({ host: 'h', 'x-edgeplane-scenario': 'sc', authorization: '[redacted]', 'x-a': '1, 2', cookie: '[redacted]' });
    expect(first.scenario).toBe('sc');
    expect(second).toMatchObject({ path: '/y', query: {}, scenario: null });
    expect(j.query({ ...all, scenario: 'sc' }).results.map((e) => e.requestId)).toEqual(['r1']);
  });

  it('size 0 records nothing; bodies are cut at the limit', () => {
    const off = new Journal({ size: 0, bodies: true, bodyLimit: 10 });
    off.record(entry(1));
    expect(off.query(all).count).toBe(0);
    const j = new Journal({ size: 1, bodies: true, bodyLimit: 10 });
    expect(j.body({ text: 'a'.repeat(50) })).toBe(`${'{"text":"aaaaaaaaaaaa'.slice(0, 10)}…[cut]`);
    const wide = new Journal({ size: 1, bodies: true, bodyLimit: 1000 });
    expect(wide.body({ password: 'p', nested: [{ apiKey: 'k' }] })).toBe('{"password":"[redacted]","nested":[{"apiKey":"[redacted]"}]}');
  });
});
