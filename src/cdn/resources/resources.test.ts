// CDN resources over HTTP, in the official client's forms: create (with originGroup or origin), read,
// list with true counts and filters, PUT, PATCH, delete; host names unique across clients; options
// checked by the shared rules; the status life cycle on the server clock; tenancy and roles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { loadConfig } from '../../config.js';
import type { Principal } from '../../platform/auth/principal.js';
import { createCdn } from '../index.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { DURATIONS_MS, QUOTAS } from '../limits.js';
import { RESOURCE_OPTION_NAMES } from '../options/catalogue.js';
import { createGroup, createResource, createRule, uniqueHost } from '../../../tests/support/cdn.js';

const BASE = '/cdn/resources';
const ITEM = `${BASE}/{resource_id}`;

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

describe('create and read', () => {
  it('creates with an origin group, every field answered, conforming', async () => {
    const group = await createGroup(t, a, { name: uniqueHost('g') });
    const cname = uniqueHost();
    const res = await call('POST', BASE, { cname, originGroup: group.id, originProtocol: 'HTTPS', name: 'site', secondaryHostnames: [uniqueHost('www')] });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', BASE, res);
    const body = res.json();
    expect(body).toMatchObject({
      cname,
      active: true,
      enabled: true,
      status: 'processed',
      deleted: false,
      client: a.clientId,
      name: 'site',
      description: '',
      originGroup: group.id,
      originGroup_name: group.name,
      originProtocol: 'HTTPS',
      sslEnabled: false,
      sslData: null,
      shielded: false,
      primary_resource: null,
      is_primary: null,
      rules: [],
    });
    expect(Object.keys(body.options).sort()).toEqual([...RESOURCE_OPTION_NAMES].sort());
    const got = await call('GET', `${BASE}/${body.id}`);
    expectConforms('GET', ITEM, got);
    expect(got.json()).toEqual(body);
  });

  it('creates with origin: a group holding that origin is made and named after the cname', async () => {
    const cname = uniqueHost();
    const res = await call('POST', BASE, { cname, origin: 'origin.example.com:8080' });
    expect(res.statusCode, res.body).toBe(201);
    const group = await call('GET', `/cdn/origin_groups/${res.json().originGroup}`);
    expect(group.json()).toMatchObject({ name: cname, sources: [{ source: 'origin.example.com:8080' }], has_related_resources: true });
  });

  it('needs exactly one of origin and originGroup, and a group of the account', async () => {
    const group = await createGroup(t, a);
    const both = await call('POST', BASE, { cname: uniqueHost(), origin: 'origin.example.com', originGroup: group.id });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toHaveProperty('origin');
    const neither = await call('POST', BASE, { cname: uniqueHost() });
    expect(neither.json().errors).toHaveProperty('originGroup');
    const theirs = await createGroup(t, b);
    const other = await call('POST', BASE, { cname: uniqueHost(), originGroup: theirs.id });
    expect(other.json().errors.originGroup[0]).toMatch(/No origin group/);
    const badOrigin = await call('POST', BASE, { cname: uniqueHost(), origin: 'https://origin.example.com' });
    expect(badOrigin.json().errors.origin[0]).toMatch(/scheme/);
  });

  it('the status moves from processed to active on the server clock; inactive is suspended', async () => {
    const resource = await createResource(t, a);
    expect(resource.status).toBe('processed');
    await t.clock.advance(DURATIONS_MS.resourcePropagation);
    expect((await call('GET', `${BASE}/${resource.id}`)).json().status).toBe('active');
    const off = await call('PATCH', `${BASE}/${resource.id}`, { active: false });
    expect(off.json()).toMatchObject({ active: false, status: 'suspended' });
  });
});

