// Process entry: loadConfig -> openDatabase -> migrate -> build -> listen, and a graceful close on
// SIGTERM/SIGINT (in-flight requests finish, then the database closes).
import { build, type Edgeplane } from './app.js';
import type { Config } from './config.js';
import { applySeedFile } from './control/seed/file.js';
import { ensureDemoAccount } from './iam/bootstrap.js';
import { Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/index.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { migrations } from '../migrations/index.js';

export interface RunningServer {
  url: string;
  edgeplane: Edgeplane;
  db: Database;
  clock: Clock;
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
  // A seed file describes a fresh server: applied on an empty database only, so restarts do not repeat it.
  if (firstStart) {
    await applySeedFile(edgeplane, config).catch(async (error) => {
      await app.close();
      await db.close();
      throw error;
    });
  }
  const address = await app.listen({ host: config.host, port: config.port });
  if (demo && !config.apiKey) app.log.warn(`demo account ${demo.clientId} created; its API token (shown once): ${demo.token}`);
  else if (demo) app.log.info(`demo account ${demo.clientId} created with the API token from EDGEPLANE_API_KEY`);
  if (edgeplane.generatedOperatorToken) app.log.warn(`operator token for /_edgeplane (shown once): ${edgeplane.generatedOperatorToken}`);
  app.log.info(`edgeplane listening on ${address} (${db.location})`);
  let closing: Promise<void> | undefined;
  return {
    url: address,
    edgeplane,
    db,
    clock,
    close() {
      closing ??= (async () => {
        await app.close();
        await db.close();
      })();
      return closing;
    },
  };
}

/** Stops cleanly on SIGTERM/SIGINT: a second signal forces the exit. */
export function closeOnSignals(server: RunningServer): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    server.edgeplane.app.log.info(`${signal} received, draining`);
    server.close().then(
      () => process.exit(0),
      (error) => {
        server.edgeplane.app.log.error(error, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
