// The control commands, run in-process against a real server (stdout captured).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningEdgeplane, startEdgeplane } from '../index.js';
import { registerControlCommands } from './cli.js';

let ep: RunningEdgeplane;
beforeAll(async () => {
  ep = await startEdgeplane();
});
afterAll(async () => ep.close());

async function edgeplane(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const program = new Command('edgeplane').exitOverride();
  registerControlCommands(program);
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  process.exitCode = 0;
  try {
    await program.parseAsync([...args, '--url', ep.url, '--admin-token', ep.adminToken], { from: 'user' });
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { out, err, code };
}

describe('edgeplane clock|faults|journal|state|seed', () => {
  it('moves the clock', async () => {
    await edgeplane('clock', 'freeze');
    await edgeplane('clock', 'set', '2030-01-01T00:00:00Z');
    const { out } = await edgeplane('clock', 'advance', '60');
    expect(JSON.parse(out)).toMatchObject({ now: '2030-01-01T00:01:00.000Z', frozen: true });
    await edgeplane('clock', 'resume');
  });

  it('declares, lists and deletes faults; the API answers with the fault', async () => {
    const added = JSON.parse((await edgeplane('faults', 'add', '--operation', 'iam.account.get', '--status', '503', '--times', '1', '--retry-after', '3')).out);
    expect(added).toMatchObject({ status: 503, retryAfter: 3, times: 1 });
    const res = await fetch(new URL('/iam/clients/me', ep.url), { headers: { authorization: `APIKey ${ep.apiKey}` } });
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '3']);
    expect(JSON.parse((await edgeplane('faults', 'list')).out)[0]).toMatchObject({ id: added.id, fired: 1 });
    expect((await edgeplane('faults', 'delete', String(added.id))).code).toBe(0);
    const missing = await edgeplane('faults', 'get', String(added.id));
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/404/);
  });

  it('reads the journal with filters', async () => {
    await fetch(new URL('/iam/clients/me', ep.url), { headers: { authorization: `APIKey ${ep.apiKey}`, 'x-request-id': 'cli-1' } });
    const { out } = await edgeplane('journal', 'list', '--status', '200,201', '--operation', 'iam.account.get', '--order', 'desc', '--limit', '1');
    expect(JSON.parse(out).results[0]).toMatchObject({ requestId: 'cli-1', status: 200 });
  });

  it('exports to a file, imports it back, applies a seed file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-cli-'));
    try {
      const file = path.join(dir, 'state.json');
      expect(JSON.parse((await edgeplane('state', 'export', '-o', file)).out)).toMatchObject({ written: file });
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).format).toBe('edgeplane-state');
      expect(JSON.parse((await edgeplane('state', 'import', file)).out).rows).toBeGreaterThan(0);
      const seedFile = path.join(dir, 'seed.json');
      fs.writeFileSync(seedFile, JSON.stringify({ clients: [{ email: 'cli@x.test', companyName: 'Cli', tokens: [{ name: 't' }] }] }));
      expect(JSON.parse((await edgeplane('seed', seedFile)).out).clients[0]).toMatchObject({ email: 'cli@x.test' });
    } finally {
      fs.rmSync(dir, { recursive: true });
    }
  });
});
