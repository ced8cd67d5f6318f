// Property-based fuzzing of every implemented operation, generated from the app's own OpenAPI document.
// Invariants: never a 5xx, never a crash, every 4xx in the product's documented envelope, a request
// that is broken for certain is refused, a refused write stores nothing, and every operation accepts
// valid requests. EDGEPLANE_FUZZ_SCALE multiplies the 100,000-request CI budget for longer runs.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestApp } from '../support/app.js';
import { CLIENT_ERROR_STATUSES, envelopeProblem } from './support/envelopes.js';
import { ownEverything, type Owned } from './support/fixture.js';
import { readCatalogue } from '../../src/platform/catalogue/index.js';
import { operationKey } from '../../src/platform/http.js';
import { engineOperationsOf, type FuzzRequest, invalidRequest, type Operation, operationsOf, validRequest } from './support/operations.js';

const SCALE = Number(process.env.EDGEPLANE_FUZZ_SCALE || 1);
const BUDGET = Math.round(100_000 * SCALE);
const SEED = Number(process.env.EDGEPLANE_FUZZ_SEED || 20261122);

// Operations left out entirely, and why.
const SKIPPED: Record<string, string> = {
  'control.state.reset': 'wipes every client, token and object the fuzzer works with',
  'control.state.import': 'replaces all data, tokens included',
  'control.faults.create': 'a valid fault injects 5xx answers on purpose',
};
// Operations whose valid requests do heavy work by design (generate millions of rows): their numeric
// maxima are lowered to 50 for generation, so the CI budget goes to breadth, not to bulk inserts.
const CLAMPED: Record<string, string> = {
  'control.waap.events.generate': 'valid counts generate up to 20 million events',
  'control.cdnAccessRecords.generate': 'valid counts generate up to millions of records',
  'control.security.eventLogs.generate': 'valid counts generate many event logs',
};

// Operations whose cost grows with everything stored: the whole state as one JSON document, and the
// info page (row counts of every table). A few dozen to a few hundred runs check them; the rest of their
// share of the budget goes to the other operations, so the run still sends its full budget of requests.
const RUN_CAP: Record<string, number> = {
  'control.state.export': 40,
  'control.info': 200,
};

function clampNumbers(schema: any): any {
  if (!schema || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map(clampNumbers);
  const out: any = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, clampNumbers(v)]));
  if ((out.type === 'integer' || out.type === 'number') && (out.maximum === undefined || out.maximum > 50)) out.maximum = Math.max(50, out.minimum ?? 0);
  return out;
}
// Path parameters whose generated values could hit the fuzzer's own credentials: only fixtures are used.
const FIXTURE_ONLY = new Set(['tokenId', 'userId']);
// Operations with cross-field or value rules a JSON schema does not express, so a schema-valid random
// request is usually refused with 422 (their own tests cover the accepted forms).
const SERVICE_RULES: Record<string, string> = {
  'iam.tokens.v2.create': 'the role id must name an existing group (1, 2, 5, 3009, 3022) matching the role name',
  'iam.tokens.v1.create': 'the role id must name an existing group (1, 2, 5, 3009, 3022) matching the role name',
  'cdn.ruleTemplates.replace': 'CDN option values (CORS domains, country codes, durations, edge_app/fastedge) are checked by the service',
  'cdn.ruleTemplates.update': 'CDN option values (CORS domains, country codes, durations, edge_app/fastedge) are checked by the service',
  'cdn.ruleTemplates.create': 'CDN option values (CORS domains, country codes, durations, edge_app/fastedge) are checked by the service',
  'waap.requestEvents.list': 'the time window (end after start, within retention) and IP/CIDR filters are checked by the service',
  'waap.analytics.stats': 'the time window (end after start, within retention) and IP/CIDR filters are checked by the service',
  'waap.analytics.traffic': 'the time window (end not before start) is checked by the service',
  'control.waap.events.exportCsv': 'the time window (end after start, at most the retention period) is checked by the service',
  'control.waap.events.ingest': 'takes NDJSON (application/x-ndjson), which the JSON generator does not produce',
  'dns.zones.create': 'zone names must be domains of two or more labels',
  'dns.networkMappings.import': 'takes YAML documents as text, which the JSON generator does not produce',
  'catalogue.create-target': 'its config must be the form that storage_type names, a pairing the generator does not follow',
  'catalogue.storeBinary': 'takes a binary body (application/octet-stream), which the JSON generator does not produce',
  'catalogue.create_protected_network_api_v3_protected_networks_post': 'takes multipart/form-data, which the JSON generator does not produce',
  'catalogue.post_api_videos_video_id_subtitles': 'its body is an allOf of three schemas, which the generator does not merge',
  'cdn.originGroups.create': 'origins must be host names or public addresses, checked by the service',
  'cdn.resources.create': 'a resource needs a valid, unused cname and an origin the service accepts',
  'cdn.sslCertificates.create': 'a certificate is real PEM whose key matches, parsed by the service',
  'cdn.caCertificates.create': 'a CA certificate is real PEM, parsed by the service',
};
// Defects found by this fuzzer in code owned by other products, recorded in docs/reliability.md with a
// regression test below (it.fails until the owner fixes them). Their operations still run every other
// invariant; only the named one is reported instead of failing the run.
const KNOWN_DEFECTS: Record<string, { invariant: RegExp; what: string }> = {};
const knownHits: string[] = [];
// Mutations that make a request unacceptable whatever the rest of it holds.
const SURELY_INVALID = [/^not json$/, /^trailing garbage$/, /^over the body limit$/, /^missing /, /^authorization /];

