// bench/held-rows: what the server's requests wait for while another PostgreSQL session holds rows a
// request writes, against the same server with no row held, in the same run.
//   npm run build && npx tsx bench/held-rows/run.ts [--scenario tokens|quota|both] [--clients 20] [--seconds 2] [--rounds 3]
//       [--compare <entry>] [--database-url postgres://postgres@127.0.0.1:5432/postgres]
//
// A fresh server on a PostgreSQL schema of its own, warmed up for a second. Each call has a deadline of
// 1.5 s. Two scenarios, each measured twice per round: with no row held (the baseline), then with the rows
// held by another session in an open transaction (`select ... for update`, as a psql session left open
// would):
// - tokens: `--clients` clients call `GET /cloud/v1/projects` back to back for `--seconds`, with every API
//   token's row held, the server's clock moved on a minute first so that the calls stamp their token's
//   last use again (an update outside any transaction, which waits for the row).
// - quota: one client keeps eight network creates in flight, and another client's four callers create
//   networks back to back for `--seconds`, with the first client's quota row held (its creates wait there
//   at their commit, each holding a pooled connection). What is measured is the second client's creates.
// Printed: calls answered, calls past the deadline, p50 / p99 / max, and the held run's answered calls over
// the baseline's. `--compare` runs another build the same way in each round.
import pg from 'pg';
import { OPERATOR, percentile, seedClients } from '../noisy/lib.js';
import { benchEntry, median, startEdgeplane, type Child } from '../lib/servers.js';
import { option } from '../lib/options.js';

const scenarios = ((s) => (s === 'both' ? ['tokens', 'quota'] : [s]))(option('scenario', 'both')) as Scenario[];
const clients = Number(option('clients', '20'));
const seconds = Number(option('seconds', '2'));
const rounds = Number(option('rounds', '3'));
const compare = option('compare', '');
const databaseUrl = option('database-url', 'postgres://postgres@127.0.0.1:5432/postgres');
const apiKey = 'bench-held-rows-token-0123456789';
const deadlineMs = 1_500;
/** The held client's creates kept in flight in the quota scenario: more than the pool's five connections. */
const heldCreates = 8;
/** The other client's callers in the quota scenario. */
const otherCallers = 4;

type Scenario = 'tokens' | 'quota';

interface Calls {
  answered: number;
  late: number;
  p50: number;
  p99: number;
  max: number;
}

/** Calls `request` from `callers` callers back to back for `forSeconds`, each with the deadline. */
async function calls(callers: number, request: (signal: AbortSignal) => Promise<Response>, forSeconds = seconds): Promise<Calls> {
  const times: number[] = [];
  let late = 0;
  const stopAt = performance.now() + forSeconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < stopAt) {
        const started = performance.now();
        try {
          const answer = await request(AbortSignal.timeout(deadlineMs));
          await answer.arrayBuffer();
          if (answer.status !== 200) throw new Error(`status ${answer.status}`);
          times.push(performance.now() - started);
        } catch (error) {
          if ((error as Error).name !== 'TimeoutError') throw error;
          late += 1;
        }
      }
    }),
  );
  return { answered: times.length, late, p50: percentile(times, 50), p99: percentile(times, 99), max: times.length ? Math.max(...times) : NaN };
}

