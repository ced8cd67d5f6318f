// `edgeplane generate ddos`: writes deterministic DDoS event logs into the database the server uses
// (same --data-dir / --database-url), or prints them as a body for POST /_edgeplane/security/event-logs/bulk.
import type { Command } from 'commander';
import { createIam } from '../../iam/index.js';
import { Clock } from '../../platform/clock.js';
import {
  countOf,
  type GeneratorFlags,
  generatorCommand,
  integerFlag,
  type OpenCommandDatabase,
  requireClients,
  runCommand,
  timeFlag,
  withCommandDatabase,
} from '../../platform/cli.js';
import { AppError } from '../../platform/errors.js';
import { generateEventLogs } from './generator.js';
import { EventLogService } from './service.js';
import { EventLogStore } from './store.js';

interface DdosFlags extends GeneratorFlags {
  clientId: string;
  end?: string;
  json?: boolean;
}

const DEFAULT_COUNT = 100;
// The control API's limit for one generation (a few thousand is already years of attacks).
const MAX_COUNT = 100_000;
const MAX_DAYS = 3650;

async function run(flags: DdosFlags, open: OpenCommandDatabase): Promise<string> {
  const clientId = integerFlag('--client-id', flags.clientId, 1);
  const count = countOf(flags.count, DEFAULT_COUNT, MAX_COUNT);
  const seed = integerFlag('--seed', flags.seed, 0);
  const days = integerFlag('--days', flags.days, 1, MAX_DAYS);
  const clock = new Clock();
  const end = flags.end === undefined ? clock.now() : timeFlag('--end', flags.end);
  if (flags.json) {
    const records = generateEventLogs({ clientId, count, seed, end, days }).map((r) => ({
      ...r,
      attack_start_time: new Date(r.attack_start_time).toISOString(),
    }));
    return JSON.stringify({ records });
  }
  return withCommandDatabase(open, flags, async ({ config, db }) => {
    const { accounts } = createIam({ config, db, clock });
    await requireClients([clientId], (id) => accounts.exists(id), db.location);
    const service = new EventLogService(new EventLogStore(db), clock, accounts);
    try {
      const result = await service.generate({ client_id: clientId, count, seed, days, end: new Date(end).toISOString() });
      return `generated ${count} DDoS event logs for client ${clientId} (${result.created} new) in ${db.location}`;
    } catch (error) {
      // Validation problems carry one message per field; the field path means nothing on the command line.
      const fields = error instanceof AppError ? error.fields.map((f) => f.message) : [];
      throw fields.length > 0 ? new Error(fields.join('; ')) : error;
    }
  });
}

export function registerDdosGenerateCommand(program: Command, open: OpenCommandDatabase): void {
  generatorCommand(program, {
    name: 'ddos',
    description: 'DDoS event logs (ddos_alert and rtbh_alert) for one client; the same seed, client, --end and --days give the same records',
    noun: 'event logs',
    count: DEFAULT_COUNT,
    days: 30,
    maxDays: MAX_DAYS,
  })
    .requiredOption('--client-id <id>', 'client (account) the records belong to')
    .option('--end <date-time>', 'latest attack start (default: now)')
    .option('--json', 'print {records: [...]} for the bulk control API instead of writing to the database')
    .action((flags: DdosFlags) => runCommand('generate ddos', async () => void process.stdout.write(`${await run(flags, open)}\n`)));
}
