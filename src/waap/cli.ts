// `edgeplane generate waap`: writes deterministic WAAP request events into the database the server uses
// (same --data-dir / --database-url). Existing clients are named with --client-id; --clients N creates N
// new accounts (with an API token printed for each) and gives the first one --first-share of the events.
import { type Command, Option } from 'commander';
import { loadConfig, SETTINGS } from '../config.js';
import { createIam } from '../iam/index.js';
import { Clock } from '../platform/clock.js';
import { openAndMigrate } from '../server.js';
import { createWaap } from './index.js';

interface WaapFlags {
  events: string;
  days: string;
  seed: string;
  clients?: string;
  clientId?: string;
  firstShare?: string;
  dataDir?: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

function number(name: string, text: string, min: number, max: number, integer = true): number {
  const value = Number(text);
  if ((integer && !Number.isInteger(value)) || !(value >= min && value <= max)) throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  return value;
}

/** Finds or makes the shared `generate` parent, so several products can add their own generators. */
function generateCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'generate') ?? program.command('generate').description('generate deterministic test data');
}

async function run(flags: WaapFlags, log: (line: string) => void): Promise<void> {
  const events = number('events', flags.events, 1, 100_000_000);
  const days = number('days', flags.days, 0.001, 30, false);
  const seed = number('seed', flags.seed, 0, 2 ** 32 - 1);
  const newClients = flags.clients === undefined ? 0 : number('clients', flags.clients, 1, 10_000);
  const existing = flags.clientId ? flags.clientId.split(',').map((id) => number('client-id', id.trim(), 1, Number.MAX_SAFE_INTEGER)) : [];
  const config = loadConfig(process.env, { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl, databaseSchema: flags.databaseSchema });
  const db = await openAndMigrate(config);
  const clock = new Clock();
  try {
    const iam = createIam({ config, db, clock });
    const clientIds = [...existing];
    for (let i = 0; i < newClients || clientIds.length === 0; i += 1) {
      const { clientId, adminUserId } = await iam.accounts.createAccount({ email: `waap-${seed}-${i}-${clock.now()}@example.test`, companyName: `WAAP demo ${i + 1}` });
      const { token } = await iam.tokens.issue({ clientId, userId: adminUserId, role: 'Administrators', name: 'waap generator' });
      log(`client ${clientId}: API token ${token}`);
      clientIds.push(clientId);
    }
    const waap = createWaap({ config, db, clock });
    const started = performance.now();
    const firstShare = flags.firstShare === undefined ? undefined : number('first-share', flags.firstShare, 0.0001, 1, false);
    const result = await waap.generate({ clientIds, events, days, seed, firstShare });
    const seconds = (performance.now() - started) / 1000;
    log(`generated ${result.generated} WAAP events (${result.accepted} new) for ${clientIds.length} clients in ${seconds.toFixed(1)} s (${Math.round(result.generated / seconds)} events/s) into ${db.location}`);
  } finally {
    await db.close();
  }
}

export function registerWaapGenerateCommand(program: Command): void {
  const command = generateCommand(program)
    .command('waap')
    .description('generate deterministic WAAP request events over the last D days')
    .requiredOption('--events <n>', 'number of events')
    .option('--days <d>', 'spread over the last D days (at most 30)', '30')
    .option('--seed <s>', 'random seed; the same seed gives the same events', '1')
    .option('--clients <n>', 'create N new accounts and generate for them')
    .option('--client-id <ids>', 'existing client ids, comma-separated')
    .option('--first-share <f>', 'share of the events going to the first client (default: even split)');
  for (const name of ['dataDir', 'databaseUrl', 'databaseSchema'] as const) {
    command.addOption(new Option(SETTINGS[name].flag, `${SETTINGS[name].description} [env ${SETTINGS[name].env}]`));
  }
  command.action(async (flags: WaapFlags) => {
    try {
      await run(flags, (line) => process.stdout.write(`${line}\n`));
    } catch (error) {
      process.stderr.write(`edgeplane generate waap failed: ${(error as Error).message}\n`);
      process.exit(1);
    }
  });
}
