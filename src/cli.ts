// The `edgeplane` command. Options come from the settings table in config.ts, so the flags, the
// environment variables and this help text always agree.
import { Command, Option } from 'commander';
import { registerCdnGenerateCommand } from './cdn-analytics/cli.js';
import { ConfigError, loadConfig, SETTINGS, type SettingName } from './config.js';
import { closeOnSignals, startServer } from './server.js';
import { registerControlCommands } from './control/cli.js';
import { registerDdosGenerateCommand } from './security/event-logs/cli.js';
import { registerWaapGenerateCommand } from './waap/cli.js';
import { VERSION } from './version.js';

const program = new Command('edgeplane').description('Self-hostable control plane for the unified infrastructure API').version(VERSION);

const serve = program.command('serve', { isDefault: true }).description('start the API server (embedded SQLite unless a database URL is given)');
// Commander camel-cases each flag into the setting name (--data-dir -> dataDir).
for (const setting of Object.values(SETTINGS)) {
  serve.addOption(new Option(setting.flag, `${setting.description} [env ${setting.env}]`));
}
serve.action(async (flags: Partial<Record<SettingName, unknown>>) => {
  try {
    const server = await startServer(loadConfig(process.env, flags));
    closeOnSignals(server);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`edgeplane failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  }
});

registerDdosGenerateCommand(program);
registerCdnGenerateCommand(program);
registerWaapGenerateCommand(program);

registerControlCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`edgeplane: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
