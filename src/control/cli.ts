// `edgeplane clock|faults|journal|state|seed ...`: the control API of a running server from the shell.
// Each command prints the JSON answer; the target comes from --url / --admin-token or EDGEPLANE_URL /
// EDGEPLANE_ADMIN_TOKEN.
import fs from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { controlTarget } from '../config.js';
import { EXIT_FAILURE, EXIT_USAGE, UsageError } from '../platform/cli.js';
import { ControlClient, ControlError, ControlUnreachableError } from './client.js';
import type { FaultCreate } from './faults/schemas.js';

interface Target {
  url?: string;
  adminToken?: string;
}

function clientFor(command: Command): ControlClient {
  const flags = command.optsWithGlobals<Target>();
  const fallback = controlTarget();
  const token = flags.adminToken ?? fallback.adminToken;
  if (!token)
    throw new UsageError(
      "the operator token is needed: --admin-token or EDGEPLANE_ADMIN_TOKEN (printed at the server's first start, or the value it was started with)",
    );
  return new ControlClient(flags.url ?? fallback.url, token);
}

/** What to check after a failed call, in the command line's own terms. */
function hintFor(error: unknown): string {
  if (error instanceof ControlUnreachableError)
    return '\n  check --url or EDGEPLANE_URL (default http://127.0.0.1:8080), and that `edgeplane serve` is running there';
  if (error instanceof ControlError && (error.status === 401 || error.status === 403)) {
    return '\n  check --admin-token or EDGEPLANE_ADMIN_TOKEN: the control API takes the operator token, not a client API token';
  }
  return '';
}

/** Runs one control call and prints its answer; failures go to stderr with exit code 1 (2 for usage). */
function run(work: (client: ControlClient, ...args: any[]) => Promise<unknown>) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    try {
      const result = await work(clientFor(command), ...args.slice(0, -1));
      if (result !== undefined) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } catch (error) {
      process.stderr.write(
        `edgeplane ${command.parent?.name() === 'edgeplane' ? '' : `${command.parent?.name()} `}${command.name()}: ${(error as Error).message}${hintFor(error)}\n`,
      );
      process.exitCode = error instanceof UsageError || error instanceof InvalidArgumentError ? EXIT_USAGE : EXIT_FAILURE;
    }
  };
}

const number = (value: string) => {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`not a number: ${JSON.stringify(value)}`);
  return parsed;
};

/** A JSON file given on the command line (a seed, a state document). */
function readJson(file: string): any {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not a JSON document: ${(error as Error).message}`);
  }
}

function group(program: Command, name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .addOption(new Option('--url <url>', 'server URL (default: http://127.0.0.1:8080) [env EDGEPLANE_URL]'))
    .addOption(new Option('--admin-token <token>', 'operator token of the server [env EDGEPLANE_ADMIN_TOKEN]'));
}

export function registerControlCommands(program: Command): void {
  const clock = group(program, 'clock', 'read or move the server clock');
  clock
    .command('get', { isDefault: true })
    .description('show the server time')
    .action(run((c) => c.clock.get()));
  clock
    .command('freeze')
    .description('stop time')
    .action(run((c) => c.clock.freeze()));
  clock
    .command('resume')
    .description('let time flow again')
    .action(run((c) => c.clock.resume()));
  clock
    .command('set <time>')
    .description('jump to an ISO 8601 time')
    .action(run((c, time: string) => c.clock.set(time)));
  clock
    .command('advance <seconds>')
    .description('move time forward')
    .action(run((c, seconds: string) => c.clock.advance(number(seconds))));

  const faults = group(program, 'faults', 'declare, list and delete injected faults');
  faults
    .command('list', { isDefault: true })
    .option('--scenario <name>')
    .action(run((c, o: { scenario?: string }) => c.faults.list(o.scenario)));
  faults
    .command('add')
    .description('declare a fault (give --operation or --path, and --status, --latency or --task-error)')
    .option('--operation <id>', 'operation id')
    .option('--method <method>')
    .option('--path <glob>', 'path glob (* within a segment, ** across)')
    .option('--scenario <name>', 'only requests with X-Edgeplane-Scenario: <name>')
    .option('--status <code>', 'answer this status', number)
    .option('--message <text>')
    .option('--retry-after <seconds>', 'Retry-After for 429/503', number)
    .option('--latency <ms>', 'delay', number)
    .option('--task-error <reason>', 'the created task ends in ERROR with this reason')
    .option('--times <n>', 'next N matches only', number)
    .option('--probability <p>', 'share of matches (0..1)', number)
    .option('--seed <n>', 'seed of the probability draws', number)
    .action(
      run((c, o: Record<string, any>) => {
        const fault: FaultCreate = {
          operationId: o.operation,
          method: o.method,
          path: o.path,
          scenario: o.scenario,
          status: o.status,
          message: o.message,
          retryAfter: o.retryAfter,
          latencyMs: o.latency,
          taskError: o.taskError,
          times: o.times,
          probability: o.probability,
          seed: o.seed,
        };
        return c.faults.create(Object.fromEntries(Object.entries(fault).filter(([, v]) => v !== undefined)) as FaultCreate);
      }),
    );
  faults.command('get <id>').action(run((c, id: string) => c.faults.get(number(id))));
  faults.command('delete <id>').action(run(async (c, id: string) => c.faults.delete(number(id))));
  faults
    .command('clear')
    .option('--scenario <name>')
    .action(run((c, o: { scenario?: string }) => c.faults.clear(o.scenario)));

  const journal = group(program, 'journal', 'read or clear the request journal');
  journal
    .command('list', { isDefault: true })
    .option('--client <id>', 'client id', number)
    .option('--operation <id>')
    .option('--method <method>')
    .option('--path <glob>')
    .option('--status <codes>', 'comma-separated statuses')
    .option('--scenario <name>')
    .option('--since <time>')
    .option('--until <time>')
    .addOption(new Option('--order <order>', 'oldest first (asc, the default) or newest first').choices(['asc', 'desc']))
    .option('--limit <n>', 'page size', number)
    .option('--offset <n>', 'items to skip', number)
    .action(
      run((c, o: Record<string, any>) =>
        c.journal.list({
          clientId: o.client,
          operationId: o.operation,
          method: o.method,
          path: o.path,
          status: o.status?.split(',').map(number),
          scenario: o.scenario,
          since: o.since,
          until: o.until,
          order: o.order,
          limit: o.limit,
          offset: o.offset,
        }),
      ),
    );
  journal.command('clear').action(run((c) => c.journal.clear()));

  const state = group(program, 'state', 'export, import or reset the server state');
  state
    .command('export')
    .option('--client <id>', 'one client only', number)
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(
      run(async (c, o: { client?: number; output?: string }) => {
        const document = await c.state.export(o.client);
        if (!o.output) return document;
        fs.writeFileSync(o.output, JSON.stringify(document));
        return { written: o.output, version: document.version, tables: Object.keys(document.tables).length };
      }),
    );
  state
    .command('import <file>')
    .description('replace the state with a document (all-or-nothing)')
    .action(run((c, file: string) => c.state.import(readJson(file))));
  state
    .command('reset')
    .option('--client <id>', 'one client only', number)
    .action(run((c, o: { client?: number }) => c.state.reset(o.client)));

  group(program, 'seed', 'apply a seed file to a running server')
    .argument('<file>')
    .action(run((c, file: string) => c.seed(readJson(file))));
}
