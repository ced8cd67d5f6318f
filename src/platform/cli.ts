// What every `edgeplane` command shares: options made from the settings table (with their defaults and
// environment variables in the help), usage errors (exit code 2), the `generate` parent and its common
// flags, and progress bars for long generation.
import { SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import { type Config, settingDefault, SETTINGS, type SettingName } from '../config.js';
import type { Database } from './db/index.js';

/** A mistake in how a command was called: reported with exit code 2, like commander's own. */
export class UsageError extends Error {}

/** Exit codes: 1 the work failed, 2 the command line was wrong. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

function shownDefault(name: SettingName): string | undefined {
  if (name === 'apiKey' || name === 'adminToken') return 'generated';
  const value = settingDefault(name);
  return value === undefined || value === false ? undefined : String(value);
}

/** The flag of a setting, its help saying the default and the environment variable. No default is set on
 * the flag itself: an absent flag must leave the environment variable in charge. */
export function settingOption(name: SettingName): Option {
  const setting = SETTINGS[name];
  const fallback = shownDefault(name);
  return new Option(setting.flag, `${setting.description}${fallback === undefined ? '' : ` (default: ${fallback})`} [env ${setting.env}]`);
}

/** An integer flag's value, or a usage error that names the flag and the range. */
export function integerFlag(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(text)})`);
  return value;
}

/** A number flag's value, or a usage error that names the flag and the range. */
export function numberFlag(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !(value >= min && value <= max))
    throw new UsageError(`${flag} must be a number from ${min} to ${max} (got ${JSON.stringify(text)})`);
  return value;
}

/** An ISO 8601 date-time flag as epoch milliseconds. */
export function timeFlag(flag: string, text: string): number {
  const value = Date.parse(text);
  if (Number.isNaN(value)) throw new UsageError(`${flag} must be an ISO 8601 date-time such as 2026-11-01T00:00:00Z (got ${JSON.stringify(text)})`);
  return value;
}

/** The shared `generate` parent, made by whichever product registers a generator first. */
export function generateCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'generate') ??
    program.command('generate').description('generate deterministic test data into the database a server uses')
  );
}

/** The database settings a command shares with `serve`, as flags. */
export interface DatabaseFlags {
  dataDir?: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

export interface GeneratorFlags extends DatabaseFlags {
  count?: string;
  seed: string;
  days: string;
}

/** A command's database: the server's settings with the command's flags applied, opened and migrated. */
export interface CommandDatabase {
  config: Config;
  db: Database;
}

/**
 * How commands open the database the server uses. Made once by the command line (src/cli.ts) and handed
 * to each product's commands, so none of them reads the settings or migrates on its own.
 */
export type OpenCommandDatabase = (flags: DatabaseFlags) => Promise<CommandDatabase>;

/** Runs work on the command's database and closes it, whatever happens. */
export async function withCommandDatabase<T>(open: OpenCommandDatabase, flags: DatabaseFlags, work: (opened: CommandDatabase) => Promise<T>): Promise<T> {
  const opened = await open(flags);
  try {
    return await work(opened);
  } finally {
    await opened.db.close();
  }
}

/**
 * A generator with the flags every generator shares, under the same names: --count (how many; the
 * product's old name stays as a hidden alias), --days, --seed, and the database settings of `serve`.
 */
export function generatorCommand(
  program: Command,
  spec: { name: string; description: string; noun: string; count: number; days: number; maxDays: number; alias?: string },
): Command {
  const command = generateCommand(program)
    .command(spec.name)
    .description(spec.description)
    .option('--count <n>', `number of ${spec.noun} (default: ${spec.count})`);
  if (spec.alias) command.addOption(new Option(`--${spec.alias} <n>`, 'same as --count').hideHelp());
  command
    .addOption(new Option('--days <d>', `spread over this many days before the end (at most ${spec.maxDays})`).default(String(spec.days), String(spec.days)))
    .addOption(new Option('--seed <s>', 'random seed: the same seed and options give the same data').default('1', '1'));
  for (const name of ['dataDir', 'databaseUrl', 'databaseSchema'] as const) command.addOption(settingOption(name));
  return command;
}

/** The --count of a generator (given under its name or its alias), within bounds. */
export function countOf(given: string | undefined, fallback: number, max: number): number {
  return given === undefined ? fallback : integerFlag('--count', given, 1, max);
}

/** Refuses client ids with no account, naming the database looked in: generated data nobody can read helps no one. */
export async function requireClients(ids: number[], exists: (id: number) => Promise<boolean>, where: string): Promise<void> {
  const missing: number[] = [];
  for (const id of ids) if (!(await exists(id))) missing.push(id);
  if (missing.length > 0) {
    throw new Error(
      `no account ${missing.join(', ')} in ${where}: give the id of an existing client (GET /iam/clients/me shows yours), or use the database the server runs on (--data-dir, --database-url)`,
    );
  }
}

export interface Progress {
  update(done: number): void;
  stop(): void;
}

/** A progress bar on stderr when it is a terminal; nothing otherwise (logs and pipes get the summary line only). */
export function progressBar(label: string, total: number, output: NodeJS.WriteStream = process.stderr): Progress {
  if (!output.isTTY) return { update() {}, stop() {} };
  const bar = new SingleBar({
    stream: output,
    format: `${label} [{bar}] {percentage}% | {value}/{total} | {eta_formatted} left`,
    hideCursor: true,
    etaBuffer: 50,
    fps: 5,
  });
  bar.start(total, 0);
  return { update: (done) => bar.update(done), stop: () => bar.stop() };
}

/** Runs a command's work: usage errors exit 2, other failures 1, each with one line naming the command. */
export async function runCommand(name: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    process.stderr.write(`edgeplane ${name}: ${(error as Error).message}\n`);
    process.exit(error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE);
  }
}
