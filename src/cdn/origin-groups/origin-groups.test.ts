// Origin groups over HTTP, in the official client's forms: the six operations, every refusal with its
// 400 body and nothing stored, S3 credentials masked, deletion refused while in use, tenancy and roles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { QUOTAS } from '../limits.js';
import { createGroup, createResource, createRule, uniqueHost } from '../../../tests/support/cdn.js';

const BASE = '/cdn/origin_groups';
const ITEM = `${BASE}/{origin_group_id}`;

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
const count = async (account = a) => (await call('GET', BASE, undefined, account)).json().length;

describe('create, read, list, change, delete', () => {
  it('creates a group as the official client sends it, with the defaults filled in', async () => {
    const res = await call('POST', BASE, {
      name: 'web',
      sources: [
        { source: 'origin.example.com', enabled: true, backup: false },
        { source: '203.0.113.7:8080', backup: true },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', BASE, res);
    expect(res.json()).toEqual({
      id: expect.any(Number),
      name: 'web',
      use_next: false,
      proxy_next_upstream: ['error', 'timeout'],
      auth_type: 'none',
      sources: [
        { source: 'origin.example.com', backup: false, enabled: true, host_header_override: null },
        { source: '203.0.113.7:8080', backup: true, enabled: true, host_header_override: null },
      ],
      path: '',
      has_related_resources: false,
    });
    const got = await call('GET', `${BASE}/${res.json().id}`);
    expectConforms('GET', ITEM, got);
    expect(got.json()).toEqual(res.json());
  });

  it('lists as a plain array, or a page with limit; true counts; filters', async () => {
    const c = await t.account();
    const used = await createGroup(t, c, { name: 'used', sources: [{ source: 'one.example.com' }] });
    await createGroup(t, c, { name: 'free', sources: [{ source: 'two.example.com' }] });
    await createResource(t, c, { originGroup: used.id });
    const plain = await call('GET', BASE, undefined, c);
    expectConforms('GET', BASE, plain);
    expect(plain.json().map((g: { name: string }) => g.name)).toEqual(['used', 'free']);
    const page = await t.request('GET', BASE, { headers: c.headers, query: { limit: '1', offset: '1' } });
    expectConforms('GET', BASE, page);
    expect(page.json()).toMatchObject({ count: 2, next: null, results: [{ name: 'free' }] });
    expect(page.json().previous).toMatch(/limit=1&offset=0$/);
    const filter = async (query: Record<string, string>) =>
      (await t.request('GET', BASE, { headers: c.headers, query })).json().map((g: { name: string }) => g.name);
    expect(await filter({ name: 'free' })).toEqual(['free']);
    expect(await filter({ sources: 'ONE.example.com' })).toEqual(['used']);
    expect(await filter({ has_related_resources: 'true' })).toEqual(['used']);
    expect(await filter({ has_related_resources: 'false' })).toEqual(['free']);
  });

  it('PUT replaces: omitted fields go back to their defaults', async () => {
    const group = await createGroup(t, a, { use_next: true, proxy_next_upstream: ['http_502'], path: '/old' });
    const res = await call('PUT', `${BASE}/${group.id}`, { name: group.name, use_next: false, sources: [{ source: 'new.example.com' }] });
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('PUT', ITEM, res);
    expect(res.json()).toMatchObject({ use_next: false, proxy_next_upstream: ['error', 'timeout'], path: '', sources: [{ source: 'new.example.com' }] });
    const missing = await call('PUT', `${BASE}/${group.id}`, { name: group.name });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toHaveProperty('use_next');
  });

  it('PATCH changes only the fields sent', async () => {
    const group = await createGroup(t, a, { sources: [{ source: 'keep.example.com' }] });
    const res = await call('PATCH', `${BASE}/${group.id}`, { use_next: true, proxy_next_upstream: ['error', 'http_503'] });
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('PATCH', ITEM, res);
    expect(res.json()).toMatchObject({
      name: group.name,
      use_next: true,
      proxy_next_upstream: ['error', 'http_503'],
      sources: [{ source: 'keep.example.com' }],
    });
  });

  it('deletes a group nobody uses: 204, then 404', async () => {
    const group = await createGroup(t, a);
    const res = await t.request('DELETE', `${BASE}/${group.id}`, { headers: { ...a.headers, accept: '*/*', 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(204);
    expect((await call('GET', `${BASE}/${group.id}`)).statusCode).toBe(404);
  });

  it('ignores unknown fields, at the top and in sources', async () => {
    const res = await call('POST', BASE, { name: uniqueHost('g'), future: 1, sources: [{ source: 'origin.example.com', weight: 5 }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().sources[0]).toEqual({ source: 'origin.example.com', backup: false, enabled: true, host_header_override: null });
  });
});

describe('refusals: 400 naming the field, nothing stored', () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['a source with a scheme', { sources: [{ source: 'https://origin.example.com' }] }, 'sources.0.source', /scheme/],
    ['a source with a path', { sources: [{ source: 'origin.example.com/images' }] }, 'sources.0.source', /path/],
    ['a port out of range', { sources: [{ source: 'origin.example.com:70000' }] }, 'sources.0.source', /1 to 65535/],
    ['a private address', { sources: [{ source: '192.168.1.10' }] }, 'sources.0.source', /private/],
    ['a reserved address', { sources: [{ source: '100.64.0.1' }] }, 'sources.0.source', /reserved/],
    ['not a host', { sources: [{ source: 'not a host' }] }, 'sources.0.source', /domain name/],
    ['a source twice', { sources: [{ source: 'a.example.com' }, { source: 'a.example.com', backup: true }] }, 'sources.1.source', /already/],
    ['a lone backup', { sources: [{ source: 'a.example.com', backup: true }] }, 'sources.0.backup', /backup/],
    [
      'no enabled source',
      {
        sources: [
          { source: 'a.example.com', enabled: false },
          { source: 'b.example.com', enabled: false },
        ],
      },
      'sources',
      /enabled/,
    ],
    ['no sources', { sources: [] }, 'sources', /at least one/],
    ['no sources field', {}, 'sources', /required/],
    ['use_next without cases', { use_next: true, proxy_next_upstream: [], sources: [{ source: 'a.example.com' }] }, 'proxy_next_upstream', /at least one/],
    ['an unknown case', { proxy_next_upstream: ['error', 'sometimes'], sources: [{ source: 'a.example.com' }] }, 'proxy_next_upstream.1', /one of/],
    ['a 256-character name', { name: 'n'.repeat(256), sources: [{ source: 'a.example.com' }] }, 'name', /255/],
    ['too many sources', { sources: Array.from({ length: QUOTAS.sourcesPerGroup + 1 }, (_, i) => ({ source: `s${i}.example.com` })) }, 'sources', /10/],
    [
      'an S3 origin without keys',
      { sources: [{ origin_type: 's3', config: { s3_type: 'other', s3_bucket_name: 'b', s3_storage_hostname: 's3.example.com' } }] },
      'sources.0.config.s3_access_key_id',
      /required/,
    ],
    ['auth with auth_type none', { auth: { s3_type: 'amazon' }, sources: [{ source: 'a.example.com' }] }, 'auth', /awsSignatureV4/],
  ];
  it.each(cases)('refuses %s', async (_name, body, field, message) => {
    const before = await count();
    const res = await call('POST', BASE, { name: uniqueHost('bad'), ...body });
    expect(res.statusCode, res.body).toBe(400);
    expectConforms('POST', BASE, res);
    expect(res.json().errors[field]?.join(' '), res.body).toMatch(message);
    expect(await count()).toBe(before);
  });

  it('refuses a name another group of the account has, not one of another account', async () => {
    const group = await createGroup(t, a);
    const res = await call('POST', BASE, { name: group.name, sources: [{ source: 'a.example.com' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.name[0]).toMatch(/name/);
    expect((await call('POST', BASE, { name: group.name, sources: [{ source: 'a.example.com' }] }, b)).statusCode).toBe(201);
    const other = await createGroup(t, a);
    expect((await call('PATCH', `${BASE}/${other.id}`, { name: group.name })).statusCode).toBe(400);
  });

  it('a malformed JSON body is a 400', async () => {
    const res = await t.request('POST', BASE, { headers: { ...a.headers, 'content-type': 'application/json' }, body: '{"name":' });
    expect(res.statusCode).toBe(400);
  });
});

describe('S3 origins and the deprecated group-wide credentials', () => {
  it('stores S3 origins and answers their keys masked; a masked key sent back keeps the stored one', async () => {
    const config = {
      s3_type: 'amazon',
      s3_bucket_name: 'media',
      s3_region: 'eu-west-1',
      s3_access_key_id: 'AKIAEXAMPLEKEY',
      s3_secret_access_key: 'S'.repeat(40),
    };
    const res = await call('POST', BASE, {
      name: uniqueHost('s3'),
      sources: [
        { origin_type: 's3', config },
        { source: 'fallback.example.com', backup: true },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', BASE, res);
    expect(res.json().sources[0]).toEqual({
      origin_type: 's3',
      config: { ...config, s3_access_key_id: 'SECRET_VALUE', s3_secret_access_key: 'SECRET_VALUE', s3_auth_type: 'awsSignatureV4' },
      backup: false,
      enabled: true,
      host_header_override: null,
    });
    const back = await call('PUT', `${BASE}/${res.json().id}`, { name: res.json().name, use_next: false, sources: res.json().sources });
    expect(back.statusCode, back.body).toBe(200);
    const row = await t.db.kysely.selectFrom('cdn_origin_groups').select('sources').where('id', '=', res.json().id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.sources)[0].config.s3_secret_access_key).toBe('S'.repeat(40));
  });

  it('keeps the legacy awsSignatureV4 form, with auth instead of sources', async () => {
    const auth = { s3_type: 'amazon', s3_access_key_id: 'AKIAEXAMPLE', s3_secret_access_key: 'a'.repeat(40), s3_bucket_name: 'bucket', s3_region: 'us-east-2' };
    const res = await call('POST', BASE, { name: uniqueHost('legacy'), auth_type: 'awsSignatureV4', auth });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', BASE, res);
    expect(res.json()).toMatchObject({
      auth_type: 'awsSignatureV4',
      auth: { ...auth, s3_access_key_id: 'SECRET_VALUE', s3_secret_access_key: 'SECRET_VALUE' },
    });
    expect(res.json()).not.toHaveProperty('sources');
    const noAuth = await call('POST', BASE, { name: uniqueHost('legacy'), auth_type: 'awsSignatureV4' });
    expect(noAuth.statusCode).toBe(400);
    expect(noAuth.json().errors).toHaveProperty('auth');
  });
});

describe('groups in use', () => {
  it('cannot be deleted while a resource or a rule uses them (400 with the name key)', async () => {
    const group = await createGroup(t, a);
    const resource = await createResource(t, a, { originGroup: group.id });
    const res = await call('DELETE', `${BASE}/${group.id}`);
    expect(res.statusCode).toBe(400);
    expectConforms('DELETE', ITEM, res);
    expect(res.json()).toEqual({ name: ['The origin group is used by CDN resources and cannot be deleted'] });
    expect((await call('GET', `${BASE}/${group.id}`)).json().has_related_resources).toBe(true);

    const ruleGroup = await createGroup(t, a);
    await createRule(t, a, resource.id, { rule: '/r', originGroup: ruleGroup.id });
    const byRule = await call('DELETE', `${BASE}/${ruleGroup.id}`);
    expect(byRule.statusCode).toBe(400);
    expect(byRule.json()).toEqual({ name: ['The origin group is used by resource rules and cannot be deleted'] });
  });

  it('refuses an origin equal to a host name of a resource using the group, and a port under MATCH', async () => {
    const group = await createGroup(t, a);
    const resource = await createResource(t, a, { originGroup: group.id, originProtocol: 'MATCH' });
    const self = await call('PATCH', `${BASE}/${group.id}`, { sources: [{ source: resource.cname }] });
    expect(self.statusCode).toBe(400);
    expect(self.json().errors['sources.0.source'][0]).toMatch(/host name of a CDN resource/);
    const port = await call('PATCH', `${BASE}/${group.id}`, { sources: [{ source: 'origin.example.com:8080' }] });
    expect(port.statusCode).toBe(400);
    expect(port.json().errors['sources.0.source'][0]).toMatch(/MATCH/);
  });
});

describe('tenancy, access and quota', () => {
  it("another client's group is a 404 for every operation, and absent from its list", async () => {
    const group = await createGroup(t, a);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'x', use_next: false, sources: [{ source: 'a.example.com' }] }],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `${BASE}/${group.id}`, body, b);
      expect(res.statusCode, `${method}`).toBe(404);
      expect(res.json()).toEqual({ detail: 'Origin group not found' });
    }
    expect((await call('GET', BASE, undefined, b)).json().map((g: { id: number }) => g.id)).not.toContain(group.id);
  });

  it('401 without a token; a read-only user reads but cannot write (403)', async () => {
    expect((await t.request('GET', BASE)).statusCode).toBe(401);
    const reader = await t.account({ role: 'Users' });
    expect((await call('GET', BASE, undefined, reader)).statusCode).toBe(200);
    expect((await call('POST', BASE, { name: 'x', sources: [{ source: 'a.example.com' }] }, reader)).statusCode).toBe(403);
  });

  it(`a client has at most ${QUOTAS.originGroups} groups: the next is a 403 with a message`, async () => {
    const c = await t.account();
    const now = Date.now();
    const rows = Array.from({ length: QUOTAS.originGroups }, (_, i) => ({
      client_id: c.clientId,
      name: `q${i}`,
      use_next: 0,
      proxy_next_upstream: '[]',
      auth_type: 'none',
      auth: null,
      sources: '[]',
      path: '',
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 100)
      await t.db.kysely
        .insertInto('cdn_origin_groups')
        .values(rows.slice(i, i + 100))
        .execute();
    const res = await call('POST', BASE, { name: 'one more', sources: [{ source: 'a.example.com' }] }, c);
    expect(res.statusCode).toBe(403);
    expectConforms('POST', BASE, res);
    expect(res.json()).toEqual({ message: expect.stringMatching(/500 origin groups/) });
  });
});
