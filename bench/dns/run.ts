// bench/dns: DNS queries per second (UDP, loopback) against HTTP GETs per second of the same RRset, on
// the same server, measured alternately in the same run. Prints the ratio, and the server's CPU time per
// answered query and per answered request.
//   npm run build && npx tsx bench/dns/run.ts [--seconds 10] [--rounds 3] [--concurrency 50]
//   npx tsx bench/dns/run.ts --source     (runs the server from src/ with tsx instead of dist/)
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import packet from 'dns-packet';
import { type Child, EDGEPLANE_ENTRY, load, median, root } from '../lib/servers.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seconds = option('seconds', 10);
const rounds = option('rounds', 3);
const concurrency = option('concurrency', 50);
const fromSource = args.includes('--source');
const HTTP_PORT = 18191;
const DNS_PORT = 18192;
const apiKey = 'bench-dns-token-0123456789';
const headers = { authorization: `APIKey ${apiKey}` };
const NAME = 'www.bench.test';

/** CPU time (user + system) of a child process in microseconds, from /proc (Linux). */
function cpuMicros(child: Child): number {
  const fields = readFileSync(`/proc/${child.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function startServer(): Promise<Child> {
  const entry = fromSource ? ['--import', 'tsx', path.join(root, 'src/cli.ts')] : [path.join(root, EDGEPLANE_ENTRY)];
  const child = spawn(process.execPath, [...entry, 'serve', '--port', String(HTTP_PORT), '--dns-port', String(DNS_PORT), '--log-level', 'error'], {
    cwd: root,
    env: { ...process.env, EDGEPLANE_MEMORY: 'true', EDGEPLANE_API_KEY: apiKey },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${HTTP_PORT}`;
  for (const deadline = Date.now() + 30_000; ;) {
    if ((await fetch(`${url}/_edgeplane/health`).catch(() => undefined))?.ok) break;
    if (Date.now() > deadline) throw new Error('the server did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, process: child, stop };
}

async function setUp(url: string): Promise<void> {
  const post = (p: string, body: unknown) =>
    fetch(`${url}${p}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if ((await post('/dns/v2/zones', { name: 'bench.test' })).status !== 200) throw new Error('zone not created');
  const rrset = await post(`/dns/v2/zones/bench.test/${NAME}/A`, { ttl: 300, resource_records: [{ content: ['192.0.2.1'] }, { content: ['192.0.2.2'] }] });
  if (rrset.status !== 200) throw new Error('RRset not created');
}

interface DnsResult {
  perSecond: number;
  answered: number;
  p50: number;
  p99: number;
  failures: number;
}

/** `concurrency` queries in flight over UDP for `duration` seconds, each answered one followed by the next. */
async function loadDns(duration: number): Promise<DnsResult> {
  const latencies: number[] = [];
  let failures = 0;
  const deadline = performance.now() + duration * 1000;
  const query = packet.encode({ id: 1, type: 'query', flags: packet.RECURSION_DESIRED, questions: [{ name: NAME, type: 'A' }] });
  const slot = () =>
    new Promise<void>((resolve) => {
      const socket = dgram.createSocket('udp4');
      let sentAt = 0;
      let timer: NodeJS.Timeout | undefined;
      const send = () => {
        if (performance.now() >= deadline) {
          socket.close();
          return resolve();
        }
        sentAt = performance.now();
        // A lost datagram is counted as a failure and the slot goes on.
        timer = setTimeout(() => {
          failures += 1;
          send();
        }, 1000);
        socket.send(query, DNS_PORT, '127.0.0.1');
      };
      socket.on('message', (answer) => {
        clearTimeout(timer);
        if (answer.readUInt16BE(2) & 0xf) failures += 1;
        else latencies.push(performance.now() - sentAt);
        send();
      });
      socket.bind(0, '127.0.0.1', send);
    });
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, slot));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) / 100;
  return { perSecond: latencies.length / elapsed, answered: latencies.length, p50: at(0.5), p99: at(0.99), failures };
}

const server = await startServer();
const dnsRuns: (DnsResult & { cpu: number })[] = [];
const httpRuns: { perSecond: number; p99: number; cpu: number; bad: number }[] = [];
try {
  await setUp(server.url);
  const itemUrl = `${server.url}/dns/v2/zones/bench.test/${NAME}/A`;
  // Warm-up of both paths (JIT, prepared statements).
  await loadDns(2);
  await load(itemUrl, { seconds: 2, headers, connections: concurrency });
  for (let round = 1; round <= rounds; round += 1) {
    let before = cpuMicros(server);
    const dns = await loadDns(seconds);
    dnsRuns.push({ ...dns, cpu: (cpuMicros(server) - before) / Math.max(1, dns.answered) });
    before = cpuMicros(server);
    const http = await load(itemUrl, { seconds, headers, connections: concurrency });
    httpRuns.push({
      perSecond: http.requestsPerSecond,
      p99: http.p99,
      cpu: (cpuMicros(server) - before) / Math.max(1, http.requests),
      bad: http.non2xx + http.errors,
    });
    const d = dnsRuns.at(-1)!;
    const h = httpRuns.at(-1)!;
    console.log(
      `round ${round}: DNS ${d.perSecond.toFixed(0)} q/s p99 ${d.p99} ms ${d.cpu.toFixed(1)} us CPU/q${d.failures ? ` (failed ${d.failures})` : ''} | ` +
        `HTTP GET ${h.perSecond.toFixed(0)} req/s p99 ${h.p99} ms ${h.cpu.toFixed(1)} us CPU/req${h.bad ? ` (bad ${h.bad})` : ''} | ratio ${(d.perSecond / h.perSecond).toFixed(2)}`,
    );
  }
} finally {
  await server.stop();
}

const ratios = dnsRuns.map((d, i) => d.perSecond / httpRuns[i].perSecond);
console.log(
  `\n${NAME} A, ${concurrency} in flight, ${rounds} x ${seconds}s rounds, DNS and HTTP alternating, server ${fromSource ? 'from src/ (tsx)' : `built (${EDGEPLANE_ENTRY})`}`,
);
console.log(
  `DNS over UDP: median ${median(dnsRuns.map((r) => r.perSecond)).toFixed(0)} q/s, p99 ${median(dnsRuns.map((r) => r.p99))} ms, ${median(dnsRuns.map((r) => r.cpu)).toFixed(1)} us CPU/query`,
);
console.log(
  `HTTP GET of the RRset: median ${median(httpRuns.map((r) => r.perSecond)).toFixed(0)} req/s, p99 ${median(httpRuns.map((r) => r.p99))} ms, ${median(httpRuns.map((r) => r.cpu)).toFixed(1)} us CPU/request`,
);
console.log(`ratio DNS / HTTP: median ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`);
