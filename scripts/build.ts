// The production build (`npm run build`; `npm install` runs it through `prepare` when the sources
// changed): tsc type-checks the sources and writes the library's declarations (dist/src/**/*.d.ts; with
// --no-check, as `prepare` does, only writes them: `npm run typecheck` is the check), then esbuild writes
//   dist/server.cjs   the whole server in one file (the `edgeplane` command: serve, generate, control)
//   dist/edgeplane.mjs  the command itself (bin, `npm start`): runs server.cjs from a V8 code cache
//   dist/server.cjs.v8-cache  that cache, made here by starting the built server once
//   dist/schema-code.pack  the routes' validators and serialisers, compiled (src/platform/schema-code.ts)
//   dist/schema-code.pack.v8-cache  their V8 code cache, written in that same start (not packed by npm)
//   dist/index.mjs    the library (`startEdgeplane` for in-process use), also one file
//   dist/waap-query-worker.cjs  the WAAP request log's reader threads
//   dist/waap-ingest-worker.cjs the thread large WAAP ingestion bodies are parsed in
//   dist/dns-zonefile-worker.cjs the thread large imported zone files are read in
//   dist/json-body-worker.cjs   the thread clients' large JSON bodies are checked in
//   dist/engine-worker.cjs      the catalogue engine's thread: bodies of many items checked, reports made
//   dist/dns-mappings-worker.cjs the thread network-mapping imports (YAML) are read in
//   dist/cdn-match-worker.cjs   the thread CDN rule patterns are matched in
//   dist/console/     the web console (Vite; see scripts/build-console.ts)
// One file to read and compile instead of hundreds of module files to resolve, stat and link, and its
// functions compiled ahead, is most of what brought the start-up from 1.2-1.6 s to a few tenths.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { BUILD_FINGERPRINT, inputsFingerprint } from './build-inputs.js';
import { buildConsole } from './build-console.js';
import { lazyBuiltins } from './lazy-builtins.js';
import { routerClosures } from './router-closures.js';
import type { FieldError } from '../src/platform/errors.js';
import type { BodyCheck } from '../src/platform/validation.js';
import type { ReportCall } from '../src/catalogue-engine/fill.js';
import { WorkerPool } from '../src/platform/workers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const fingerprintFile = path.join(dist, BUILD_FINGERPRINT);

// --if-stale (npm's `prepare`): build only when an input changed. `npx edgeplane` in a clone installs the
// clone into npx's cache, which runs `prepare`: it must not rebuild (and first delete) the dist/ of a
// server that may be running from it, silently, for a minute. Under npx (npm_command=exec) a built
// dist/ is used as it is, like `npm start` does, even when stale. Said on stderr: under npx, what
// `prepare` prints comes before the command's own output.
const fingerprint = inputsFingerprint(root);
if (process.argv.includes('--if-stale')) {
  if (fs.existsSync(fingerprintFile) && fs.readFileSync(fingerprintFile, 'utf8') === fingerprint) {
    console.error('dist/ is up to date with the sources (npm run build rebuilds it anyway)');
    process.exit(0);
  }
  if (process.env.npm_command === 'exec' && fs.existsSync(path.join(dist, 'edgeplane.mjs'))) {
    console.error('dist/ is older than the sources, and is left as it is under npx: run npm run build');
    process.exit(0);
  }
}

// A clean dist/: files of an earlier layout must not linger and be run by mistake.
fs.rmSync(dist, { recursive: true, force: true });
// --bundle-only: esbuild alone, in a second instead of twenty, for quick start-up measurements; no
// type-check and no declarations (the library's types), so not for a release.
const bundleOnly = process.argv.includes('--bundle-only');
if (!bundleOnly) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...(process.argv.includes('--no-check') ? ['--noCheck'] : [])], {
    cwd: root,
    stdio: 'inherit',
  });
}