interface Stats {
  requests: number;
  byStatus: Record<string, number>;
  validAccepted: number;
  valid: number;
  invalidRefused: number;
  invalid: number;
  storageChecks: number;
  ms?: number;
  injectMs: number;
  /** A few valid requests that were refused (service rules a schema cannot say), for the report. */
  validRefusals: string[];
}
const stats = new Map<string, Stats>();
const failures: string[] = [];

/**
 * While the fuzzer runs, the health endpoint is asked every 25 ms, the way a load balancer's probe
 * would, and the event loop's delay is watched: a request that holds the loop (a backtracking pattern, a
 * query scanning on the main thread, a decompression) delays the next tick.
 */
const HEALTH_BUDGET_MS = 100;
const healthTimes: number[] = [];
// A probe waits for the event loop; a block that starts before a probe is due also delays the probe's own
// timer, so the loop's delay is measured too (libuv's timer, every 10 ms).
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
let slowestHealth = { ms: 0, during: '' };
let lastRequest = '';
/** A request as sent, with its description. */
interface Sent {
  request: FuzzRequest;
  description: string;
}
// The requests served since the last tick (and the one in flight), as time windows. The fuzzer sends one
// request at a time and runs its own code (fast-check building the next values) only between them.
let inFlightRequest: (Sent & { start: number }) | undefined;
let servedSinceTick: (Sent & { start: number; end: number })[] = [];
/** The slowest requests of the run (inject time), for the report. */
const slowest: { ms: number; request: string }[] = [];
let probe: NodeJS.Timeout | undefined;
/**
 * Late ticks are only suspects: in this process the server shares its heap and CPU with fast-check (a heap
 * of gigabytes that no server has, collected in pauses that land inside request windows) and its core with
 * the other test files. The request that overlapped a late tick most is kept, and at the end each is sent
 * again, alone: a block is a request that still holds the loop past the budget then.
 */
const suspects = new Map<string, Sent & { lateMs: number; cpuMs: number }>();
const MAX_SUSPECTS = 200;
const starved: { ms: number; cpuMs: number }[] = [];
let confirmed: { ms: number; lateMs: number; during: string }[] = [];

/**
 * The suspects that hold the loop past the budget when sent alone: the longest the event loop waited
 * while each was served (the least of three runs). A request that waits on I/O or yields between
 * pieces of its work does not count, however long it takes in all.
 */
async function confirmedBlocks(): Promise<{ ms: number; lateMs: number; during: string }[]> {
  const blocks: { ms: number; lateMs: number; during: string }[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  for (const suspect of suspects.values()) {
    let least = Infinity;
    for (let run = 0; run < 3 && least > HEALTH_BUDGET_MS; run += 1) {
      const { request } = suspect;
      delay.reset();
      delay.enable();
      // The histogram records nothing until its timer has ticked once: without this wait a request that
      // blocks at once goes unseen.
      await new Promise((resolve) => setTimeout(resolve, 2));
      await t.app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload });
      await new Promise((resolve) => setTimeout(resolve, 2));
      delay.disable();
      least = Math.min(least, delay.max / 1e6);
    }
    if (least > HEALTH_BUDGET_MS) blocks.push({ ms: Math.round(least), lateMs: suspect.lateMs, during: suspect.description });
  }
  return blocks;
}

