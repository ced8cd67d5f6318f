// State export, import and reset cover the CDN tables: one client's CDN objects leave with a reset of
// that client and come back, answering the same, with an import of its document; other clients' stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { createResource, createRule, LEAF_CERT, LEAF_KEY, TEST_CA, uniqueHost } from '../../tests/support/cdn.js';

const TABLES = [
  'cdn_origin_groups',
  'cdn_resources',
  'cdn_hostnames',
  'cdn_resource_rules',
  'cdn_purges',
  'cdn_ssl_certificates',
  'cdn_ca_certificates',
  'cdn_rule_templates',
];

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });

/** Everything the client's CDN objects answer. */
async function snapshot(account: TestAccount) {
  const urls = ['/cdn/origin_groups', '/cdn/resources', '/cdn/sslData', '/cdn/sslCertificates', '/cdn/purge_statuses', '/cdn/resources/rule_templates'];
  return Promise.all(urls.map(async (url) => (await call('GET', url, undefined, account)).json()));
}

describe('state export, import and reset', () => {
  it('cover every CDN table, for one client', async () => {
    for (const account of [a, b]) {
      const cert = (await call('POST', '/cdn/sslData', { name: uniqueHost('c'), sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY }, account)).json();
      const ca = (await call('POST', '/cdn/sslCertificates', { name: uniqueHost('ca'), sslCertificate: TEST_CA }, account)).json();
      const resource = await createResource(t, account, {
        sslEnabled: true,
        sslData: cert.id,
        proxy_ssl_enabled: true,
        proxy_ssl_ca: ca.id,
        secondaryHostnames: [uniqueHost('www')],
      });
      await createRule(t, account, resource.id, { rule: '/img/' });
      expect((await call('POST', `/cdn/resources/${resource.id}/purge`, { paths: [] }, account)).statusCode).toBe(201);
      expect((await call('POST', '/cdn/resources/rule_templates', { rule: '/t', ruleType: 0 }, account)).statusCode).toBe(201);
    }
    const before = await snapshot(a);
    const others = await snapshot(b);

    const exported = await t.request('GET', `/_edgeplane/state?clientId=${a.clientId}`, { headers: t.operator });
    const document = exported.json();
    for (const table of TABLES) {
      expect(document.tables[table]?.length, table).toBeGreaterThan(0);
      expect(
        document.tables[table].every((row: { client_id: number }) => Number(row.client_id) === a.clientId),
        table,
      ).toBe(true);
    }

    expect((await t.request('POST', '/_edgeplane/state/reset', { headers: t.operator, body: { clientId: a.clientId } })).statusCode).toBeLessThan(300);
    for (const table of TABLES) {
      const left = await t.db.kysely.selectFrom(table).select('id').where('client_id', '=', a.clientId).execute();
      expect(left, table).toEqual([]);
    }
    expect(await snapshot(b)).toEqual(others);

    const imported = await t.request('PUT', '/_edgeplane/state', { headers: t.operator, body: document });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await snapshot(a)).toEqual(before);
    // The restored host names are taken again.
    const taken = before[1][0].cname;
    expect((await call('POST', '/cdn/resources', { cname: taken, origin: 'origin.example.com' }, b)).json().errors.cname[0]).toMatch(/already uses/);
  });
});