// Left to Node's own resolution at run time:
// - better-sqlite3: a native addon; the analytics reader threads also require it by its resolved path;
// - pg: loaded only when a PostgreSQL URL is given (and it names the optional pg-native);
// - @fastify/swagger-ui: serves the files of its own folder (__dirname); loaded by the first /docs request;
// - pino-pretty: loaded only when the log goes to a terminal, so the start path does not parse it;
// - koffi: a native addon with a binary per platform, loaded once the server is idle (native-heap.ts).
const external = ['better-sqlite3', 'pg', '@fastify/swagger-ui', 'pino-pretty', 'koffi'];

await buildConsole();

const common: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  packages: 'bundle',
  external,
  // Not minified: stack traces keep readable names and lines (dist/*.map maps them to the sources).
  sourcemap: 'linked',
  logLevel: 'warning',
  metafile: true,
  // Fastify's router without `new Function` per route (see router-closures.ts); Node modules that Fastify
  // and Commander load for features Edgeplane does not start with, loaded on first use (lazy-builtins.ts).
  plugins: [routerClosures, lazyBuiltins],
};

/**
 * The launcher reads the bundle as Latin-1 when every byte is ASCII (src/launcher.ts): V8 then takes the
 * bytes as they are instead of decoding UTF-8, 9 against 62-68 ms for the 6.5 MB bundle on a slow machine.
 * esbuild escapes every non-ASCII character of the code (charset 'ascii'); what is left is in the comments
 * it keeps (a no-break space in Kysely's examples, a name in a licence), each UTF-16 unit replaced by '?'
 * so that the source map's columns stay right.
 */
function keepAscii(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  // Without the u flag the class matches UTF-16 units: a character outside the BMP becomes '??'.
  const ascii = text.replace(/[^\x00-\x7f]/g, '?');
  if (ascii !== text) fs.writeFileSync(file, ascii);
}

/** Every output file with its size, so a dependency that suddenly joins the start path shows. */
function report(result: { metafile?: { outputs: Record<string, { bytes: number }> } }): void {
  for (const [file, output] of Object.entries(result.metafile?.outputs ?? {})) {
    if (!file.endsWith('.map')) console.log(`${file.padEnd(28)} ${(output.bytes / 1024).toFixed(0).padStart(6)} KiB`);
  }
}

// The server as one CommonJS file: a vm.Script (which takes a code cache) runs CommonJS.
// import.meta.url (version.ts and the reader threads resolve files from it) becomes the file's URL.
report(
  await build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: path.join(dist, 'server.cjs'),
    format: 'cjs',
    // import() of the external packages becomes require(): a script run from a code cache has no
    // dynamic import (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on Node 20), and they are CommonJS anyway.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__edgeplaneFileUrl' },
    banner: { js: "var __edgeplaneFileUrl = require('node:url').pathToFileURL(__filename).href;" },
    charset: 'ascii',
  }),
);
keepAscii(path.join(dist, 'server.cjs'));

