// GET / for a browser and for a program; CORS for browser tools on local origins; /docs branded and
// its document served once serialised and compressed.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../tests/support/app.js';
import { corsOriginCheck } from './cors.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GET /', () => {
  it('shows a browser a page linking the reference, the document and the console, without a token', async () => {
    const res = await t.request('GET', '/', { headers: { accept: BROWSER_ACCEPT, host: 'localhost:8080' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers.vary).toBe('Accept');
    for (const link of ['/docs', '/openapi.json', '/console', '/_edgeplane/health']) expect(res.body).toContain(`href="${link}"`);
    expect(res.body).toContain("curl -H 'Authorization: APIKey &lt;token&gt;' http://localhost:8080/iam/clients/me");
  });

  it('escapes a hostile Host header', async () => {
    const res = await t.request('GET', '/', { headers: { accept: 'text/html', host: 'x"><script>alert(1)</script>' } });
    expect(res.body).not.toContain('<script>');
  });

  it('answers a program (curl, an SDK) with the same links as JSON', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await t.request('GET', '/', { headers: accept ? { accept } : {} });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        name: 'Edgeplane',
        version: expect.any(String),
        links: { docs: '/docs', openapi: '/openapi.json', console: '/console', health: '/_edgeplane/health', metrics: '/metrics' },
      });
    }
  });
});

describe('CORS', () => {
  it('allows local origins on any port, and only those, by default', () => {
    const local = corsOriginCheck('local')!;
    for (const origin of ['http://localhost:3000', 'https://127.0.0.1:8443', 'http://[::1]:5173', 'http://localhost']) expect(local(origin)).toBe(true);
    for (const origin of ['https://example.com', 'http://localhost.example.com', 'http://127.0.0.1.nip.io:80', 'null']) expect(local(origin)).toBe(false);
    expect(corsOriginCheck('off')).toBeUndefined();
    expect(corsOriginCheck('*')!('https://anything.test')).toBe(true);
    const listed = corsOriginCheck('https://app.example.com, local')!;
    expect([listed('https://app.example.com'), listed('http://localhost:1'), listed('https://other.example.com')]).toEqual([true, true, false]);
  });

  it('answers a preflight from a local origin without a token', async () => {
    const res = await t.request('OPTIONS', '/iam/clients/me', {
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('authorization');
    expect(res.headers['access-control-max-age']).toBe('600');
  });

  it('marks answers, errors included, for a local origin, and exposes the request id', async () => {
    const account = await t.account();
    const ok = await t.request('GET', '/iam/clients/me', { headers: { ...account.headers, origin: 'http://127.0.0.1:5173' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('http://127.0.0.1:5173');
    expect(String(ok.headers['access-control-expose-headers'])).toContain('x-request-id');
    const denied = await t.request('GET', '/iam/clients/me', { headers: { origin: 'http://127.0.0.1:5173' } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('http://127.0.0.1:5173');
  });

  it('gives another origin no CORS headers; OPTIONS without a preflight stays a 405 in the product shape', async () => {
    const other = await t.request('OPTIONS', '/iam/clients/me', { headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.statusCode).toBe(405);
    const plain = await t.request('OPTIONS', '/iam/clients/me');
    expect([plain.statusCode, plain.headers.allow, plain.json()]).toEqual([405, 'GET', { detail: 'Method "OPTIONS" not allowed.' }]);
    expect((await t.request('OPTIONS', '/no/such/path')).statusCode).toBe(404);
  });

  it('is configurable: off, or a list of origins', async () => {
    const off = await createTestApp({ cors: 'off' });
    const listed = await createTestApp({ cors: 'https://app.example.com' });
    try {
      const preflight = { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' };
      expect((await off.request('OPTIONS', '/iam/clients/me', { headers: preflight })).headers['access-control-allow-origin']).toBeUndefined();
      expect((await listed.request('OPTIONS', '/iam/clients/me', { headers: preflight })).headers['access-control-allow-origin']).toBeUndefined();
      const allowed = await listed.request('OPTIONS', '/iam/clients/me', { headers: { ...preflight, origin: 'https://app.example.com' } });
      expect([allowed.statusCode, allowed.headers['access-control-allow-origin']]).toEqual([204, 'https://app.example.com']);
    } finally {
      await off.close();
      await listed.close();
    }
  });
});

describe('/docs and /openapi.json', () => {
  it('is branded Edgeplane: title, icon and logo of its own, none of swagger-ui', async () => {
    const page = await t.request('GET', '/docs/');
    expect(page.body).toContain('<title>Edgeplane API reference</title>');
    expect(page.body).toContain('href="./static/theme/favicon.svg"');
    expect(page.body).not.toMatch(/favicon-(16|32)x\d+\.png/);
    const init = await t.request('GET', '/docs/static/swagger-initializer.js');
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(init.body);
    expect(Buffer.from(logo![1], 'base64').toString()).toContain('>Edgeplane</text>');
    expect(init.body).toContain('"docExpansion":"none"');
    expect((await t.request('GET', '/docs/static/theme/favicon.svg')).headers['content-type']).toBe('image/svg+xml');
  });

  it('serves the document serialised once, gzipped for clients that take it, with a validator', async () => {
    const plain = await t.request('GET', '/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const zipped = await t.request('GET', '/openapi.json', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(JSON.parse(plain.body).info.title).toBe('Edgeplane');
    // The reference page reads the same bytes.
    expect((await t.request('GET', '/docs/json')).rawPayload.equals(plain.rawPayload)).toBe(true);
    const etag = String(plain.headers.etag);
    const again = await t.request('GET', '/openapi.json', { headers: { 'if-none-match': etag } });
    expect([again.statusCode, again.body]).toEqual([304, '']);
  });

  it('gzips the page assets once and keeps their validators', async () => {
    const plain = await t.request('GET', '/docs/static/swagger-ui-bundle.js');
    const zipped = await t.request('GET', '/docs/static/swagger-ui-bundle.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
  });
});
