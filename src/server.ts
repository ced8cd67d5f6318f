// Process entry: loadConfig -> openDatabase -> migrate -> build -> listen, and a graceful close on
// SIGTERM/SIGINT or when the starting process goes (in-flight requests finish, then the database closes).
import fs from 'node:fs';
import { build, type Edgeplane } from './app.js';
import type { Config } from './config.js';
import { applySeedFile } from './control/seed/file.js';
import { checkApiKey, ensureDemoAccount } from './iam/bootstrap.js';
import { Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/index.js';
import { prettyLogs } from './platform/logging.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { migrations } from '../migrations/index.js';
import { announceStart } from './start-report.js';
import { type DnsListener, startDnsListener } from './dns/listener/server.js';
import { warmUpWhenQuiet } from './platform/warm-up.js';
import { collectWhenIdle, exposedCollector } from './platform/idle-collection.js';

export interface RunningServer {
  url: string;
  edgeplane: Edgeplane;
  db: Database;
  clock: Clock;
  /** The authoritative DNS listener, when --dns-port is set. */
  dns?: DnsListener;
  /** Settles once what first requests would make is made (platform/warm-up.ts). */
  warmedUp: Promise<void>;
  close(): Promise<void>;
}

export async function openAndMigrate(config: Config): Promise<Database> {
  const db = await openDatabase(config);
  try {
    await migrateToLatest(db, migrations);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

export async function startServer(config: Config, clock = new Clock()): Promise<RunningServer> {
  const db = await openAndMigrate(config);
  const edgeplane = await build({ config, db, clock });
  const { app } = edgeplane;
  const firstStart = await edgeplane.iam.accounts.isEmpty();
  const demo = await ensureDemoAccount(edgeplane.iam, config.apiKey);
  const apiKey = !demo && config.apiKey ? await checkApiKey(edgeplane.iam, config.apiKey, config.applyApiKey) : undefined;
  // A seed file describes a fresh server: applied on an empty database only, so restarts do not repeat it.
  if (firstStart) {
    await applySeedFile(edgeplane, config).catch(async (error) => {
      await app.close();
      await db.close();
      throw error;
    });
  }
  const address = await app.listen({ host: config.host, port: config.port });
  const dns = await startDns(config, db, clock, edgeplane).catch(async (error) => {
    await app.close();
    await db.close();
    throw error;
  });
  const report = {
    url: address,
    database: db.location,
    taskMode: config.taskMode,
    demo,
    demoFromApiKey: config.apiKey !== undefined,
    operatorToken: edgeplane.generatedOperatorToken,
    apiKey,
  };
  announceStart(app.log, report, prettyLogs(config));
  if (dns) app.log.info(`DNS server for the hosted zones on ${dns.host} port ${dns.port} (UDP and TCP)`);
  const warmUp = warmUpWhenQuiet(app.server, edgeplane.warmUp, (step, error) =>
    app.log.warn({ err: error }, `could not make ${step.name} ahead of its first request`),
  );
  // Only the built command runs with --expose-gc (dist/edgeplane.mjs): `npm run dev` and tests go without.
  const collector = exposedCollector(() => db.releaseMemory());
  const idleCollection = collector && collectWhenIdle(app.server, collector);
  let closing: Promise<void> | undefined;
  return {
    url: address,
    edgeplane,
    db,
    clock,
    dns,
    warmedUp: warmUp.done,
    close() {
      warmUp.stop();
      idleCollection?.stop();
      closing ??= (async () => {
        // The DNS listener first: it writes its last query counts while the database is open.
        await dns?.close();
        await app.close();
        await db.close();
      })();
      return closing;
    },
  };
}

/** The DNS listener, on the HTTP server's host, when a DNS port is configured. */
async function startDns(config: Config, db: Database, clock: Clock, edgeplane: Edgeplane): Promise<DnsListener | undefined> {
  if (config.dnsPort === 0) return undefined;
  const log = edgeplane.app.log;
  return startDnsListener({ host: config.host, port: config.dnsPort, db, clock, onError: (error) => log.error({ err: error }, 'DNS query failed') }).catch(
    (error: Error) => {
      throw new Error(`the DNS server cannot listen on ${config.host} port ${config.dnsPort}: ${error.message}`, { cause: error });
    },
  );
}

// A terminal's Ctrl-C reaches both `npm start` and the server, and npm forwards its own copy: signals this
// close together are one request to stop, not the impatient second one that forces the exit.
const SAME_SIGNAL_MS = 1_000;
// How often the server looks whether the process that started it is still there (--exit-with-parent).
const PARENT_CHECK_MS = 500;

/**
 * Stops cleanly on SIGTERM, SIGINT or SIGHUP (a second signal forces the exit) and, with --exit-with-parent, when the
 * process that started the server is gone: `npm start` killed, even by SIGKILL, must not leave the
 * server running and holding its port.
 */
export function closeOnSignals(server: RunningServer, exitWithParent = false): void {
  let stoppingSince: number | undefined;
  const stop = (reason: string) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince > SAME_SIGNAL_MS) process.exit(1);
      return;
    }
    stoppingSince = Date.now();
    server.edgeplane.app.log.info(`${reason}, draining`);
    server.close().then(
      () => process.exit(0),
      (error) => {
        server.edgeplane.app.log.error(error, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // SIGHUP: the terminal the server runs in was closed.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => stop(`${signal} received`));
  if (exitWithParent) {
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (parentAlive(parent)) return;
      clearInterval(timer);
      stop(`the process that started edgeplane (pid ${parent}) has exited`);
    }, PARENT_CHECK_MS);
    timer.unref();
  }
}

/**
 * Whether the parent this process started with is still its parent. On Linux the kernel's record of the
 * current parent (a process whose parent dies is handed to init or a subreaper at once); elsewhere,
 * whether that pid still exists.
 */
function parentAlive(parent: number): boolean {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state, ppid, ...
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
  } catch {
    try {
      process.kill(parent, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}