// The code worker threads run, each found beside the server's (and the library's) bundle (see
// moduleWorker in src/platform/workers.ts): the WAAP request log's reader threads and the thread CDN rule
// patterns are matched in (src/cdn/options/matcher.ts), the thread large WAAP ingestion bodies are
// parsed in (src/waap/request-events/ingest.ts), the one large zone files are read in
// (src/dns/zonefile/reading.ts), the one clients' large JSON bodies are checked in
// (src/platform/json-body.ts), the catalogue engine's (src/catalogue-engine/thread.ts: bodies of many
// items checked, reports generated) and the one network-mapping imports are read in
// (src/dns/network-mappings/yaml.ts). One bundle each; nothing shared between them.
// The validation libraries (the ingestion thread's record validator and the platform's validation module
// it comes with) and the YAML parser are left to Node's resolution, as dependencies: bundled, they were
// copied into the package again (about 500 KB, and 264 KB for YAML); a thread loads them once, when it
// starts, off the main thread.
report(
  await build({
    ...common,
    external: [...external, 'ajv', 'ajv-formats', 'fast-json-stringify', 'typebox', 'yaml'],
    entryPoints: {
      'waap-query-worker': 'src/waap/request-events/log/query-worker.ts',
      'waap-ingest-worker': 'src/waap/request-events/ingest-thread.ts',
      'dns-zonefile-worker': 'src/dns/zonefile/parse-thread.ts',
      'cdn-match-worker': 'src/cdn/options/match-thread.ts',
      'json-body-worker': 'src/platform/json-body-thread.ts',
      'engine-worker': 'src/catalogue-engine/thread.ts',
      'dns-mappings-worker': 'src/dns/network-mappings/yaml-thread.ts',
    },
    outdir: dist,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    define: { 'import.meta.url': '__edgeplaneFileUrl' },
    banner: { js: "var __edgeplaneFileUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
);

// The launcher: only Node's own modules, so nothing to bundle.
report(
  await build({
    ...common,
    entryPoints: ['src/launcher.ts'],
    outfile: path.join(dist, 'edgeplane.mjs'),
    format: 'esm',
    sourcemap: false,
    banner: { js: '#!/usr/bin/env node' },
  }),
);
fs.chmodSync(path.join(dist, 'edgeplane.mjs'), 0o755);

// The library stays an ES module: bundled CommonJS dependencies get a require() for Node's built-ins.
report(
  await build({
    ...common,
    entryPoints: ['src/index.ts'],
    outfile: path.join(dist, 'index.mjs'),
    format: 'esm',
    banner: { js: "import { createRequire as __edgeplaneCreateRequire } from 'node:module';\nconst require = __edgeplaneCreateRequire(import.meta.url);" },
  }),
);

await writeSchemaCode();
await writeCodeCache();
await checkQueryThreads();
await checkWorkerThreads();
// Last: only a complete build that got this far counts as current.
if (!bundleOnly) fs.writeFileSync(fingerprintFile, fingerprint);

/** The environment of a run of the built command: these settings, and none of the developer's EDGEPLANE_* (a database URL, a port, the heap's growth the code cache is made under). */
function builtEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EDGEPLANE_'))), ...settings };
}

/** Starts the built server (`dist/edgeplane.mjs serve`) with these arguments and settings; resolves once it listens. */
async function startBuilt(args: string[], settings: Record<string, string>): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [path.join(dist, 'edgeplane.mjs'), 'serve', '--host', '127.0.0.1', '--port', '0', '--log-level', 'info', ...args], {
    env: builtEnv(settings),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const listening = /edgeplane listening on (http:\/\/[^\s"]+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    void exited.then((code) => reject(new Error(`the built server exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return send('GET', url, headers);
}

/** One request; resolves with its status (the answer is read and dropped). */
function send(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const request = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' } }, (res) =>
      resolve(res.resume().statusCode ?? 0),
    );
    request.on('error', reject).end(body);
  });
}

/** A POST of `body` as `contentType`; resolves with the status and the answer's text. */
function post(url: string, headers: Record<string, string>, contentType: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-type': contentType } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (piece: string) => (text += piece));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject).end(body);
  });
}

/**
 * Every route's request validators and response serialisers, compiled now and written as code into
 * dist/schema-code.pack (see src/platform/schema-code.ts): a route's first call then loads its code instead
 * of compiling it (1-300 ms). The app is built from the sources the bundle was made from, in this
 * process, with compilers that record each schema as its route is added.
 */
