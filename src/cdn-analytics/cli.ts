// `edgeplane generate cdn`: writes deterministic CDN access records into the database the server uses
// (same --data-dir / --database-url), or prints them as NDJSON for POST /_edgeplane/cdn/access-records.
import type { Command } from 'commander';
import { createIam } from '../iam/index.js';
import { Clock } from '../platform/clock.js';
import {
  countOf,
  type GeneratorFlags,
  generatorCommand,
  integerFlag,
  type OpenCommandDatabase,
  progressBar,
  requireClients,
  runCommand,
  timeFlag,
  withCommandDatabase,
} from '../platform/cli.js';
import { generateRecords, MAX_GENERATED_RECORDS } from './records/generator.js';
import { RETENTION_DAYS } from './records/model.js';
import { AccessRecordService } from './records/service.js';
import { AccessRecordStore } from './records/store.js';

interface CdnFlags extends GeneratorFlags {
  clientId: string;
  records?: string;
  end?: string;
  resources?: string;
  ndjson?: boolean;
}

const DEFAULT_COUNT = 10_000;

async function run(flags: CdnFlags, open: OpenCommandDatabase): Promise<string | null> {
  const clock = new Clock();
  const options = {
    clientId: integerFlag('--client-id', flags.clientId, 1),
    records: countOf(flags.count ?? flags.records, DEFAULT_COUNT, MAX_GENERATED_RECORDS),
    days: integerFlag('--days', flags.days, 1, RETENTION_DAYS),
    seed: integerFlag('--seed', flags.seed, 0, 4294967295),
    end: flags.end === undefined ? clock.now() : timeFlag('--end', flags.end),
    resourceIds: flags.resources ? flags.resources.split(',').map((r) => integerFlag('--resources', r.trim(), 0)) : undefined,
  };
  if (flags.ndjson) {
    for (const record of generateRecords(options))
      process.stdout.write(`${JSON.stringify({ ...record, timestamp: new Date(record.timestamp).toISOString() })}\n`);
    return null;
  }
  return withCommandDatabase(open, flags, async ({ config, db }) => {
    const { accounts } = createIam({ config, db, clock });
    await requireClients([options.clientId], (id) => accounts.exists(id), db.location);
    const progress = progressBar('CDN access records', options.records);
    const result = await new AccessRecordService(new AccessRecordStore(db.kysely), clock).generate(options, progress.update).finally(() => progress.stop());
    return `generated ${result.generated} CDN access records for client ${options.clientId} from ${new Date(result.from).toISOString()} to ${new Date(result.to).toISOString()} in ${db.location}`;
  });
}

export function registerCdnGenerateCommand(program: Command, open: OpenCommandDatabase): void {
  generatorCommand(program, {
    name: 'cdn',
    description: 'CDN access records for the advanced analytics of one client; the same options and --end give the same records',
    noun: 'records',
    count: DEFAULT_COUNT,
    days: 7,
    maxDays: RETENTION_DAYS,
    alias: 'records',
  })
    .requiredOption('--client-id <id>', 'client (account) the records belong to')
    .option('--end <date-time>', 'end of the generated period (default: now)')
    .option('--resources <ids>', 'comma-separated CDN resource IDs (default: 1)')
    .option('--ndjson', 'print NDJSON for POST /_edgeplane/cdn/access-records instead of writing to the database')
    .action((flags: CdnFlags) =>
      runCommand('generate cdn', async () => {
        const message = await run(flags, open);
        if (message) process.stdout.write(`${message}\n`);
      }),
    );
}