function startHealthProbe(): void {
  loopDelay.enable();
  let inFlight = false;
  let tick = performance.now();
  let cpu = process.cpuUsage();
  probe = setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const late = now - tick - 25;
    if (late > HEALTH_BUDGET_MS) {
      const cpuMs = (used.user + used.system) / 1000;
      const due = tick + 25;
      const windows = inFlightRequest ? [...servedSinceTick, { ...inFlightRequest, end: now }] : servedSinceTick;
      const overlap = (w: { start: number; end: number }) => Math.min(w.end, now) - Math.max(w.start, due);
      const longest = windows.reduce<(typeof windows)[number] | undefined>((a, b) => (!a || overlap(b) > overlap(a) ? b : a), undefined);
      if (cpuMs > HEALTH_BUDGET_MS && longest && overlap(longest) > 0) {
        if (!suspects.has(longest.description) && suspects.size < MAX_SUSPECTS)
          suspects.set(longest.description, { request: longest.request, description: longest.description, lateMs: Math.round(late), cpuMs: Math.round(cpuMs) });
      } else if (starved.length < 20) starved.push({ ms: Math.round(late), cpuMs: Math.round(cpuMs) });
    }
    tick = now;
    cpu = process.cpuUsage();
    servedSinceTick = [];
    if (inFlight) return;
    inFlight = true;
    const sent = performance.now();
    const during = lastRequest;
    void t.app.inject({ method: 'GET', url: '/_edgeplane/health' }).then(() => {
      const ms = performance.now() - sent;
      healthTimes.push(ms);
      if (ms > slowestHealth.ms) slowestHealth = { ms, during };
      inFlight = false;
    });
  }, 25);
}
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

let t: TestApp;
let owned: Owned;
let operations: Operation[];
let resellerAuth: string;
let protectedIds: Record<string, unknown[]>;
const fixtureProblems: string[] = [];
const publicOps = new Set<string>();

beforeAll(async () => {
  t = await createTestApp();
  const account = await t.account({ reseller: true });
  owned = await ownEverything(t, account, fixtureProblems);
  resellerAuth = `APIKey ${await t.resellerToken(account.clientId, account.userId)}`;
  const doc = (await t.request('GET', '/openapi.json')).json();
  // The modelled routes from the app's own document; the catalogue engine's from the catalogue.
  const engine = engineOperationsOf(readCatalogue(), t.catalogue.served());
  // Deletes last, so earlier operations still find the fixture objects.
  operations = [...operationsOf(doc), ...engine].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  // Before the warm-up too: one unclamped valid sample there generated millions of events, and the state
  // export after it held gigabytes.
  for (const op of operations) if (CLAMPED[op.operationId]) op.body = clampNumbers(op.body);
  protectedIds = owned.ids;
  // Public operations answer without a token; the authorization mutations are not refusals there.
  for (const op of operations) {
    const url = op.path.replace(/\{(\w+)\}/g, (_m, name) => String(owned.ids[name]?.[0] ?? 1));
    if ((await t.app.inject({ method: op.method as 'GET', url })).statusCode !== 401) publicOps.add(op.operationId);
  }
}, 60_000);

