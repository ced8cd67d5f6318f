// A restart keeps all data: the same database, opened again, still knows the accounts and tokens, and
// migrations are not re-applied.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { startServer } from '../../src/server.js';

const databaseUrl = testDatabaseUrl();
const schema = databaseUrl ? `t_${randomBytes(6).toString('hex')}` : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-restart-'));

afterAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl && schema) await dropPostgresSchema(databaseUrl, schema);
});

describe('restart', () => {
  it('keeps accounts and tokens, creates the demo account only once', async () => {
    const config = loadConfig(
      {},
      {
        dataDir,
        databaseUrl,
        databaseSchema: schema,
        port: 0,
        logLevel: 'silent',
        apiKey: 'demo-key-for-restart-test',
        adminToken: 'restart-operator-token-0123',
      },
    );
    const first = await startServer(config);
    const headers = { authorization: 'APIKey demo-key-for-restart-test' };
    const me = await fetch(`${first.url}/iam/clients/me`, { headers });
    expect(me.status).toBe(200);
    const { id: clientId } = (await me.json()) as { id: number };
    const created = await fetch(`${first.url}/iam/v2/clients/${clientId}/tokens`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'survives', exp_date: null, client_user: { role: { name: 'Users' } } }),
    });
    const { token } = (await created.json()) as { token: string };
    await first.close();

    const second = await startServer(config);
    try {
      const again = await fetch(`${second.url}/iam/clients/me`, { headers: { authorization: `APIKey ${token}` } });
      expect(again.status).toBe(200);
      expect(((await again.json()) as { id: number }).id).toBe(clientId);
      const tokens = await fetch(`${second.url}/iam/v2/clients/${clientId}/tokens`, { headers });
      expect(((await tokens.json()) as { name: string }[]).map((x) => x.name).sort()).toEqual(['demo', 'survives']);
    } finally {
      await second.close();
    }
  });
});
