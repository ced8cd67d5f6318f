// The noisy client of bench/noisy/run.ts, in a process of its own (so reading a 100 MB export or
// gzipping a bomb never delays the victim's timing): it sends the worst request of each product, one
// after another, on one connection, until told to stop, then reports what each kind took.
//
//   started by run.ts with the fixtures in NOISE_FIXTURES and the kinds in NOISE_KINDS (comma-separated)
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { ALL_KINDS, type Fixtures } from './fixtures.js';
import { percentile } from './lib.js';

interface Noise {
  method: string;
  path: string;
  token: string;
  contentType?: string;
  encoding?: string;
  body?: Buffer;
}

const fixtures = JSON.parse(process.env.NOISE_FIXTURES!) as Fixtures;
const DAY = 86_400_000;
const start = () => new Date(Date.now() - 29.5 * DAY).toISOString();
// Globs no block summary can count (not of the form /segment/*): every block is scanned, path by path.
const globs = ['*a*e*', '*/*/*/*', '*i*o*u*', '*.*', '*/api*v*', '*s*t*a*t*i*c*', '*l*o*g*i*n*', '*-*', '*_*', '*%*']
  .map((g) => `&path=${encodeURIComponent(g)}`)
  .join('');

/** The body of ~1 MB (the default body limit is 1 MiB): 90,000 members of an object in a field the route drops. */
const bigJson = Buffer.from(
  JSON.stringify({ name: 'big', rule: '/big', ruleType: 0, padding: Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, i % 10])) }),
);
/** 500,000 levels of nesting in 1 MB (refused past 64 levels). */
const deepJson = Buffer.from(`{"name":"deep","rule":"/deep","ruleType":0,"x":${'['.repeat(500_000)}${']'.repeat(500_000)}}`);
/** Inflates to 300 MiB, past the ingestion limit of 256 MiB. */
const gzipBomb = (kinds: string[]) => (kinds.includes('gzip-bomb') ? gzipSync(Buffer.alloc(300 * 1024 * 1024, 0x20), { level: 9 }) : Buffer.alloc(0));
/** 1,000,000 lines every one of which is refused (a valid JSON object missing required fields): 16 MB inflated. */
const badLines = (kinds: string[]) => (kinds.includes('gzip-lines') ? gzipSync(Buffer.from(`{"domain_id":1}\n`.repeat(1_000_000))) : Buffer.alloc(0));
/** A network-mapping import of about 1 MB (22,000 entries), refused once read: at most 1,000 entries. */
const mappingImport = Buffer.from(
  `name: noisy\nmapping:\n${Array.from({ length: 22_000 }, (_, i) => `  - tags: [t${i}]\n    cidr4: [${i === 21_999 ? '300.0.0.0/8' : `10.${i % 250}.${(i >> 8) % 250}.0/24`}]`).join('\n')}\n`,
);
/** A catalogue-engine report over 17 years, filtered by a 12,000-character value: 200 generated points. */
const longFilter = 'x'.repeat(12_000);
/** A catalogue-engine body of 9,000 array items, each failing every form of a referenced union. */
const wrongItems = Buffer.from(JSON.stringify({ flavor: 'x', servers_count: 1, servers_settings: { interfaces: Array(9_000).fill(1) } }));
/** A security-group PATCH of 9,000 rule changes, each failing every form of the rule union (inline, not referenced). */
const wrongRules = Buffer.from(JSON.stringify({ name: 'noisy', changed_rules: Array(9_000).fill(1) }));
/** A zone file of 30,000 A records (about 900 KB). */
const zoneFile = Buffer.from(`$ORIGIN ${fixtures.zone}.\n$TTL 300\n` + Array.from({ length: 30_000 }, (_, i) => `h${i} IN A 192.0.2.${i % 250}\n`).join(''));