afterAll(async () => {
  clearInterval(probe);
  loopDelay.disable();
  const all = [...stats.values()];
  const total = all.reduce((n, s) => n + s.requests, 0);
  const summary = {
    engine: engineName,
    seed: SEED,
    scale: SCALE,
    requests: total,
    operations: stats.size,
    publicOperations: [...publicOps],
    skipped: SKIPPED,
    clamped: CLAMPED,
    runCap: RUN_CAP,
    serviceRules: SERVICE_RULES,
    fixtureProblems,
    byStatus: all.reduce<Record<string, number>>((acc, s) => {
      for (const [k, v] of Object.entries(s.byStatus)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
    storageChecks: all.reduce((n, s) => n + s.storageChecks, 0),
    perOperation: Object.fromEntries(stats),
    failures: failures.slice(0, 50),
    health: {
      probes: healthTimes.length,
      p50Ms: percentile(healthTimes, 50),
      p99Ms: percentile(healthTimes, 99),
      maxMs: slowestHealth.ms,
      slowestDuring: slowestHealth.during,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      eventLoopDelayMaxMs: loopDelay.max / 1e6,
      slowestRequests: slowest,
      lateTickSuspects: suspects.size,
      blocks: confirmed.slice(0, 20),
      blockCount: confirmed.length,
      starvedTicks: starved,
    },
    knownDefects: Object.fromEntries(Object.entries(KNOWN_DEFECTS).map(([k, v]) => [k, v.what])),
    knownDefectHits: knownHits,
  };
  fs.mkdirSync('.ci/out/reliability', { recursive: true });
  fs.writeFileSync(`.ci/out/reliability/fuzz-${engineName}.json`, JSON.stringify(summary, null, 2));
  await t?.close();
});

/** The fixture's ids for the path parameters of an operation. */
function knownFor(op: Operation): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(protectedIds).filter(([name]) => op.pathParams.some((p) => p.name === name)));
}

/** The operation with its FIXTURE_ONLY path parameters limited to the fixture's ids. */
function fixtureSafe(op: Operation): Operation {
  const known = knownFor(op);
  return { ...op, pathParams: op.pathParams.map((p) => (FIXTURE_ONLY.has(p.name) ? { ...p, schema: { enum: known[p.name] ?? [0] } } : p)) };
}

function authFor(op: Operation): string {
  if (op.path.startsWith('/_edgeplane')) return t.operator.authorization;
  if (op.operationId === 'edge.networks.adminList') return resellerAuth;
  return owned.account.headers.authorization;
}

let countQuery: string | undefined;

/** Row counts of every table (the tables /_edgeplane/info counts), in one statement. */
async function tableCounts(): Promise<Record<string, number>> {
  // Background work started by earlier clock moves (retention) finishes first; it only ever deletes.
  await t.clock.settled();
  if (!countQuery) {
    const tables = Object.keys((await t.request('GET', '/_edgeplane/info', { headers: t.operator })).json().counts.tables);
    countQuery = `SELECT ${tables.map((name) => `(SELECT count(*) FROM ${name}) AS ${name}`).join(', ')}`;
  }
  const { rows } = await sql.raw<Record<string, number | string>>(countQuery).execute(t.db.kysely);
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

function describeRequest(r: FuzzRequest): string {
  const body = r.payload === undefined ? '' : ` body=${String(r.payload).slice(0, 200)}`;
  return `${r.method} ${r.url.slice(0, 200)} [${r.mutation || 'valid'}]${body}`;
}

/** The input-refusal statuses (400, 422) the reference declares for each operation, where it declares any. */
const DECLARED_INPUT_STATUSES = new Map(
  readCatalogue()
    .operations.map(
      (op) =>
        [
          operationKey(op.method, op.path),
          Object.keys(op.responses)
            .map(Number)
            .filter((status) => status === 400 || status === 422),
        ] as const,
    )
    .filter(([, statuses]) => statuses.length > 0),
);

/**
 * Whether the router can match the URL to an operation at all: a path that does not percent-decode or has
 * a segment past the router's limit is refused (400) before any operation, so no operation's statuses apply.
 */
const MAX_PATH_SEGMENT = 500; // the router's maxParamLength (src/app.ts)
function routable(url: string): boolean {
  const path = url.split('?')[0];
  try {
    return path.split('/').every((segment) => segment.length <= MAX_PATH_SEGMENT && decodeURIComponent(segment) !== undefined);
  } catch {
    return false;
  }
}

function surelyInvalid(op: Operation, mutation: string): boolean {
  if (!SURELY_INVALID.some((re) => re.test(mutation))) return false;
  if (mutation.startsWith('authorization')) return !publicOps.has(op.operationId);
  // A required field with a default is filled in by validation, so leaving it out is fine.
  if (mutation.startsWith('missing')) return op.bodyRequired && op.body?.properties?.[mutation.slice(8)]?.default === undefined;
  return true;
}

async function send(op: Operation, s: Stats, request: FuzzRequest, valid: boolean, checkStorage: boolean): Promise<void> {
  const before = checkStorage ? await tableCounts() : {};
  lastRequest = `${op.operationId}: ${describeRequest(request).slice(0, 200)}`;
  const sent = performance.now();
  inFlightRequest = { request, description: lastRequest, start: sent };
  const res = await t.app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload }).finally(() => {
    inFlightRequest = undefined;
  });
  const took = performance.now() - sent;
  servedSinceTick.push({ request, description: lastRequest, start: sent, end: sent + took });
  s.injectMs += took;
  if (slowest.length < 10 || took > slowest[slowest.length - 1].ms) {
    slowest.push({ ms: Math.round(took), request: lastRequest });
    slowest.sort((a, b) => b.ms - a.ms).splice(10);
  }
  s.requests += 1;
  s.byStatus[res.statusCode] = (s.byStatus[res.statusCode] ?? 0) + 1;
  const where = `${op.operationId}: ${describeRequest(request)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  const fail = (why: string) => {
    const known = KNOWN_DEFECTS[op.operationId];
    if (known?.invariant.test(why)) {
      if (knownHits.length < 20) knownHits.push(`${why}: ${where}`.slice(0, 600));
      return;
    }
    failures.push(`${why}: ${where}`);
    throw new Error(`${why}: ${where}`);
  };
  if (res.statusCode >= 500) fail('server error');
  if (res.statusCode >= 400) {
    if (!CLIENT_ERROR_STATUSES.has(res.statusCode)) fail('undocumented status');
    if (!String(res.headers['content-type']).includes('application/json')) fail('error body is not JSON');
    const problem = envelopeProblem(request.url, res.statusCode, JSON.parse(res.body), res.headers['x-request-id'] as string | undefined);
    if (problem) fail(`envelope: ${problem}`);
    // Client code catches the class of the status the reference declares (BadRequestError for a 400).
    const declared = DECLARED_INPUT_STATUSES.get(operationKey(op.method, op.path));
    if ((res.statusCode === 400 || res.statusCode === 422) && declared && !declared.includes(res.statusCode) && routable(request.url)) {
      fail(`input refused with ${res.statusCode} where the reference declares ${declared.join(' or ')}`);
    }
  }
  if (valid) {
    s.valid += 1;
    if (![400, 413, 415, 422].includes(res.statusCode)) s.validAccepted += 1;
    else if (s.validRefusals.length < 3) s.validRefusals.push(`${describeRequest(request).slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
  } else {
    s.invalid += 1;
    if (res.statusCode >= 400) s.invalidRefused += 1;
    else if (surelyInvalid(op, request.mutation)) fail('accepted a broken request');
  }
  if (checkStorage && res.statusCode >= 400) {
    s.storageChecks += 1;
    const after = await tableCounts();
    const grown = Object.keys(after).filter((table) => after[table] > (before[table] ?? 0));
    if (grown.length > 0) fail(`refused request stored rows in ${grown.map((g) => `${g} ${before[g]} -> ${after[g]}`).join(', ')}`);
  }
}