async function writeSchemaCode(): Promise<void> {
  const started = performance.now();
  const { build: buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/config.js');
  const { Clock } = await import('../src/platform/clock.js');
  const { openAndMigrate } = await import('../src/server.js');
  const { SchemaCodeWriter } = await import('../src/platform/schema-code-writer.js');
  const { SCHEMA_CODE_FILE, SCHEMA_CODE_CACHE_SUFFIX } = await import('../src/platform/schema-code.js');
  const { makeCatalogueAjv } = await import('../src/catalogue-engine/validate.js');
  const { makeRecordAjv } = await import('../src/waap/request-events/records.js');
  const config = loadConfig({}, { memory: true, adminToken: 'build-schema-code-operator', logLevel: 'error' });
  const db = await openAndMigrate(config);
  const writer = new SchemaCodeWriter({
    'catalogue-body': () => makeCatalogueAjv(false, true),
    'catalogue-text': () => makeCatalogueAjv('array', true),
    'waap-record': () => makeRecordAjv(true),
  });
  const edgeplane = await buildApp({ config, db, clock: new Clock(), schemaCode: writer });
  await edgeplane.app.close();
  await db.close();
  const bytes = writer.write(path.join(dist, SCHEMA_CODE_FILE));
  // The code cache of the previous pack, until writeCodeCache makes this one's.
  fs.rmSync(path.join(dist, `${SCHEMA_CODE_FILE}${SCHEMA_CODE_CACHE_SUFFIX}`), { force: true });
  console.log(
    `${`dist/${SCHEMA_CODE_FILE}`.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB, ${writer.size} schemas, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/**
 * Calls whose code (the request hooks, a route, its product's service; for the catalogue engine its
 * catalogue reader, inference and validators; graphql-js and the schema of the CDN's advanced API, which
 * a query loads) the cache then holds compiled, so a user's first calls do not compile them. Statuses
 * below 500 only.
 */
function firstCalls(): { method: string; path: string; body?: string }[] {
  const reads = [
    '/iam/clients/me',
    '/cloud/v1/projects',
    '/cloud/v1/availablenetworks/1/76',
    '/cdn/resources/rule_templates',
    '/cdn/advanced/v2',
    '/dns/v2/zones',
    '/fastedge/v1/kv',
    '/cdn/activity_log/requests',
  ];
  const query = '{ statistics(from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { totals { requests } } }';
  return [...reads.map((path) => ({ method: 'GET', path })), { method: 'POST', path: '/cdn/advanced/v2/query', body: JSON.stringify({ query }) }];
}

/**
 * Starts the built server in memory, asks it a health check and the calls of firstCalls (so the
 * request path is compiled too), then stops it: the launcher writes the code cache of everything
 * compiled by then as it exits.
 */
async function writeCodeCache(): Promise<void> {
  const server = await startBuilt(['--memory'], {
    EDGEPLANE_WRITE_CODE_CACHE: '1',
    EDGEPLANE_API_KEY: 'build-code-cache',
    EDGEPLANE_ADMIN_TOKEN: 'build-code-cache-operator',
  });
  const status = await get(`${server.url}/_edgeplane/health`);
  if (status !== 200) throw new Error(`the built server answered its health check with ${status}`);
  for (const call of firstCalls()) {
    const answered = await send(call.method, `${server.url}${call.path}`, { authorization: 'APIKey build-code-cache' }, call.body);
    if (answered >= 500) throw new Error(`the built server answered ${call.method} ${call.path} with ${answered}`);
  }
  if ((await server.stop()) !== 0) throw new Error('the built server did not stop cleanly');
  const cache = path.join(dist, 'server.cjs.v8-cache');
  // V8 refuses a cache made under other flags: the launcher sets one (the heap's growth) before it compiles.
  const run = spawnSync(process.execPath, [path.join(dist, 'edgeplane.mjs'), '--version'], {
    env: builtEnv({ EDGEPLANE_REPORT_CODE_CACHE: '1' }),
    encoding: 'utf8',
  });
  if (!run.stderr.includes('code cache accepted')) throw new Error(`the launcher does not accept the code cache just made: ${run.stderr.trim()}`);
  console.log(`${path.relative(root, cache).padEnd(28)} ${(fs.statSync(cache).size / 1024).toFixed(0).padStart(6)} KiB, accepted`);
  // The schema code's modules, cached in the same exit (src/platform/schema-code.ts).
  const { SCHEMA_CODE_FILE, SCHEMA_CODE_CACHE_SUFFIX } = await import('../src/platform/schema-code.js');
  const packCache = path.join(dist, `${SCHEMA_CODE_FILE}${SCHEMA_CODE_CACHE_SUFFIX}`);
  if (!fs.existsSync(packCache)) throw new Error(`the built server did not write ${path.relative(root, packCache)}`);
  console.log(`${path.relative(root, packCache).padEnd(28)} ${(fs.statSync(packCache).size / 1024).toFixed(0).padStart(6)} KiB`);
}

/**
 * Large WAAP ingestion bodies are parsed in a thread running dist/waap-ingest-worker.cjs, large zone
 * files read in one running dist/dns-zonefile-worker.cjs, and large JSON bodies checked in one running
 * dist/json-body-worker.cjs, CDN rules matched in one running dist/cdn-match-worker.cjs, and network-mapping
 * imports read in one running dist/dns-mappings-worker.cjs: one of each (ingested lines refused for missing
 * fields, so nothing needs a domain; a zone file of 5,000 records; a 100 KB rule template, then matched;
 * a mapping of 500 entries), so a bundle whose thread cannot start
 * or load what it needs fails the build, not a user.
 */
// Functions, not constants: the build runs checkWorkerThreads above, before the module's constants are set.

/** An object lacking its one required member. */
function bodyCheck(): BodyCheck {
  return {
    key: 'build-check',
    schema: JSON.stringify({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } }),
    body: '{"other":1}',
  };
}

/** A day of hourly points whose items are a component of the catalogue. */
function reportCall(): ReportCall {
  return {
    key: 'build-check',
    schema: JSON.stringify({ type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/ClientStats' } } } }),
    seed: 'build-check',
    now: 0,
    known: {},
    series: { from: 0, to: 86_400_000, stepMs: 3_600_000 },
  };
}

/** What the thread running `bundle` answers to `message`. */
async function askThread<R>(bundle: string, message: Record<string, unknown>): Promise<R> {
  const pool = new WorkerPool(() => ({ source: bundle, eval: false, workerData: null }), 1);
  try {
    return await pool.call<R>(message, { timeoutMs: 30_000 });
  } finally {
    await pool.close();
  }
}

async function checkWorkerThreads(): Promise<void> {
  const server = await startBuilt(['--memory'], { EDGEPLANE_API_KEY: 'build-check-key', EDGEPLANE_ADMIN_TOKEN: 'build-check-operator' });
  try {
    const lines = 10_000;
    const ingested = await post(
      `${server.url}/_edgeplane/waap/events`,
      { authorization: 'APIKey build-check-operator' },
      'application/x-ndjson',
      '{"domain_id":1}\n'.repeat(lines),
    );
    const report = ingested.status === 200 ? (JSON.parse(ingested.text) as { rejected: number; errors: { detail: string }[] }) : undefined;
    if (!report || report.rejected !== lines || !/required/.test(report.errors[0]?.detail ?? ''))
      throw new Error(`the built server's ingestion thread answered ${ingested.status} ${ingested.text.slice(0, 300)}`);
    console.log('dist/waap-ingest-worker.cjs   parses an ingestion in its thread');

    const client = { authorization: 'APIKey build-check-key' };
    const zone = await post(`${server.url}/dns/v2/zones`, client, 'application/json', JSON.stringify({ name: 'build-check.example' }));
    if (zone.status !== 200) throw new Error(`the built server answered a zone create with ${zone.status} ${zone.text.slice(0, 300)}`);
    const records = Array.from({ length: 5_000 }, (_, i) => `host-${i} IN A 192.0.2.${i % 250}`).join('\n');
    const imported = await post(`${server.url}/dns/v2/zones/build-check.example/import`, client, 'text/plain', `$TTL 300\n${records}\n`);
    if (imported.status !== 200 || (JSON.parse(imported.text) as { imported?: { rrsets?: number } }).imported?.rrsets !== 5_000)
      throw new Error(`the built server's zone-file thread answered ${imported.status} ${imported.text.slice(0, 300)}`);
    console.log('dist/dns-zonefile-worker.cjs  reads a zone file in its thread');

    // A template body of 100 KB, most of it a member the route does not declare: created, without it.
    const template = JSON.stringify({ name: 'build-check', rule: '/build-check', ruleType: 0, padding: 'p'.repeat(100_000) });
    const made = await post(`${server.url}/cdn/resources/rule_templates`, client, 'application/json', template);
    if (made.status !== 201 || 'padding' in (JSON.parse(made.text) as object))
      throw new Error(`the built server's JSON body thread answered ${made.status} ${made.text.slice(0, 300)}`);
    console.log('dist/json-body-worker.cjs     checks a large JSON body in its thread');

    // Bodies of many items are validated in these threads; the server validates on its main thread when
    // one cannot answer, so each bundle is asked directly: a thread that cannot load would go unseen.
    for (const [bundle, what] of [
      ['json-body-worker.cjs', 'validates an API body in its thread'],
      ['engine-worker.cjs', 'validates an engine body in its thread'],
    ]) {
      const fields = await askThread<FieldError[]>(path.join(dist, bundle), { check: bodyCheck() });
      if (fields.length !== 1 || fields[0].path.join('.') !== 'name')
        throw new Error(`dist/${bundle} answered a body check with ${JSON.stringify(fields).slice(0, 300)}`);
      console.log(`dist/${bundle.padEnd(26)} ${what}`);
    }
    // A report whose schema references a component of the catalogue: the thread reads its own.
    const generated = await askThread<{ data?: unknown[] }>(path.join(dist, 'engine-worker.cjs'), { report: reportCall() });
    if (!Array.isArray(generated.data) || generated.data.length === 0)
      throw new Error(`dist/engine-worker.cjs made the report ${JSON.stringify(generated).slice(0, 300)}`);
    console.log('dist/engine-worker.cjs          makes a report in its thread');

    const { client: clientId } = JSON.parse(made.text) as { client: number };
    const operator = { authorization: 'APIKey build-check-operator' };
    const matched = await post(
      `${server.url}/_edgeplane/cdn/rule-templates/match`,
      operator,
      'application/json',
      JSON.stringify({ client_id: clientId, uri: '/build-check' }),
    );
    if (matched.status !== 200 || (JSON.parse(matched.text) as { template: { name?: string } | null }).template?.name !== 'build-check')
      throw new Error(`the built server's CDN rule-matching thread answered ${matched.status} ${matched.text.slice(0, 300)}`);
    console.log('dist/cdn-match-worker.cjs     matches CDN rules in its thread');

    const cidrs = Array.from({ length: 500 }, (_, i) => `  - tags: [t${i}]\n    cidr4: [10.0.${i % 250}.0/24]`).join('\n');
    const mappings = await post(`${server.url}/dns/v2/network-mappings/import`, client, 'text/yaml', `name: build-check\nmapping:\n${cidrs}\n`);
    if (mappings.status !== 200) throw new Error(`the built server's network-mapping thread answered ${mappings.status} ${mappings.text.slice(0, 300)}`);
    console.log('dist/dns-mappings-worker.cjs  reads a network-mapping import in its thread');
  } finally {
    await server.stop();
  }
}

/**
 * The WAAP request log reads in threads running dist/waap-query-worker.cjs, which only a data dir (not
 * --memory) uses: one query there, so a bundle whose thread cannot start fails the build, not a user.
 */
async function checkQueryThreads(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-build-'));
  try {
    const server = await startBuilt(['--data-dir', dataDir, '--query-threads', '1'], {
      EDGEPLANE_API_KEY: 'build-check-key',
      EDGEPLANE_ADMIN_TOKEN: 'build-check-operator',
    });
    const start = new Date(Date.now() - 86_400_000).toISOString();
    const status = await get(`${server.url}/waap/v1/analytics/requests?start=${start}`, { authorization: 'APIKey build-check-key' });
    await server.stop();
    if (status !== 200) throw new Error(`the built server answered a WAAP list through its query thread with ${status}`);
    console.log('dist/waap-query-worker.cjs    answers in a query thread');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
