// What the console promises without a browser: its bundle stays within the budget stated in
// docs/console.md, and its WAAP log offers every filter the API has.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_FIELDS, RANGE_PARAMS } from '../../console/src/views/waap/filter-fields.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { ensureConsoleBuilt } from './browser.js';

// The budget (docs/console.md), in KiB as sent to a browser (brotli).
const FIRST_VIEW_BUDGET_KIB = 50;
const WHOLE_CONSOLE_BUDGET_KIB = 100;

const dist = path.resolve(__dirname, '..', '..', 'dist', 'console');

interface Chunk {
  file: string;
  css?: string[];
  imports?: string[];
  dynamicImports?: string[];
  name?: string;
  isEntry?: boolean;
}

const brotliKiB = (file: string) => zlib.brotliCompressSync(fs.readFileSync(path.join(dist, file))).length / 1024;

describe('console bundle budget', () => {
  beforeAll(ensureConsoleBuilt, 120_000);

  it(`first view (the shell and the WAAP request log) <= ${FIRST_VIEW_BUDGET_KIB} KiB and the whole console <= ${WHOLE_CONSOLE_BUDGET_KIB} KiB, brotli`, () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
    // What opening /console/waap/events fetches: the entry, the request log's chunk, their static imports and CSS.
    const files = new Set<string>(['index.html']);
    const visit = (key: string) => {
      const chunk = manifest[key];
      files.add(chunk.file);
      for (const css of chunk.css ?? []) files.add(css);
      for (const child of chunk.imports ?? []) if (!files.has(manifest[child].file)) visit(child);
    };
    visit('index.html');
    const requestLog = Object.keys(manifest).find((key) => manifest[key].name === 'waap');
    expect(requestLog, 'the WAAP section chunk').toBeDefined();
    visit(requestLog as string);
    const firstView = [...files].reduce((sum, file) => sum + brotliKiB(file), 0);
    const all = [
      'index.html',
      ...fs
        .readdirSync(path.join(dist, 'assets'))
        .filter((f) => /\.(js|css)$/.test(f))
        .map((f) => `assets/${f}`),
    ];
    const whole = all.reduce((sum, file) => sum + brotliKiB(file), 0);
    console.log(`console bundle: first view ${firstView.toFixed(1)} KiB, whole ${whole.toFixed(1)} KiB (brotli)`);
    expect(firstView).toBeLessThanOrEqual(FIRST_VIEW_BUDGET_KIB);
    expect(whole).toBeLessThanOrEqual(WHOLE_CONSOLE_BUDGET_KIB);
  });
});

describe('console WAAP filters', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('offers every filter of GET /waap/v1/analytics/requests (each with its exclude_ twin)', async () => {
    const document = (await app.request('GET', '/openapi.json')).json() as { paths: Record<string, { get: { parameters: { in: string; name: string }[] } }> };
    const names = document.paths['/waap/v1/analytics/requests'].get.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    const offered = FILTER_FIELDS.flatMap((field) => [field.param, `exclude_${field.param}`]);
    expect([...offered, ...RANGE_PARAMS].sort()).toEqual([...names].sort());
  });
});
