// bench/held-rows: what the server's requests wait for while another PostgreSQL session holds rows a
// request writes, against the same server with no row held, in the same run.
//   npm run build && npx tsx bench/held-rows/run.ts [--clients 20] [--seconds 2] [--rounds 3] [--compare <entry>]
//       [--database-url postgres://postgres@127.0.0.1:5432/postgres]
//
// A fresh server on a PostgreSQL schema of its own, warmed up for a second. `--clients` clients call `GET
// /cloud/v1/projects` back to back for `--seconds`, each call with a deadline of 1.5 s, twice: with no row held (the baseline), then
// with every API token's row held by another session in an open transaction (`select ... for update`, as
// a psql session left open would), the server's clock moved on a minute first so that the calls stamp
// their token's last use again (an update outside any transaction, which waits for the row). Printed:
// calls answered, calls past the deadline, p50 / p99 / max, and the held run's answered calls over the
// baseline's. `--compare` runs another build the same way in each round.
import pg from 'pg';
import { percentile } from '../noisy/lib.js';
import { benchEntry, median, startEdgeplane, type Child } from '../lib/servers.js';
import { option } from '../lib/options.js';

const clients = Number(option('clients', '20'));
const seconds = Number(option('seconds', '2'));
const rounds = Number(option('rounds', '3'));
const compare = option('compare', '');
const databaseUrl = option('database-url', 'postgres://postgres@127.0.0.1:5432/postgres');
const apiKey = 'bench-held-rows-token-0123456789';
const operator = 'bench-held-rows-operator-0123456789';
const deadlineMs = 1_500;

interface Calls {
  answered: number;
  late: number;
  p50: number;
  p99: number;
  max: number;
}

async function calls(server: Child, forSeconds = seconds): Promise<Calls> {
  const times: number[] = [];
  let late = 0;
  const stopAt = performance.now() + forSeconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < stopAt) {
        const started = performance.now();
        try {
          const answer = await fetch(`${server.url}/cloud/v1/projects`, {
            headers: { authorization: `APIKey ${apiKey}` },
            signal: AbortSignal.timeout(deadlineMs),
          });
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

async function measure(entry: string, round: number, port: number): Promise<{ free: Calls; held: Calls }> {
  const schema = `held_rows_bench_${process.pid}_${round}_${port}`;
  const server = await startEdgeplane(
    port,
    {
      EDGEPLANE_API_KEY: apiKey,
      EDGEPLANE_ADMIN_TOKEN: operator,
      EDGEPLANE_MEMORY: 'false',
      EDGEPLANE_DATABASE_URL: databaseUrl,
      EDGEPLANE_DATABASE_SCHEMA: schema,
    },
    entry,
  );
  const holder = new pg.Client({ connectionString: databaseUrl, options: `-c search_path="${schema}"` });
  await holder.connect();
  try {
    await calls(server, 1); // warm-up: the code compiled, the statements prepared
    const free = await calls(server);
    await holder.query('begin');
    await holder.query('select id from api_tokens for update');
    const moved = await fetch(`${server.url}/_edgeplane/clock/advance`, {
      method: 'POST',
      headers: { authorization: `APIKey ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 61 }),
    });
    if (moved.status !== 200) throw new Error(`clock advance: ${moved.status}`);
    const held = await calls(server);
    await holder.query('rollback');
    return { free, held };
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
const builds = [{ name: 'edgeplane', entry: benchEntry(), port: 18701 }, ...(compare ? [{ name: 'compared build', entry: compare, port: 18702 }] : [])];
const ratios = new Map<string, number[]>(builds.map((b) => [b.name, []]));
const lates = new Map<string, number[]>(builds.map((b) => [b.name, []]));
console.log(`${clients} clients, ${seconds} s each way, ${rounds} rounds; GET /cloud/v1/projects`);
for (let round = 1; round <= rounds; round += 1) {
  for (const build of round % 2 ? builds : [...builds].reverse()) {
    const { free, held } = await measure(build.entry, round, build.port);
    console.log(`round ${round} ${build.name}: no row held: ${line(free)}`);
    console.log(`round ${round} ${build.name}: token rows held: ${line(held)}; answered ${(held.answered / free.answered).toFixed(2)} of the baseline`);
    ratios.get(build.name)!.push(held.answered / free.answered);
    lates.get(build.name)!.push(held.late);
  }
}
for (const build of builds)
  console.log(
    `${build.name}: calls answered with the rows held, median ${median(ratios.get(build.name)!).toFixed(2)} of the baseline; past the deadline ${lates.get(build.name)!.join(', ')}`,
  );
