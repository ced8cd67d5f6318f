// The SQLite file's write lock held by another process (a `sqlite3` shell or a database browser with
// changes not yet written): the writes wait for it, and nothing else does. A statement used to wait for the
// lock inside better-sqlite3's call for up to 5 s, stopping every request of every client meanwhile: a
// `GET /iam/clients/me` sent beside a create took 13.9 s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-held-lock-'));
let t: TestApp;
let account: TestAccount;

beforeAll(async () => {
  if (engineName !== 'sqlite') return;
  t = await createTestApp({ memory: false, dataDir });
  account = await t.account();
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(engineName !== 'sqlite')('the SQLite write lock held by another process', () => {
  it('makes only the writes wait: reads answer meanwhile, and the writes land once it is free', async () => {
    const { headers } = account;
    const project = (await t.request('GET', '/cloud/v1/projects', { headers })).json().results[0].id;
    const region = (await t.request('GET', '/cloud/v1/regions', { headers })).json().results[0].id;
    const networks = `/cloud/v1/networks/${project}/${region}`;
    const create = (name: string) => t.request('POST', networks, { headers, body: { name, create_router: false } });
    expect((await create('before')).statusCode).toBe(200); // the route's first call compiles its schemas
    const other = new SQLite(path.join(dataDir, 'edgeplane.sqlite'), { fileMustExist: true });
    other.pragma('busy_timeout = 0');
    other.exec('begin immediate');
    let waiting: ReturnType<typeof create>;
    try {
      const started = performance.now();
      waiting = create('waits');
      // A turn of the timers lets the create reach its write; it used to hold the event loop there.
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The next request stamps its token's last use (a write outside a transaction), as once a minute.
      t.clock.advance(61_000);
      for (const url of ['/iam/clients/me', '/cloud/v1/projects', networks]) expect((await t.request('GET', url, { headers })).statusCode).toBe(200);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect((await t.request('GET', networks, { headers })).json().count).toBe(1);
    } finally {
      other.exec('rollback');
      other.close();
    }
    const created = await waiting;
    expect(created.statusCode).toBe(200);
    const task = (await t.request('GET', `/cloud/v1/tasks/${created.json().tasks[0]}`, { headers })).json();
    expect(task.state).toBe('FINISHED');
    expect((await t.request('GET', networks, { headers })).json().count).toBe(2);
  });
});
