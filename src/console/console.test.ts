// The console's files as the server sends them: types, caching, compression, the single-page fallback,
// and what they must not do (be journaled, be hit by faults, escape their folder, need a token).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../tests/support/app.js';
import { defaultConsoleDir } from './files.js';

const PAGE = '<!doctype html><title>console</title><script type="module" src="/console/assets/index-abc123.js"></script>';
const SCRIPT = 'console.log("console");'.repeat(50);
let dir: string;
let app: TestApp;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), PAGE);
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js.br'), zlib.brotliCompressSync(SCRIPT));
  fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js.gz'), zlib.gzipSync(SCRIPT));
  fs.writeFileSync(path.join(dir, 'assets', 'style-def456.css'), 'body{margin:0}');
  fs.mkdirSync(path.join(dir, '.vite'));
  fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), '{}');
  fs.writeFileSync(path.join(dir, '..', `${path.basename(dir)}-secret.txt`), 'outside');
  app = await createTestApp({}, { consoleDir: dir });
});

afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(path.join(dir, '..', `${path.basename(dir)}-secret.txt`), { force: true });
});

describe('console files', () => {
  it('serves the page at /console without a token, revalidated on every load, with a strict content policy', async () => {
    const page = await app.request('GET', '/console');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers.etag).toBeTruthy();
    expect(page.body).toBe(PAGE);
    const again = await app.request('GET', '/console', { headers: { 'if-none-match': String(page.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('answers every view path with the page (the app routes it), so reloads and shared links work', async () => {
    for (const url of ['/console/', '/console/waap/events', '/console/cloud/tasks?task=abc', '/console/operator/journal']) {
      const answer = await app.request('GET', url);
      expect(answer.statusCode, url).toBe(200);
      expect(answer.body, url).toBe(PAGE);
    }
  });

  it('serves hashed assets with their type and a year of immutable caching', async () => {
    const script = await app.request('GET', '/console/assets/index-abc123.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe(SCRIPT);
    const style = await app.request('GET', '/console/assets/style-def456.css');
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    const base = await app.app.listen({ host: '127.0.0.1', port: 0 });
    const head = await fetch(`${base}/console/assets/index-abc123.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await head.text()).toBe('');
  });

  it('sends the precompressed copy a browser accepts, brotli first', async () => {
    const br = await app.request('GET', '/console/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    const gzip = await app.request('GET', '/console/assets/index-abc123.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);
    const plain = await app.request('GET', '/console/assets/style-def456.css', { headers: { 'accept-encoding': 'br' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('answers a missing asset, a dot file or a path out of the folder with a 404, never the page', async () => {
    for (const url of [
      '/console/assets/missing.js',
      '/console/missing.png',
      '/console/.vite/manifest.json',
      '/console/..%2F..%2Fpackage.json',
      `/console/..%2F${path.basename(dir)}-secret.txt`,
    ]) {
      const answer = await app.request('GET', url);
      expect(answer.statusCode, url).toBe(404);
      expect(answer.json(), url).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect((await app.request('GET', '/console/%E0%A4%A')).statusCode).toBe(400);
  });

  it('is neither journaled nor touched by faults, and is left out of the OpenAPI document', async () => {
    await app.request('DELETE', '/_edgeplane/journal', { headers: app.operator });
    await app.request('POST', '/_edgeplane/faults', { headers: app.operator, body: { path: '/**', status: 503 } });
    expect((await app.request('GET', '/console/waap/events')).statusCode).toBe(200);
    expect((await app.request('GET', '/console/assets/index-abc123.js')).statusCode).toBe(200);
    const journal = (await app.request('GET', '/_edgeplane/journal', { headers: app.operator })).json() as { results: { path: string }[] };
    expect(journal.results.map((entry) => entry.path)).toEqual(['/_edgeplane/faults']);
    await app.request('DELETE', '/_edgeplane/faults', { headers: app.operator });
    const document = (await app.request('GET', '/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });

  it("leaves the console's periodic refreshes out of the journal, and journals what it asks for", async () => {
    await app.request('DELETE', '/_edgeplane/journal', { headers: app.operator });
    const account = await app.account();
    expect((await app.request('GET', '/cloud/v1/regions', { headers: { ...account.headers, 'x-edgeplane-console': 'poll' } })).statusCode).toBe(200);
    expect((await app.request('GET', '/cloud/v1/projects', { headers: account.headers })).statusCode).toBe(200);
    const journal = (await app.request('GET', '/_edgeplane/journal', { headers: app.operator })).json() as { results: { path: string }[] };
    expect(journal.results.map((entry) => entry.path)).toEqual(['/cloud/v1/projects']);
  });

  it('says how to build the console when its files are missing', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-console-empty-'));
    const bare = await createTestApp({}, { consoleDir: empty });
    try {
      const answer = await bare.request('GET', '/console');
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ message: expect.stringContaining('npm run build') });
    } finally {
      await bare.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('finds dist/console of the package from the sources and from the bundles', () => {
    const root = path.resolve(__dirname, '..', '..');
    expect(defaultConsoleDir(path.join(root, 'src', 'console'))).toBe(path.join(root, 'dist', 'console'));
    expect(defaultConsoleDir(path.join(root, 'dist'))).toBe(path.join(root, 'dist', 'console'));
  });
});