function makeKinds(kinds: string[]): Record<string, () => Noise> {
  const bomb = gzipBomb(kinds);
  const lines = badLines(kinds);
  const { noisy, operator } = fixtures;
  return {
    'waap-list': () => ({ method: 'GET', path: `/waap/v1/analytics/requests?start=${start()}&ordering=-path${globs}`, token: noisy.token }),
    'waap-stats': () => ({ method: 'GET', path: `/waap/v1/analytics/stats/ip?start=${start()}${globs}`, token: noisy.token }),
    'waap-traffic': () => ({ method: 'GET', path: `/waap/v1/analytics/traffic?start=${start()}&resolution=minutely`, token: noisy.token }),
    'cdn-templates': () => ({ method: 'GET', path: '/cdn/resources/rule_templates', token: noisy.token }),
    'cdn-effective': () => ({
      method: 'POST',
      path: '/_edgeplane/cdn/resources/effective-options',
      token: operator,
      contentType: 'application/json',
      body: Buffer.from(JSON.stringify({ client_id: noisy.clientId, resource_id: fixtures.resourceId, uri: `/${'a'.repeat(2000)}` })),
    }),
    'big-json': () => ({ method: 'POST', path: '/cdn/resources/rule_templates', token: noisy.token, contentType: 'application/json', body: bigJson }),
    'deep-json': () => ({ method: 'POST', path: '/cdn/resources/rule_templates', token: noisy.token, contentType: 'application/json', body: deepJson }),
    'gzip-bomb': () => ({
      method: 'POST',
      path: '/_edgeplane/waap/events',
      token: operator,
      contentType: 'application/x-ndjson',
      encoding: 'gzip',
      body: bomb,
    }),
    'gzip-lines': () => ({
      method: 'POST',
      path: '/_edgeplane/waap/events',
      token: operator,
      contentType: 'application/x-ndjson',
      encoding: 'gzip',
      body: lines,
    }),
    'dns-import': () => ({ method: 'POST', path: `/dns/v2/zones/${fixtures.zone}/import`, token: noisy.token, contentType: 'text/plain', body: zoneFile }),
    'dns-mappings': () => ({ method: 'POST', path: '/dns/v2/network-mappings/import', token: noisy.token, contentType: 'text/plain', body: mappingImport }),
    'csv-export': () => ({ method: 'GET', path: `/_edgeplane/waap/requests.csv?client_id=${noisy.clientId}&start=${start()}`, token: operator }),
    'engine-report': () => ({
      method: 'GET',
      path: `/streaming/statistics/views?date_from=2000-01-01T00:00:00Z&date_to=2017-07-05T00:00:00Z&country=${longFilter}`,
      token: noisy.token,
    }),
    'engine-wrong-items': () => ({
      method: 'POST',
      path: '/cloud/v3/gpu/virtual/1/76/check_limits',
      token: noisy.token,
      contentType: 'application/json',
      body: wrongItems,
    }),
    // Refused by validation, before the group is looked for.
    'cloud-wrong-items': () => ({
      method: 'PATCH',
      path: '/cloud/v1/securitygroups/1/76/00000000-0000-4000-8000-000000000000',
      token: noisy.token,
      contentType: 'application/json',
      body: wrongRules,
    }),
  };
}

/** One request, the answer read to its end and dropped; resolves with status and time. */
function send(agent: http.Agent, noise: Noise): Promise<{ status: number; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `APIKey ${noise.token}` };
    if (noise.contentType) headers['content-type'] = noise.contentType;
    if (noise.encoding) headers['content-encoding'] = noise.encoding;
    const req = http.request(`${fixtures.url}${noise.path}`, { method: noise.method, headers, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.on('error', () => resolve({ status: -1, ms: performance.now() - started }));
    });
    // A refused body may close the connection before it is all sent.
    req.on('error', () => resolve({ status: -1, ms: performance.now() - started }));
    req.end(noise.body);
  });
}

async function main(): Promise<void> {
  const names = (process.env.NOISE_KINDS ?? ALL_KINDS.join(',')).split(',');
  const kinds = makeKinds(names);
  for (const name of names) if (!kinds[name]) throw new Error(`unknown noise ${name}; known: ${ALL_KINDS.join(', ')}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const results: Record<string, { ms: number[]; statuses: Record<string, number> }> = {};
  let stopping = false;
  process.on('message', (message) => {
    if (message === 'stop') stopping = true;
  });
  // NOISE_ONCE: one pass over the kinds, then the summary (the warm-up run.ts sends before measuring).
  const once = process.env.NOISE_ONCE === '1';
  process.send!('ready');
  while (!stopping) {
    if (once && Object.keys(results).length === names.length) break;
    for (const name of names) {
      if (stopping) break;
      const { status, ms } = await send(agent, kinds[name]());
      const entry = (results[name] ??= { ms: [], statuses: {} });
      entry.ms.push(ms);
      entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    }
  }
  agent.destroy();
  const summary = Object.fromEntries(
    Object.entries(results).map(([name, r]) => [name, { n: r.ms.length, p50: percentile(r.ms, 50), max: Math.max(...r.ms), statuses: r.statuses }]),
  );
  process.send!({ summary }, () => process.exit(0));
}

await main();
