// Abuse limits: body size, request-line and header size, slow clients (cut off, and unable to hold the
// server), and the optional per-token rate limit (429 + Retry-After in the product envelope, honoured the
// way the official clients do: wait retry-after-ms, then retry).
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { TokenBuckets } from '../../src/platform/rate-limit.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { envelopeProblem } from './support/envelopes.js';

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

async function listening(overrides: Record<string, unknown>): Promise<{ t: TestApp; port: number }> {
  const t = await createTestApp(overrides);
  apps.push(t);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as net.AddressInfo).port };
}

/** Writes `text` on a fresh socket and resolves with what came back and when the server closed it. */
// The socket is not half-closed after writing: Node drops a half-closed request whose answer is still
// being computed (an asynchronous database), so the client waits for the server to close instead.
function raw(port: number, text: string, keepOpenMs = 5000): Promise<{ data: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += String(d)));
    socket.on('close', () => resolve({ data, closedAfterMs: Date.now() - started }));
    socket.on('error', () => {});
    socket.write(text);
    setTimeout(() => socket.destroy(), keepOpenMs).unref();
  });
}

describe('documented defaults', () => {
  it('has bounded defaults for every limit and rate limiting off', () => {
    const config = loadConfig({});
    expect({ ...config, dataDir: undefined, port: undefined }).toMatchObject({
      bodyLimit: 1_048_576,
      requestTimeout: 30_000,
      connectionTimeout: 120_000,
      keepAliveTimeout: 72_000,
      maxHeaderSize: 16_384,
      rateLimit: 0,
      rateLimitBurst: 0,
    });
  });
});

describe('size limits', () => {
  it('refuses a body over the limit with 413 in the product envelope', async () => {
    const t = await createTestApp({ bodyLimit: 4096 });
    apps.push(t);
    const a = await t.account();
    const res = await t.request('POST', '/cdn/resources/rule_templates', { headers: a.headers, body: { name: 'x'.repeat(5000), rule: '/a', ruleType: 0 } });
    expect(res.statusCode).toBe(413);
    expect(envelopeProblem('/cdn/resources/rule_templates', 413, res.json(), undefined)).toBeNull();
  });

  it('refuses headers and URLs over maxHeaderSize with 431 and closes the connection', async () => {
    const { port } = await listening({ maxHeaderSize: 2048 });
    const bigHeader = await raw(port, `GET /_edgeplane/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(4000)}\r\n\r\n`);
    expect(bigHeader.data).toMatch(/^HTTP\/1.1 431/);
    const longUrl = await raw(port, `GET /_edgeplane/health?q=${'a'.repeat(4000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longUrl.data).toMatch(/^HTTP\/1.1 431/);
    const fine = await raw(port, 'GET /_edgeplane/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(fine.data).toMatch(/^HTTP\/1.1 200/);
  });

  it('refuses an over-long path segment in the product envelope (not the framework’s own body)', async () => {
    const t = await createTestApp();
    apps.push(t);
    const a = await t.account();
    const res = await t.request('GET', `/cloud/v1/tasks/${'x'.repeat(600)}`, { headers: a.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError' });
    const bad = await t.request('GET', '/cloud/v1/tasks/%ZZ', { headers: a.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError' });
  });
});

describe('slow clients', () => {
  it('cuts off a client that never finishes its headers or body, and keeps serving others meanwhile', async () => {
    const { t, port } = await listening({ requestTimeout: 1000 });
    const a = await t.account();
    const slowHeaders = raw(port, 'GET /_edgeplane/health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 10_000);
    const slowBody = raw(
      port,
      `POST /cdn/resources/rule_templates HTTP/1.1\r\nHost: x\r\nAuthorization: ${a.headers.authorization}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
      10_000,
    );
    // While both hold a connection, a normal client is answered at once.
    const normal = await raw(port, 'GET /_edgeplane/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(normal.data).toMatch(/^HTTP\/1.1 200/);
    expect(normal.closedAfterMs).toBeLessThan(1000);
    const [headers, body] = await Promise.all([slowHeaders, slowBody]);
    // Timeout (1 s) plus Node's check interval (1 s at most): well before the client gave up (10 s).
    expect(headers.closedAfterMs).toBeLessThan(4000);
    expect(body.closedAfterMs).toBeLessThan(4000);
    expect(body.data).toMatch(/^HTTP\/1.1 408/);
  });
});

describe('per-token rate limit', () => {
  it('token buckets refill at the rate and say how long to wait', () => {
    let now = 0;
    const buckets = new TokenBuckets({ rate: 2, burst: 3, now: () => now, maxBuckets: 2 });
    expect([buckets.take(1), buckets.take(1), buckets.take(1)]).toEqual([0, 0, 0]);
    expect(buckets.take(1)).toBe(500);
    now = 500;
    expect(buckets.take(1)).toBe(0);
    expect(buckets.take(2)).toBe(0);
    // A third key evicts the least recently used one (key 1), which then starts full again.
    expect(buckets.take(3)).toBe(0);
    expect(buckets.take(1)).toBe(0);
  });

  it('answers 429 with Retry-After in the product envelope; waiting that long is enough; others unaffected', async () => {
    // The limiter's time is the test's: a slow engine cannot refill a bucket between two requests.
    let now = 0;
    const t = await createTestApp({ rateLimit: 5, rateLimitBurst: 3 }, { monotonicNow: () => now });
    apps.push(t);
    const a = await t.account();
    const b = await t.account();
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 4; i++) {
      const res = await t.request('GET', '/cloud/v1/tasks', { headers: a.headers });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) limited = res;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
    expect(limited!.headers['retry-after']).toBe('1');
    const waitMs = Number(limited!.headers['retry-after-ms']);
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(200);
    expect(limited!.json()).toMatchObject({ code: 429, exception_class: 'TooManyRequestsError' });
    expect(envelopeProblem('/cloud/v1/tasks', 429, limited!.json(), limited!.headers['x-request-id'] as string)).toBeNull();
    // Another product answers in its own envelope.
    const cdn = await t.request('GET', '/cdn/resources/rule_templates', { headers: a.headers });
    expect(cdn.statusCode).toBe(429);
    expect(cdn.json()).toEqual({ detail: expect.stringMatching(/Rate limit/) });
    // Other tokens and the operator are not limited.
    expect((await t.request('GET', '/cloud/v1/tasks', { headers: b.headers })).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await t.request('GET', '/_edgeplane/clock', { headers: t.operator })).statusCode).toBe(200);
    // The official clients sleep retry-after-ms (or Retry-After) before the next attempt: that succeeds.
    now += Number(cdn.headers['retry-after-ms']);
    expect((await t.request('GET', '/cloud/v1/tasks', { headers: a.headers })).statusCode).toBe(200);
  });
});
