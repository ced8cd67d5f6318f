// `edgeplane generate ddos`: writes deterministic DDoS event logs into the database the server uses
// (same --data-dir / --database-url), or prints them as a body for POST /_edgeplane/security/event-logs/bulk.
import { type Command, Option } from 'commander';
import { loadConfig, SETTINGS } from '../../config.js';
import { AccountService } from '../../iam/account/service.js';
import { AccountStore } from '../../iam/account/store.js';
import { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { openAndMigrate } from '../../server.js';
import { generateEventLogs } from './generator.js';
import { EventLogService } from './service.js';
import { EventLogStore } from './store.js';

interface DdosFlags {
  clientId: string;
  count: string;
  seed: string;
  days: string;
  end?: string;
  json?: boolean;
  dataDir?: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

function integer(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return value;
}

/** Finds or makes the shared `generate` parent, so several products can add their own generators. */
function generateCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'generate') ?? program.command('generate').description('generate deterministic test data');
}

async function run(flags: DdosFlags): Promise<string> {
  const clientId = integer('client-id', flags.clientId, 1);
  const count = integer('count', flags.count, 1);
  const seed = integer('seed', flags.seed, 0);
  const days = integer('days', flags.days, 1);
  const clock = new Clock();
  const end = flags.end === undefined ? clock.now() : Date.parse(flags.end);
  if (Number.isNaN(end)) throw new Error('--end must be an ISO 8601 date-time');
  if (flags.json) {
    const records = generateEventLogs({ clientId, count, seed, end, days }).map((r) => ({ ...r, attack_start_time: new Date(r.attack_start_time).toISOString() }));
    return JSON.stringify({ records });
  }
  const config = loadConfig(process.env, { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl, databaseSchema: flags.databaseSchema });
  const db = await openAndMigrate(config);
  try {
    const accounts = new AccountService(new AccountStore(db.kysely), clock);
    const service = new EventLogService(new EventLogStore(db), clock, accounts);
    const result = await service.generate({ client_id: clientId, count, seed, days, end: new Date(end).toISOString() });
    return `generated ${count} DDoS event logs for client ${clientId} (${result.created} new) in ${db.location}`;
  } finally {
    await db.close();
  }
}

export function registerDdosGenerateCommand(program: Command): void {
  generateCommand(program)
    .command('ddos')
    .description('DDoS event logs (ddos_alert and rtbh_alert) for one client; same seed, client, end and days give the same records')
    .requiredOption('--client-id <id>', 'client (account) the records belong to')
    .option('--count <n>', 'number of records', '100')
    .option('--seed <n>', 'generator seed', '1')
    .option('--days <n>', 'attack starts are spread over this many days before --end', '30')
    .option('--end <date-time>', 'latest attack start (default: now)')
    .option('--json', 'print {records: [...]} for the bulk control API instead of writing to the database')
    .addOption(new Option(SETTINGS.dataDir.flag, SETTINGS.dataDir.description))
    .addOption(new Option(SETTINGS.databaseUrl.flag, SETTINGS.databaseUrl.description))
    .addOption(new Option(SETTINGS.databaseSchema.flag, SETTINGS.databaseSchema.description))
    .action(async (flags: DdosFlags) => {
      try {
        process.stdout.write(`${await run(flags)}\n`);
      } catch (error) {
        // Validation problems carry one message per field; the field path means nothing on the command line.
        const fields = error instanceof AppError ? error.fields.map((f) => f.message) : [];
        process.stderr.write(`edgeplane generate ddos: ${fields.length > 0 ? fields.join('; ') : (error as Error).message}\n`);
        process.exit(1);
      }
    });
}
