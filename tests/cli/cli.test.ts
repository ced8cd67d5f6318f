// The `edgeplane` command as a user meets it: help, usage errors (exit 2), defaults and allowed values,
// what a failed connection says, and the generators' shared flags. Runs the built command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, freePort, runCli } from '../support/built.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-cli-'));
beforeAll(() => assertBuilt());
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('edgeplane without a command, and usage errors', () => {
  it('prints the help (exit 0) instead of starting a server', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: edgeplane <command> \[options\]/);
    expect(run.stdout).toMatch(/serve \[options\]\s+start the API server/);
  });

  it('refuses an unknown command with exit 2 and a suggestion', async () => {
    const run = await runCli(['serv']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^edgeplane: unknown command 'serv'/);
    expect(run.stderr).toMatch(/Did you mean serve\?/);
  });

  it('refuses an unknown flag and a bad choice with exit 2', async () => {
    const flag = await runCli(['serve', '--prot', '9000']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--prot'/);
    expect(flag.stderr).toMatch(/Did you mean --port\?/);
    const choice = await runCli(['journal', '--order', 'up']);
    expect(choice.code).toBe(2);
    expect(choice.stderr).toMatch(/Allowed choices are asc, desc/);
  });

  it('shows every setting of serve with its default and environment variable', async () => {
    const run = await runCli(['serve', '--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--port <number> TCP port (0 picks a free one) (default: 8080) [env EDGEPLANE_PORT]');
    expect(help).toContain('(default: ./.edgeplane) [env EDGEPLANE_DATA_DIR]');
    expect(help).toContain('(default: instant) [env EDGEPLANE_TASK_MODE]');
    expect(help).toContain('(default: local) [env EDGEPLANE_CORS]');
  });

  it('names the setting, the value and the allowed values of a bad configuration (exit 2)', async () => {
    const run = await runCli(['serve', '--memory', '--task-mode', 'fast'], { EDGEPLANE_LOG_FORMAT: 'loud' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--task-mode / EDGEPLANE_TASK_MODE: must be one of instant, realistic, manual (got "fast")');
    expect(run.stderr).toContain('--log-format / EDGEPLANE_LOG_FORMAT: must be one of auto, pretty, json (got "loud")');
  });
});

describe('control commands against no server', () => {
  it('name the URL and what to check (exit 1)', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await runCli(['clock', 'get', '--url', url, '--admin-token', 'op_whatever']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`edgeplane clock get: cannot reach Edgeplane at ${url} (ECONNREFUSED): is a server running there?`);
    expect(run.stderr).toContain('check --url or EDGEPLANE_URL');
  });

  it('ask for the operator token when none is given (exit 2)', async () => {
    const run = await runCli(['faults', 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the operator token is needed: --admin-token or EDGEPLANE_ADMIN_TOKEN');
  });
});

describe('edgeplane generate', () => {
  const dataDir = path.join(scratch, 'data');

  it('uses --count for every generator, keeps the old names, and refuses an unknown client', async () => {
    for (const product of ['waap', 'cdn', 'ddos']) {
      expect((await runCli(['generate', product, '--help'])).stdout).toMatch(/--count <n>\s+number of/);
    }
    const waap = await runCli(['generate', 'waap', '--count', '50', '--days', '1', '--data-dir', dataDir]);
    expect(waap.code, waap.stderr).toBe(0);
    expect(waap.stdout).toMatch(/^client 1: API token \S+$/m);
    expect(waap.stdout).toMatch(/generated 50 WAAP events \(50 new\) for 1 clients/);
    // Not a terminal: no progress bar, only the summary.
    expect(waap.stderr).toBe('');
    const alias = await runCli(['generate', 'cdn', '--client-id', '1', '--records', '20', '--data-dir', dataDir]);
    expect(alias.code, alias.stderr).toBe(0);
    expect(alias.stdout).toMatch(/^generated 20 CDN access records for client 1 /);
    for (const product of ['waap', 'cdn', 'ddos']) {
      const unknown = await runCli(['generate', product, '--client-id', '99', '--count', '5', '--data-dir', dataDir]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`edgeplane generate ${product}: no account 99 in sqlite ${path.join(dataDir, 'edgeplane.sqlite')}:`);
    }
  });

  it('names the flag and its range for a bad value (exit 2)', async () => {
    const run = await runCli(['generate', 'ddos', '--client-id', '1', '--count', 'many', '--data-dir', dataDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('edgeplane generate ddos: --count must be an integer from 1 to 100000 (got "many")\n');
  });
});
