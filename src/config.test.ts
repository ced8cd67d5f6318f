// Configuration errors say which setting (flag and environment variable), what was given and what is allowed.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const problemsOf = (env: Record<string, string>, flags: Record<string, unknown> = {}) => {
  try {
    loadConfig(env, flags);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  throw new Error('the configuration was accepted');
};

describe('loadConfig errors', () => {
  it('lists the allowed values of a choice, and the value given', () => {
    expect(problemsOf({ EDGEPLANE_TASK_MODE: 'fast' })).toEqual(['--task-mode / EDGEPLANE_TASK_MODE: must be one of instant, realistic, manual (got "fast")']);
    expect(problemsOf({}, { logLevel: 'loud' })).toEqual([
      '--log-level / EDGEPLANE_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ]);
  });

  it('reports every problem at once, with bounds and booleans spelt out', () => {
    expect(problemsOf({ EDGEPLANE_PORT: '70000', EDGEPLANE_MEMORY: 'yes' })).toEqual([
      '--port / EDGEPLANE_PORT: must be <= 65535 (got "70000")',
      '--memory / EDGEPLANE_MEMORY: must be true or false (got "yes")',
    ]);
  });

  it('describes what --cors takes', () => {
    expect(problemsOf({ EDGEPLANE_CORS: 'example.com' })[0]).toMatch(
      /^--cors \/ EDGEPLANE_CORS: must be local \(.*\), '\*' \(any\), off, or origins separated by commas .* \(got "example.com"\)$/,
    );
    expect(loadConfig({ EDGEPLANE_CORS: 'local, https://app.example.com:8443' }).cors).toBe('local, https://app.example.com:8443');
    expect(loadConfig({}).cors).toBe('local');
  });
});

describe('the configuration validator compiled ahead of time', () => {
  it('is the schema compiled now (run npx tsx scripts/config-validator.ts after changing ConfigSchema)', async () => {
    const { CONFIG_VALIDATOR_FILE, configValidatorSource } = await import('../scripts/config-validator.js');
    expect(fs.readFileSync(CONFIG_VALIDATOR_FILE, 'utf8')).toBe(await configValidatorSource());
  });

  it('fills defaults and coerces text from the environment', () => {
    const config = loadConfig({ EDGEPLANE_PORT: '9000', EDGEPLANE_MEMORY: 'true', EDGEPLANE_TASK_SPEED: '2.5' });
    expect(config).toMatchObject({ port: 9000, memory: true, taskSpeed: 2.5, host: '127.0.0.1', taskMode: 'instant', journalSize: 1000 });
  });

  it('opens five PostgreSQL connections for transactions and two shared ones unless told otherwise', () => {
    expect(loadConfig({}).databasePool).toBe(5);
    expect(loadConfig({ EDGEPLANE_DATABASE_POOL: '20' }).databasePool).toBe(20);
    expect(problemsOf({ EDGEPLANE_DATABASE_POOL: '0' })).toEqual(['--database-pool / EDGEPLANE_DATABASE_POOL: must be >= 1 (got "0")']);
    expect(loadConfig({}).databasePipe).toBe(2);
    expect(loadConfig({ EDGEPLANE_DATABASE_PIPE: '0' }).databasePipe).toBe(0);
  });
});