const operatorCall = (server: Child, path: string, method: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `APIKey ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (answer) => {
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return answer.json() as Promise<any>;
  });

async function tokensHeld(server: Child, holder: pg.Client): Promise<{ free: Calls; held: Calls }> {
  const list = (signal: AbortSignal) => fetch(`${server.url}/cloud/v1/projects`, { headers: { authorization: `APIKey ${apiKey}` }, signal });
  await calls(clients, list, 1); // warm-up: the code compiled, the statements prepared
  const free = await calls(clients, list);
  await holder.query('begin');
  await holder.query('select id from api_tokens for update');
  await operatorCall(server, '/_edgeplane/clock/advance', 'POST', { seconds: 61 });
  const held = await calls(clients, list);
  await holder.query('rollback');
  return { free, held };
}

async function quotaHeld(server: Child, holder: pg.Client): Promise<{ free: Calls; held: Calls }> {
  const seeded = await seedClients(server.url, ['held', 'other']);
  const headersOf = (token: string) => ({ authorization: `APIKey ${token}`, 'content-type': 'application/json' });
  const [held, other] = [seeded.held, seeded.other].map((c) => ({ ...c, headers: headersOf(c.token) }));
  for (const c of [held, other]) await operatorCall(server, `/_edgeplane/cloud/quotas/${c.clientId}`, 'PUT', { network_count_limit: 1_000_000 });
  const place = async (headers: Record<string, string>) => {
    const project = ((await (await fetch(`${server.url}/cloud/v1/projects`, { headers })).json()) as any).results[0].id;
    const region = ((await (await fetch(`${server.url}/cloud/v1/regions`, { headers })).json()) as any).results[0].id;
    return `${server.url}/cloud/v1/networks/${project}/${region}`;
  };
  const [heldUrl, otherUrl] = [await place(held.headers), await place(other.headers)];
  let made = 0;
  const create = (url: string, headers: Record<string, string>, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers, body: JSON.stringify({ name: `net-${(made += 1)}`, create_router: false }), signal });
  const otherCreate = (signal: AbortSignal) => create(otherUrl, other.headers, signal);
  // The held client's creates, kept in flight until `stop`: they wait at its quota row while it is held.
  const heldLoad = () => {
    let stop = false;
    const running = Promise.all(
      Array.from({ length: heldCreates }, async () => {
        while (!stop) await (await create(heldUrl, held.headers)).arrayBuffer();
      }),
    );
    return () => ((stop = true), running);
  };
  await calls(otherCallers, otherCreate, 1); // warm-up; the quota rows exist from here
  let stopHeld = heldLoad();
  const free = await calls(otherCallers, otherCreate);
  await stopHeld();
  await holder.query('begin');
  await holder.query('select client_id from cloud_quotas where client_id = $1 for update', [held.clientId]);
  stopHeld = heldLoad();
  const heldRun = await calls(otherCallers, otherCreate);
  await holder.query('rollback');
  await stopHeld();
  return { free, held: heldRun };
}

async function measure(entry: string, scenario: Scenario, round: number, port: number): Promise<{ free: Calls; held: Calls }> {
  const schema = `held_rows_bench_${process.pid}_${round}_${port}`;
  const server = await startEdgeplane(
    port,
    {
      EDGEPLANE_API_KEY: apiKey,
      EDGEPLANE_ADMIN_TOKEN: OPERATOR,
      EDGEPLANE_MEMORY: 'false',
      EDGEPLANE_DATABASE_URL: databaseUrl,
      EDGEPLANE_DATABASE_SCHEMA: schema,
    },
    entry,
  );
  const holder = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });
  await holder.connect();
  try {
    return await (scenario === 'tokens' ? tokensHeld : quotaHeld)(server, holder);
  } finally {
    await holder.end();
    await server.stop();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
}

const line = (c: Calls) =>
  `${c.answered} answered, ${c.late} past ${deadlineMs} ms, p50 ${c.p50.toFixed(1)} p99 ${c.p99.toFixed(1)} max ${c.max.toFixed(1)} ms`;
const what: Record<Scenario, { calls: string; held: string }> = {
  tokens: { calls: `${clients} clients, GET /cloud/v1/projects`, held: 'token rows held' },
  quota: { calls: `another client's ${otherCallers} callers creating networks beside ${heldCreates} creates of the held client`, held: 'quota row held' },
};
const builds = [{ name: 'edgeplane', entry: benchEntry(), port: 18701 }, ...(compare ? [{ name: 'compared build', entry: compare, port: 18702 }] : [])];
for (const scenario of scenarios) {
  const ratios = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  const lates = new Map<string, number[]>(builds.map((b) => [b.name, []]));
  console.log(`${scenario}: ${what[scenario].calls}; ${seconds} s each way, ${rounds} rounds`);
  for (let round = 1; round <= rounds; round += 1) {
    for (const build of round % 2 ? builds : [...builds].reverse()) {
      const { free, held } = await measure(build.entry, scenario, round, build.port);
      console.log(`round ${round} ${build.name}: no row held: ${line(free)}`);
      console.log(
        `round ${round} ${build.name}: ${what[scenario].held}: ${line(held)}; answered ${(held.answered / free.answered).toFixed(2)} of the baseline`,
      );
      ratios.get(build.name)!.push(held.answered / free.answered);
      lates.get(build.name)!.push(held.late);
    }
  }
  for (const build of builds)
    console.log(
      `${scenario}, ${build.name}: calls answered with the rows held, median ${median(ratios.get(build.name)!).toFixed(2)} of the baseline; past the deadline ${lates.get(build.name)!.join(', ')}`,
    );
}
