// `edgeplane generate cdn`: writes deterministic CDN access records into the database the server uses
// (same --data-dir / --database-url), or prints them as NDJSON for POST /_edgeplane/cdn/access-records.
import { type Command, Option } from 'commander';
import { loadConfig, SETTINGS } from '../config.js';
import { Clock } from '../platform/clock.js';
import { openAndMigrate } from '../server.js';
import { generateRecords } from './records/generator.js';
import { RETENTION_DAYS } from './records/model.js';
import { AccessRecordService } from './records/service.js';
import { AccessRecordStore } from './records/store.js';

interface CdnFlags {
  clientId: string;
  records: string;
  days: string;
  seed: string;
  end?: string;
  resources?: string;
  ndjson?: boolean;
  dataDir?: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

function integer(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** Finds or makes the shared `generate` parent, so several products can add their own generators. */
function generateCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'generate') ?? program.command('generate').description('generate deterministic test data');
}

async function run(flags: CdnFlags): Promise<string | null> {
  const clock = new Clock();
  const options = {
    clientId: integer('client-id', flags.clientId, 1),
    records: integer('records', flags.records, 1),
    days: integer('days', flags.days, 1, RETENTION_DAYS),
    seed: integer('seed', flags.seed, 0, 4294967295),
    end: flags.end === undefined ? clock.now() : Date.parse(flags.end),
    resourceIds: flags.resources ? flags.resources.split(',').map((r) => integer('resources', r.trim(), 0)) : undefined,
  };
  if (Number.isNaN(options.end)) throw new Error('--end must be an ISO 8601 date-time');
  if (flags.ndjson) {
    for (const record of generateRecords(options)) process.stdout.write(`${JSON.stringify({ ...record, timestamp: new Date(record.timestamp).toISOString() })}\n`);
    return null;
  }
  const config = loadConfig(process.env, { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl, databaseSchema: flags.databaseSchema });
  const db = await openAndMigrate(config);
  try {
    const result = await new AccessRecordService(new AccessRecordStore(db.kysely), clock).generate(options);
    return `generated ${result.generated} CDN access records for client ${options.clientId} from ${new Date(result.from).toISOString()} to ${new Date(result.to).toISOString()} in ${db.location}`;
  } finally {
    await db.close();
  }
}

export function registerCdnGenerateCommand(program: Command): void {
  generateCommand(program)
    .command('cdn')
    .description('CDN access records for the advanced analytics of one client; same options and --end give the same records')
    .requiredOption('--client-id <id>', 'client (account) the records belong to')
    .option('--records <n>', 'number of records', '10000')
    .option('--days <n>', `spread over this many days before --end (at most ${RETENTION_DAYS})`, '7')
    .option('--seed <n>', 'generator seed', '1')
    .option('--end <date-time>', 'end of the generated period (default: now)')
    .option('--resources <ids>', 'comma-separated CDN resource IDs (default 1)')
    .option('--ndjson', 'print NDJSON for POST /_edgeplane/cdn/access-records instead of writing to the database')
    .addOption(new Option(SETTINGS.dataDir.flag, SETTINGS.dataDir.description))
    .addOption(new Option(SETTINGS.databaseUrl.flag, SETTINGS.databaseUrl.description))
    .addOption(new Option(SETTINGS.databaseSchema.flag, SETTINGS.databaseSchema.description))
    .action(async (flags: CdnFlags) => {
      try {
        const message = await run(flags);
        if (message) process.stdout.write(`${message}\n`);
      } catch (error) {
        process.stderr.write(`edgeplane generate cdn: ${(error as Error).message}\n`);
        process.exit(1);
      }
    });
}