describe('host names', () => {
  it('a cname is unique across all clients', async () => {
    const cname = uniqueHost();
    await createResource(t, a, { cname });
    const res = await call('POST', BASE, { cname: cname.toUpperCase(), originGroup: (await createGroup(t, b)).id }, b);
    expect(res.statusCode).toBe(400);
    expectConforms('POST', BASE, res);
    expect(res.json().errors.cname[0]).toMatch(/already uses this host name/);
  });

  it('two clients racing for one cname: one gets it, the others a 400, and no group is left behind', async () => {
    const cname = uniqueHost();
    const results = await Promise.all([
      call('POST', BASE, { cname, origin: 'origin.example.com' }, a),
      call('POST', BASE, { cname, origin: 'origin.example.com' }, b),
      call('POST', BASE, { cname, origin: 'origin.example.com' }, b),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400]);
    for (const res of results.filter((r) => r.statusCode === 400)) expect(res.json().errors.cname?.[0], res.body).toMatch(/already uses/);
    // Only the winner keeps the origin group made for its `origin`.
    const groups = await t.db.kysely.selectFrom('cdn_origin_groups').select('id').where('name', 'like', `${cname}%`).execute();
    expect(groups).toHaveLength(1);
  });

  it('secondary host names are unique, differ from the cname, and clash with no host name anywhere', async () => {
    const taken = (await createResource(t, b)).cname;
    const cname = uniqueHost();
    const www = uniqueHost('www');
    const res = await call('POST', BASE, { cname, originGroup: (await createGroup(t, a)).id, secondaryHostnames: [www, www, cname, taken, 'not a host'] });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['secondaryHostnames.1', 'secondaryHostnames.2', 'secondaryHostnames.3', 'secondaryHostnames.4']);
    const tooMany = await call('POST', BASE, {
      cname,
      originGroup: (await createGroup(t, a)).id,
      secondaryHostnames: Array.from({ length: QUOTAS.secondaryHostnames + 1 }, () => uniqueHost('s')),
    });
    expect(tooMany.json().errors).toHaveProperty('secondaryHostnames');
  });

  it('host names are freed when the resource is deleted, and moved when they change', async () => {
    const www = uniqueHost('www');
    const first = await createResource(t, a, { secondaryHostnames: [www] });
    expect((await call('POST', BASE, { cname: www, originGroup: (await createGroup(t, b)).id }, b)).statusCode).toBe(400);
    await call('PATCH', `${BASE}/${first.id}`, { secondaryHostnames: [] });
    expect((await call('POST', BASE, { cname: www, originGroup: (await createGroup(t, b)).id }, b)).statusCode).toBe(201);
    await call('PATCH', `${BASE}/${first.id}`, { active: false });
    expect((await call('DELETE', `${BASE}/${first.id}`)).statusCode).toBe(204);
    expect((await call('POST', BASE, { cname: first.cname, originGroup: (await createGroup(t, b)).id }, b)).statusCode).toBe(201);
  });
});

describe('list', () => {
  it('a plain array without limit, a page with it; true counts; filters', async () => {
    const c = await t.account();
    const group = await createGroup(t, c);
    const one = await createResource(t, c, { originGroup: group.id, name: 'Shop Front', originProtocol: 'HTTPS' });
    const two = await createResource(t, c, { originGroup: group.id, name: 'blog', active: false });
    await createRule(t, c, one.id, { name: 'images', rule: '/img/' });
    const plain = await call('GET', BASE, undefined, c);
    expectConforms('GET', BASE, plain);
    expect(plain.json().map((r: { id: number }) => r.id)).toEqual([one.id, two.id]);
    const page = await t.request('GET', BASE, { headers: c.headers, query: { limit: '1' } });
    expectConforms('GET', BASE, page);
    expect(page.json()).toMatchObject({ count: 2, previous: null, results: [{ id: one.id }] });
    expect(page.json().next).toMatch(/limit=1&offset=1$/);
    const ids = async (query: Record<string, string>) => (await t.request('GET', BASE, { headers: c.headers, query })).json().map((r: { id: number }) => r.id);
    expect(await ids({ name: 'shop' })).toEqual([one.id]);
    expect(await ids({ active: 'false' })).toEqual([two.id]);
    expect(await ids({ status: 'suspended' })).toEqual([two.id]);
    expect(await ids({ originProtocol: 'HTTPS' })).toEqual([one.id]);
    expect(await ids({ cname: two.cname })).toEqual([two.id]);
    expect(await ids({ rules: 'images' })).toEqual([one.id]);
    expect(await ids({ originGroup__in: `${group.id},999999` })).toEqual([one.id, two.id]);
    expect(await ids({ deleted: 'true' })).toEqual([]);
    expect((await t.request('GET', BASE, { headers: c.headers, query: { limit: '10', name: 'blog' } })).json()).toMatchObject({ count: 1 });
  });
});