describe(`fuzzing every operation (${engineName}, ${BUDGET} requests, seed ${SEED})`, () => {
  it('reads the operations from /openapi.json', () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(fixtureProblems).toEqual([]);
  });

  it('answers every generated request without a 5xx, in the documented envelope', async () => {
    const fuzzed = operations.filter((op) => !SKIPPED[op.operationId]);
    // A route's body validator is compiled on its first request and its serializer on its first success
    // (tens to hundreds of milliseconds for the large schemas; bench/first-call measures it). Every
    // operation answers once first (up to ten valid samples, until one succeeds), so the health probe
    // below measures what requests do, not what first requests compile.
    // Deletes are left out: they would remove the fixture objects (and tokens) the other operations use.
    for (const op of fuzzed.filter((o) => o.method !== 'DELETE')) {
      for (const warm of fc.sample(validRequest(fixtureSafe(op), knownFor(op), authFor(op)), { numRuns: 10, seed: SEED })) {
        const res = await t.app.inject({ method: warm.method as 'GET', url: warm.url, headers: warm.headers, payload: warm.payload });
        if (res.statusCode < 300) break;
      }
    }
    startHealthProbe();
    const capped = fuzzed.filter((op) => RUN_CAP[op.operationId]);
    const perOperation = Math.ceil((BUDGET - capped.reduce((n, op) => n + RUN_CAP[op.operationId], 0)) / (fuzzed.length - capped.length));
    let checks = 0;
    for (const op of fuzzed) {
      const s: Stats = {
        requests: 0,
        byStatus: {},
        validAccepted: 0,
        valid: 0,
        invalidRefused: 0,
        invalid: 0,
        storageChecks: 0,
        validRefusals: [],
        injectMs: 0,
      };
      stats.set(op.operationId, s);
      const auth = authFor(op);
      const known = knownFor(op);
      const started = performance.now();
      const runs = Math.min(perOperation, RUN_CAP[op.operationId] ?? Infinity);
      const validRuns = Math.floor(runs / 2);
      const invalidRuns = runs - validRuns;
      const safeOp = fixtureSafe(op);
      const validArb = validRequest(safeOp, known, auth);
      if (validRuns > 0) {
        await fc.assert(
          fc.asyncProperty(validArb, (r) => send(op, s, r, true, false)),
          { numRuns: validRuns, seed: SEED, endOnFailure: true },
        );
      }
      await fc.assert(
        fc.asyncProperty(invalidRequest(safeOp, known, auth), async (r) => {
          checks += 1;
          // Every fourth refused write is checked against the stored-row counts.
          await send(op, s, r, false, op.method !== 'GET' && checks % 4 === 0);
        }),
        { numRuns: invalidRuns, seed: SEED + 1, endOnFailure: true },
      );
      s.ms = Math.round(performance.now() - started);
    }
    const total = [...stats.values()].reduce((n, s) => n + s.requests, 0);
    expect(total).toBeGreaterThanOrEqual(BUDGET);
  }, 1_800_000);

  it(`kept answering health within ${HEALTH_BUDGET_MS} ms, and no request holds the event loop that long`, async () => {
    confirmed = await confirmedBlocks();
    expect(confirmed, 'requests that hold the event loop past the budget when sent alone').toEqual([]);
    // The slowest single answer is reported, not judged: in this process it can wait behind the fuzzer's
    // own work. On PostgreSQL a health check is also a round trip to the database server, which shares the
    // machine's two cores with the test run; its p99 was still 10.9-46 ms in the CI runs of 2026-11-30 and
    // 19.2 ms on 2026-12-01 (161 ms was seen once, with four other test runs on the machine).
    expect(healthTimes.length).toBeGreaterThan(100);
    expect(percentile(healthTimes, 99), `health p99; slowest ${Math.round(slowestHealth.ms)} ms during ${slowestHealth.during}`).toBeLessThan(HEALTH_BUDGET_MS);
  });

  // Regression test: a refused seed had already created the clients listed before the refused part.
  it('control.seed: a refused seed stores nothing', async () => {
    const before = await tableCounts();
    const res = await t.request('POST', '/_edgeplane/seed', {
      headers: t.operator,
      body: {
        clients: [{ ref: 'partial', email: 'partial-seed@example.test', companyName: 'Partial' }],
        requests: [{ method: 'GET', path: '/iam/clients/me', as: 'nobody' }],
      },
    });
    expect(res.statusCode).toBe(422);
    const after = await tableCounts();
    expect(after.clients).toBe(before.clients);
  });

  // Regression test: a clock set past year 9999 made every later clock read a 500 (fixed in the schema).
  it('control.clock.set: an epochMs past year 9999 is refused, the clock keeps working', async () => {
    const res = await t.request('POST', '/_edgeplane/clock/set', { headers: t.operator, body: { epochMs: 1e29 } });
    expect(res.statusCode).toBe(422);
    expect((await t.request('GET', '/_edgeplane/clock', { headers: t.operator })).statusCode).toBe(200);
  });

  it('lets valid requests of every operation through validation', () => {
    // Through validation: answered 2xx, or refused by the object's state (404 for an id the generator made
    // up, 409) rather than by the request's form (400, 413, 415, 422).
    const never = [...stats].filter(([id, s]) => s.valid > 0 && s.validAccepted === 0 && !SERVICE_RULES[id]).map(([id, s]) => `${id}: ${s.validRefusals[0]}`);
    expect(never).toEqual([]);
  });
});
