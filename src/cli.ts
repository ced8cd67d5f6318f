// The `edgeplane` command. Options come from the settings table in config.ts, so the flags, the
// environment variables and this help text always agree. Exit codes: 0 done, 1 the work failed, 2 the
// command line was wrong (an unknown command or flag, a missing or bad value).
import { Command, CommanderError } from 'commander';
import { registerCdnGenerateCommand } from './cdn-analytics/cli.js';
import { ConfigError, loadConfig, SETTINGS, type SettingName } from './config.js';
import { closeOnSignals, openAndMigrate, startServer } from './server.js';
import { registerControlCommands } from './control/cli.js';
import { EXIT_FAILURE, EXIT_USAGE, type OpenCommandDatabase, settingOption } from './platform/cli.js';
import { registerDdosGenerateCommand } from './security/event-logs/cli.js';
import { registerWaapGenerateCommand } from './waap/cli.js';
import { VERSION } from './version.js';
import { builtSchemaCode } from './platform/schema-code.js';
import { CATALOGUE_FORMATS, CATALOGUE_FORMATS_MODULE } from './catalogue-engine/validate.js';

const program = new Command('edgeplane')
  .description('Self-hostable control plane for the unified infrastructure API')
  .version(VERSION)
  .usage('<command> [options]')
  // Set before any command is added: subcommands inherit both.
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'edgeplane: ')) })
  .showSuggestionAfterError()
  .showHelpAfterError('(edgeplane --help lists the commands; edgeplane <command> --help its options)')
  .addHelpText(
    'after',
    `
Start a server:    edgeplane serve                  (or npm start in a clone)
Call its control:  edgeplane clock get --admin-token <operator token>
Documentation:     README.md; the running server's /docs`,
  );

const serve = program.command('serve').description('start the API server (embedded SQLite unless a database URL is given)');
// Commander camel-cases each flag into the setting name (--data-dir -> dataDir).
for (const name of Object.keys(SETTINGS) as SettingName[]) serve.addOption(settingOption(name));
serve.action(async (flags: Partial<Record<SettingName, unknown>>) => {
  try {
    const config = loadConfig(process.env, flags);
    const server = await startServer(config);
    closeOnSignals(server, config.exitWithParent);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`edgeplane serve: ${error.message}\n`);
      process.exit(EXIT_USAGE);
    }
    process.stderr.write(`edgeplane serve failed to start: ${(error as Error).message}\n`);
    process.exit(EXIT_FAILURE);
  }
});

/** The server's database as a command opens it: the settings (flags over environment), migrated. */
const openCommandDatabase: OpenCommandDatabase = async (flags) => {
  const config = loadConfig(process.env, { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl, databaseSchema: flags.databaseSchema });
  return { config, db: await openAndMigrate(config) };
};

registerDdosGenerateCommand(program, openCommandDatabase);
registerCdnGenerateCommand(program, openCommandDatabase);
registerWaapGenerateCommand(program, openCommandDatabase);

registerControlCommands(program);

/**
 * Writes the code cache of the build's schema-code pack beside it (src/platform/schema-code.ts): called by
 * the launcher as the build's start of the built command exits, under the flags it runs with.
 */
export function writeSchemaCodeCache(): void {
  builtSchemaCode({ [CATALOGUE_FORMATS_MODULE]: CATALOGUE_FORMATS })?.writeCodeCache();
}

/** Commander's own outcomes: help and version are successes, everything else a usage error. */
function exitCodeOf(error: CommanderError): number {
  if (error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
  return EXIT_USAGE;
}

// A bare `edgeplane` is a request for help, not for a server (which is `edgeplane serve`).
if (process.argv.length <= 2) {
  program.outputHelp();
} else {
  program.parseAsync(process.argv).catch((error: unknown) => {
    if (error instanceof CommanderError) process.exit(exitCodeOf(error));
    process.stderr.write(`edgeplane: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(EXIT_FAILURE);
  });
}