describe('PUT and PATCH', () => {
  it('PUT replaces every changeable field: omitted ones go back to their defaults', async () => {
    const resource = await createResource(t, a, {
      name: 'n',
      description: 'd',
      originProtocol: 'HTTPS',
      secondaryHostnames: [uniqueHost('w')],
      options: { gzipOn: { enabled: true, value: true } },
    });
    const res = await call('PUT', `${BASE}/${resource.id}`, { originGroup: resource.originGroup });
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('PUT', ITEM, res);
    expect(res.json()).toMatchObject({ name: null, description: '', originProtocol: 'HTTP', secondaryHostnames: [], active: true, cname: resource.cname });
    expect(res.json().options.gzipOn).toBeNull();
    expect((await call('PUT', `${BASE}/${resource.id}`, {})).json().errors).toHaveProperty('originGroup');
  });

  it('PATCH changes only what is sent; inside options, only the options sent; cname is not changeable', async () => {
    const resource = await createResource(t, a, { name: 'keep', options: { gzipOn: { enabled: true, value: true }, waap: { enabled: true, value: true } } });
    const res = await call('PATCH', `${BASE}/${resource.id}`, {
      cname: uniqueHost(),
      description: 'new',
      options: { gzipOn: null, cors: { enabled: true, value: ['*'] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ cname: resource.cname, name: 'keep', description: 'new' });
    expect(res.json().options).toMatchObject({ gzipOn: null, waap: { enabled: true, value: true }, cors: { enabled: true, value: ['*'], always: false } });
  });
});

describe('options: the same rules as rule templates', () => {
  it('refuses conflicting options, naming them, and stores nothing', async () => {
    const resource = await createResource(t, a);
    const res = await call('PATCH', `${BASE}/${resource.id}`, {
      options: {
        gzipOn: { enabled: true, value: true },
        fetch_compressed: { enabled: true, value: true },
        browser_cache_settings: { enabled: true, value: '2y' },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors).sort()).toEqual(['options.browser_cache_settings.value', 'options.gzipOn']);
    expect((await call('GET', `${BASE}/${resource.id}`)).json().options.gzipOn).toBeNull();
  });

  it('takes the resource-only options, and http3 needs HTTPS delivery', async () => {
    const resource = await createResource(t, a);
    const bad = await call('PATCH', `${BASE}/${resource.id}`, { options: { http3_enabled: { enabled: true, value: true } } });
    expect(bad.json().errors['options.http3_enabled'][0]).toMatch(/sslEnabled/);
    const ok = await call('PATCH', `${BASE}/${resource.id}`, {
      sslEnabled: true,
      options: { http3_enabled: { enabled: true, value: true }, tls_versions: { enabled: true, value: ['TLSv1.2', 'TLSv1.3'] } },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().options.tls_versions).toEqual({ enabled: true, value: ['TLSv1.2', 'TLSv1.3'] });
  });

  it('refuses an option a rule of the resource conflicts with', async () => {
    const resource = await createResource(t, a);
    const rule = await createRule(t, a, resource.id, { rule: '/g/', options: { gzipOn: { enabled: true, value: true } } });
    const res = await call('PATCH', `${BASE}/${resource.id}`, { options: { fetch_compressed: { enabled: true, value: true } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors['options.fetch_compressed'][0]).toContain(`Rule ${rule.id}`);
  });

  it('names deprecated options in the Deprecation header', async () => {
    const res = await call('POST', BASE, {
      cname: uniqueHost(),
      originGroup: (await createGroup(t, a)).id,
      options: { disable_cache: { enabled: true, value: false } },
    });
    expect(res.headers.deprecation).toBe('options.disable_cache; use options.edge_cache_settings');
  });

  it('ignores unknown fields and options', async () => {
    const res = await call('POST', BASE, {
      cname: uniqueHost(),
      originGroup: (await createGroup(t, a)).id,
      vp_enabled: true,
      newer: 1,
      options: { future_option: { enabled: true }, waap: { enabled: true, value: true, mode: 'x' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().vp_enabled).toBe(false);
    expect(res.json().options.waap).toEqual({ enabled: true, value: true });
  });
});

describe('origin protocol, reserve resources, shielding', () => {
  it('MATCH cannot go with an origin that has a port', async () => {
    const group = await createGroup(t, a, { sources: [{ source: 'origin.example.com:8443' }] });
    const res = await call('POST', BASE, { cname: uniqueHost(), originGroup: group.id, originProtocol: 'MATCH' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.originProtocol[0]).toMatch(/MATCH/);
  });

  it('a reserve resource names its main one; the main one is is_primary and cannot be deleted first', async () => {
    const main = await createResource(t, a);
    const reserve = await createResource(t, a, { primary_resource: main.id });
    expect(reserve).toMatchObject({ primary_resource: main.id, is_primary: false });
    expect((await call('GET', `${BASE}/${main.id}`)).json().is_primary).toBe(true);
    expect((await call('POST', BASE, { cname: uniqueHost(), originGroup: main.originGroup, primary_resource: reserve.id })).json().errors).toHaveProperty(
      'primary_resource',
    );
    expect((await call('POST', `${BASE}/${reserve.id}/rules`, { name: 'r', rule: '/r', ruleType: 0 })).statusCode).toBe(400);
    await call('PATCH', `${BASE}/${main.id}`, { active: false });
    const res = await call('DELETE', `${BASE}/${main.id}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatch(/reserve resource/);
  });

  it('origin shielding: locations listed, one chosen, then off', async () => {
    const locations = await call('GET', '/cdn/shieldingpop_v2');
    expectConforms('GET', '/cdn/shieldingpop_v2', locations);
    const pop = locations.json()[0];
    const resource = await createResource(t, a);
    const set = await call('PUT', `${BASE}/${resource.id}/shielding_v2`, { shielding_pop: pop.id });
    expect(set.statusCode, set.body).toBe(200);
    expectConforms('PUT', `${ITEM}/shielding_v2`, set);
    expect((await call('GET', `${BASE}/${resource.id}/shielding_v2`)).json()).toEqual({ shielding_pop: pop.id });
    expect((await call('GET', `${BASE}/${resource.id}`)).json()).toMatchObject({ shielded: true, shield_dc: pop.datacenter });
    const bad = await call('PUT', `${BASE}/${resource.id}/shielding_v2`, { shielding_pop: 9999 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toHaveProperty('shielding_pop');
    await call('PUT', `${BASE}/${resource.id}/shielding_v2`, { shielding_pop: null });
    expect((await call('GET', `${BASE}/${resource.id}`)).json()).toMatchObject({ shielded: false, shield_dc: null });
  });
});

describe("Let's Encrypt pre-validation and presets", () => {
  it('pre-validation: 201 once the resource is active; 400 listing every reason otherwise', async () => {
    const resource = await createResource(t, a, { secondaryHostnames: [`*.${uniqueHost('w')}`] });
    await createRule(t, a, resource.id, { name: 'all', rule: '^/' });
    const url = `${BASE}/${resource.id}/ssl/le/pre-validate`;
    const refused = await call('POST', url);
    expect(refused.statusCode).toBe(400);
    expectConforms('POST', `${ITEM}/ssl/le/pre-validate`, refused);
    expect(refused.json().errors).toHaveLength(3);
    expect(refused.json().errors.join(' ')).toMatch(/being set up.*wildcard.*acme-challenge/);
    await t.clock.advance(DURATIONS_MS.resourcePropagation);
    await call('PATCH', `${BASE}/${resource.id}`, { secondaryHostnames: [] });
    const rules = (await call('GET', `${BASE}/${resource.id}/rules`)).json();
    await call('PATCH', `${BASE}/${resource.id}/rules/${rules[0].id}`, { active: false });
    const ok = await call('POST', url);
    expect(ok.statusCode, ok.body).toBe(201);
    expectConforms('POST', `${ITEM}/ssl/le/pre-validate`, ok);
  });

  it('no preset is ever applied: the preset reads are 404 for a resource and a rule', async () => {
    const resource = await createResource(t, a);
    const rule = await createRule(t, a, resource.id, { rule: '/p' });
    const res = await call('GET', `${BASE}/${resource.id}/preset`);
    expect(res.statusCode).toBe(404);
    expectConforms('GET', `${ITEM}/preset`, res);
    expect(res.json()).toEqual({ detail: 'Applied preset not found' });
    expect((await call('GET', `${BASE}/${resource.id}/rules/${rule.id}/preset`)).statusCode).toBe(404);
    expect((await call('GET', `${BASE}/${resource.id}/rules/999999/preset`)).json()).toEqual({ detail: 'Rule not found' });
  });
});

describe('delete', () => {
  it('an active resource cannot be deleted (400, errors list); inactive: 204, with its rules', async () => {
    const resource = await createResource(t, a);
    await createRule(t, a, resource.id, { rule: '/x' });
    const refused = await call('DELETE', `${BASE}/${resource.id}`);
    expect(refused.statusCode).toBe(400);
    expectConforms('DELETE', ITEM, refused);
    expect(refused.json()).toEqual({ errors: ['The CDN resource is active: deactivate it (active: false) before deleting it'] });
    await call('PATCH', `${BASE}/${resource.id}`, { active: false });
    expect((await call('DELETE', `${BASE}/${resource.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${BASE}/${resource.id}`)).statusCode).toBe(404);
    const rules = await t.db.kysely.selectFrom('cdn_resource_rules').select('id').where('resource_id', '=', resource.id).execute();
    expect(rules).toEqual([]);
  });
});

describe('the WAAP link', () => {
  it('lists the cnames of resources whose waap option is on, and tells listeners of changes', async () => {
    // The product as the WAAP product would hold it (app.ts wires it), over the same database.
    const cdn = createCdn({ db: t.db, clock: t.clock, config: loadConfig({}, { memory: true }) });
    const c = await t.account();
    const principal: Principal = { kind: 'client', clientId: c.clientId, userId: c.userId, role: 'Administrators', tokenId: 0 };
    const changes: unknown[] = [];
    const stop = cdn.onWaapChange((change) => void changes.push(change));
    const group = await createGroup(t, c);
    const on = (await cdn.resources.create(principal, { cname: uniqueHost(), originGroup: group.id, options: { waap: { enabled: true, value: true } } }))
      .resource;
    await createResource(t, c, { originGroup: group.id, options: { waap: { enabled: true, value: false } } });
    expect(await cdn.waapDomains(c.clientId)).toEqual([{ resourceId: on.id, cname: on.cname, secondaryHostnames: [], apiDomain: false }]);
    await cdn.resources.update(principal, on.id, { options: { waap: { enabled: false, value: true } } });
    expect(await cdn.waapDomains(c.clientId)).toEqual([]);
    await cdn.resources.update(principal, on.id, { active: false, options: { waap: { enabled: true, value: true } } });
    await cdn.resources.delete(principal, on.id);
    stop();
    expect(changes).toEqual([
      { clientId: c.clientId, resourceId: on.id, cname: on.cname, enabled: true },
      { clientId: c.clientId, resourceId: on.id, cname: on.cname, enabled: false },
      { clientId: c.clientId, resourceId: on.id, cname: on.cname, enabled: true },
      { clientId: c.clientId, resourceId: on.id, cname: on.cname, enabled: false },
    ]);
  });
});

describe('tenancy, access and quota', () => {
  it("another client's resource is a 404 for every operation, and absent from its list", async () => {
    const resource = await createResource(t, a);
    const url = `${BASE}/${resource.id}`;
    for (const [method, path, body] of [
      ['GET', url, undefined],
      ['PUT', url, { originGroup: resource.originGroup }],
      ['PATCH', url, { name: 'x' }],
      ['DELETE', url, undefined],
      ['GET', `${url}/shielding_v2`, undefined],
      ['PUT', `${url}/shielding_v2`, { shielding_pop: null }],
      ['GET', `${url}/rules`, undefined],
      ['POST', `${url}/purge`, { paths: [] }],
    ] as const) {
      const res = await call(method, path, body, b);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toEqual({ detail: 'CDN resource not found' });
    }
    expect((await call('GET', BASE, undefined, b)).json().map((r: { id: number }) => r.id)).not.toContain(resource.id);
  });

  it('401 without a token; a read-only user reads but cannot write (403)', async () => {
    expect((await t.request('GET', BASE)).statusCode).toBe(401);
    const reader = await t.account({ role: 'Users' });
    expect((await call('GET', BASE, undefined, reader)).statusCode).toBe(200);
    expect((await call('POST', BASE, { cname: uniqueHost(), origin: 'origin.example.com' }, reader)).statusCode).toBe(403);
  });

  it(`a client has at most ${QUOTAS.resources} resources`, async () => {
    const c = await t.account();
    const group = await createGroup(t, c);
    const now = Date.now();
    const row = (i: number) => ({
      client_id: c.clientId,
      cname: `quota-${c.clientId}-${i}.example.com`,
      name: null,
      description: '',
      origin_group_id: group.id,
      origin_protocol: 'HTTP',
      active: 1,
      secondary_hostnames: '[]',
      ssl_enabled: 0,
      ssl_data: null,
      proxy_ssl_enabled: 0,
      proxy_ssl_ca: null,
      proxy_ssl_data: null,
      primary_resource: null,
      waap_api_domain_enabled: 0,
      options: '{}',
      shielding_pop: null,
      created_at: now,
      updated_at: now,
    });
    const rows = Array.from({ length: QUOTAS.resources }, (_, i) => row(i));
    for (let i = 0; i < rows.length; i += 100)
      await t.db.kysely
        .insertInto('cdn_resources')
        .values(rows.slice(i, i + 100))
        .execute();
    const res = await call('POST', BASE, { cname: uniqueHost(), originGroup: group.id }, c);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/500 CDN resources/);
  });
});
