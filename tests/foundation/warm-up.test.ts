// Once the server listens and is left quiet, it reads what the catalogue engine's first request would
// (platform/warm-up.ts); the engine then answers from what was read.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, testDatabaseUrl } from '../../src/config.js';
import { dropPostgresSchema } from '../../src/platform/db/index.js';
import { startServer } from '../../src/server.js';

const databaseUrl = testDatabaseUrl();
const schema = databaseUrl ? `t_${randomBytes(6).toString('hex')}` : undefined;

afterAll(async () => {
  if (databaseUrl && schema) await dropPostgresSchema(databaseUrl, schema);
});

describe('warm-up after listening', () => {
  it("makes the catalogue engine's tables before its first request", async () => {
    const config = loadConfig(
      {},
      { memory: !databaseUrl, databaseUrl, databaseSchema: schema, port: 0, logLevel: 'silent', apiKey: 'demo-key-for-warm-up-test' },
    );
    const server = await startServer(config);
    try {
      expect(server.edgeplane.catalogue.served().length).toBeGreaterThan(0);
      // A request answered first (its response closes, so the server is quiet again after it).
      const me = await fetch(`${server.url}/iam/clients/me`, { headers: { authorization: 'APIKey demo-key-for-warm-up-test' } });
      expect(me.status).toBe(200);
      await server.warmedUp;
      expect(server.edgeplane.catalogue.loaded()).toBe(true);
      const presets = await fetch(`${server.url}/cdn/presets`, { headers: { authorization: 'APIKey demo-key-for-warm-up-test' } });
      expect(presets.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('stops with the server', async () => {
    const config = loadConfig({}, { memory: true, port: 0, logLevel: 'silent', apiKey: 'demo-key-for-warm-up-test' });
    const server = await startServer(config);
    await server.close();
    await server.warmedUp;
    expect(server.edgeplane.catalogue.loaded()).toBe(false);
  });
});
