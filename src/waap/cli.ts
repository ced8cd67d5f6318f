// `edgeplane generate waap`: writes deterministic WAAP request events into the database the server uses
// (same --data-dir / --database-url). Existing clients are named with --client-id; --clients N creates N
// new accounts (with an API token printed for each) and gives the first one --first-share of the events.
import type { Command } from 'commander';
import { createIam } from '../iam/index.js';
import { Clock } from '../platform/clock.js';
import {
  countOf,
  type GeneratorFlags,
  generatorCommand,
  integerFlag,
  numberFlag,
  type OpenCommandDatabase,
  progressBar,
  requireClients,
  runCommand,
  withCommandDatabase,
} from '../platform/cli.js';
import { createWaap } from './index.js';

interface WaapFlags extends GeneratorFlags {
  events?: string;
  clients?: string;
  clientId?: string;
  firstShare?: string;
}

const DEFAULT_COUNT = 10_000;
const MAX_COUNT = 100_000_000;

async function run(flags: WaapFlags, open: OpenCommandDatabase, log: (line: string) => void): Promise<void> {
  const events = countOf(flags.count ?? flags.events, DEFAULT_COUNT, MAX_COUNT);
  const days = numberFlag('--days', flags.days, 0.001, 30);
  const seed = integerFlag('--seed', flags.seed, 0, 2 ** 32 - 1);
  const newClients = flags.clients === undefined ? 0 : integerFlag('--clients', flags.clients, 1, 10_000);
  const existing = flags.clientId ? flags.clientId.split(',').map((id) => integerFlag('--client-id', id.trim(), 1)) : [];
  const firstShare = flags.firstShare === undefined ? undefined : numberFlag('--first-share', flags.firstShare, 0.0001, 1);
  const clock = new Clock();
  await withCommandDatabase(open, flags, async ({ config, db }) => {
    const iam = createIam({ config, db, clock });
    await requireClients(existing, (id) => iam.accounts.exists(id), db.location);
    const clientIds = [...existing];
    for (let i = 0; i < newClients || clientIds.length === 0; i += 1) {
      const { clientId, adminUserId } = await iam.accounts.createAccount({
        email: `waap-${seed}-${i}-${clock.now()}@example.test`,
        companyName: `WAAP demo ${i + 1}`,
      });
      const { token } = await iam.tokens.issue({ clientId, userId: adminUserId, role: 'Administrators', name: 'waap generator' });
      log(`client ${clientId}: API token ${token}`);
      clientIds.push(clientId);
    }
    const waap = createWaap({ config, db, clock });
    const started = performance.now();
    const progress = progressBar('WAAP events', events);
    const result = await waap.generate({ clientIds, events, days, seed, firstShare, onProgress: progress.update }).finally(() => progress.stop());
    const seconds = (performance.now() - started) / 1000;
    log(
      `generated ${result.generated} WAAP events (${result.accepted} new) for ${clientIds.length} clients in ${seconds.toFixed(1)} s (${Math.round(result.generated / seconds)} events/s) into ${db.location}`,
    );
  });
}

export function registerWaapGenerateCommand(program: Command, open: OpenCommandDatabase): void {
  generatorCommand(program, {
    name: 'waap',
    description: 'WAAP request events over the last D days, for existing clients (--client-id) or new ones (--clients)',
    noun: 'events',
    count: DEFAULT_COUNT,
    days: 30,
    maxDays: 30,
    alias: 'events',
  })
    .option('--client-id <ids>', 'existing client ids, comma-separated (default: one new client)')
    .option('--clients <n>', 'create N new accounts and generate for them (an API token is printed for each)')
    .option('--first-share <f>', 'share of the events going to the first client (default: even split)')
    .action((flags: WaapFlags) => runCommand('generate waap', () => run(flags, open, (line) => process.stdout.write(`${line}\n`))));
}
