// Hand-written flows in the official clients' request forms, against whatever serves them (the catalogue
// engine today, a modelled product tomorrow): they assert API behaviour only. And bad input per product:
// the declared status, the product's error body, nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';
import { expectConforms } from '../support/conformance.js';

let t: TestApp;
let me: TestAccount;
let project: number;
const region = 76;
beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
  project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown) => t.request(method, url, { headers: me.headers, body });
const task = async (id: string) => (await call('GET', `/cloud/v1/tasks/${id}`)).json();

describe(`flows in the official clients' forms (${engineName})`, () => {
  it('DNS: a zone with an A and a CNAME record set', async () => {
    const zone = await call('POST', '/dns/v2/zones', { name: 'example.com', contact: 'admin@example.com' });
    expect(zone.statusCode).toBe(200);
    expectConforms('POST', '/dns/v2/zones', zone);
    const a = await call('POST', '/dns/v2/zones/example.com/www.example.com/A', { ttl: 300, resource_records: [{ content: ['192.0.2.10'], enabled: true }] });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({ name: 'www.example.com', type: 'A', ttl: 300 });
    await call('POST', '/dns/v2/zones/example.com/blog.example.com/CNAME', { ttl: 600, resource_records: [{ content: ['www.example.com.'] }] });
    const sets = await call('GET', '/dns/v2/zones/example.com/rrsets');
    expectConforms('GET', '/dns/v2/zones/{zoneName}/rrsets', sets);
    expect(sets.json().total_amount).toBe(2);
    expect(
      sets
        .json()
        .rrsets.map((r: { type: string }) => r.type)
        .sort(),
    ).toEqual(['A', 'CNAME']);
    const read = await call('GET', '/dns/v2/zones/example.com/www.example.com/A');
    expect(read.json().resource_records[0].content).toEqual(['192.0.2.10']);
    expect((await call('DELETE', '/dns/v2/zones/example.com')).statusCode).toBe(200);
    // The zone's record sets went with it.
    expect((await call('GET', '/dns/v2/zones/example.com/www.example.com/A')).statusCode).toBe(404);
  });

  it('CDN: an origin group, a resource using it, a purge', async () => {
    const group = await call('POST', '/cdn/origin_groups', { name: 'origins', sources: [{ source: 'origin.example.com', enabled: true, backup: false }] });
    expect(group.statusCode).toBe(201);
    const resource = await call('POST', '/cdn/resources', { cname: 'cdn.example.com', originGroup: group.json().id, originProtocol: 'HTTPS' });
    expect(resource.statusCode).toBe(201);
    expect(resource.json()).toMatchObject({ cname: 'cdn.example.com', originGroup: group.json().id });
    const purge = await call('POST', `/cdn/resources/${resource.json().id}/purge`, { urls: ['/index.html'] });
    expect(purge.statusCode).toBe(201);
    const listed = await call('GET', '/cdn/resources');
    expect(listed.json().map((r: { cname: string }) => r.cname)).toContain('cdn.example.com');
  });

  it("Cloud: object filters in the query, in the client's dotted form and the bracket form", async () => {
    const base = `/cloud/v3/gpu/baremetal/${project}/${region}/clusters`;
    const dotted = await call('GET', `${base}?created_at.gte=2026-01-01T00:00:00Z&tags.env=prod`);
    expect(dotted.statusCode, dotted.body).toBe(200);
    const bracketed = await call('GET', `${base}?created_at[gte]=2026-01-01T00:00:00Z&created_at[lt]=2027-01-01T00:00:00Z`);
    expect(bracketed.statusCode, bracketed.body).toBe(200);
    // A field the filter does not declare is refused, as a declared closed object.
    const unknown = await call('GET', `${base}?created_at.between=2026`);
    expect(unknown.statusCode).toBe(400);
  });

  it('Cloud: an SSH key', async () => {
    const key = await call('POST', `/cloud/v1/ssh_keys/${project}`, {
      name: 'laptop',
      public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOZA/cuiHmZi65D2YxSsTwNuwGTaXVTZ+u3JRIyTbQlM me@laptop',
    });
    expect(key.statusCode).toBe(201);
    expectConforms('POST', '/cloud/v1/ssh_keys/{project_id}', key);
    const got = await call('GET', `/cloud/v1/ssh_keys/${project}/${key.json().id}`);
    expect(got.json()).toMatchObject({ name: 'laptop' });
    expect((await call('DELETE', `/cloud/v1/ssh_keys/${project}/${key.json().id}`)).statusCode).toBe(204);
    expect((await call('GET', `/cloud/v1/ssh_keys/${project}/${key.json().id}`)).statusCode).toBe(404);
  });

  it('Cloud: a security group through its task, then a rule through its task', async () => {
    // Without `rules` a group gets the reference's template rules; this one starts empty.
    const created = await call('POST', `/cloud/v2/security_groups/${project}/${region}`, { name: 'web', rules: [] });
    expect(created.statusCode).toBe(200);
    const done = await task(created.json().tasks[0]);
    expect(done.state).toBe('FINISHED');
    const groupId = done.created_resources.security_groups[0];
    const group = await call('GET', `/cloud/v1/securitygroups/${project}/${region}/${groupId}`);
    expect(group.statusCode).toBe(200);
    expect(group.json().name).toBe('web');
    const rule = await call('POST', `/cloud/v2/security_groups/${project}/${region}/${groupId}/rules`, {
      direction: 'ingress',
      protocol: 'tcp',
      port_range_min: 443,
      port_range_max: 443,
    });
    expect(rule.statusCode).toBe(200);
    const ruleId = (await task(rule.json().tasks[0])).created_resources.security_group_rules[0];
    // The official client finds a new rule in its group's `security_group_rules`.
    const withRule = await call('GET', `/cloud/v1/securitygroups/${project}/${region}/${groupId}`);
    expectConforms('GET', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}', withRule);
    expect(withRule.json().security_group_rules).toMatchObject([{ id: ruleId, direction: 'ingress', port_range_min: 443 }]);
  });

  it('Cloud: a load balancer and a listener, each through its task', async () => {
    const lb = await call('POST', `/cloud/v1/loadbalancers/${project}/${region}`, { name: 'front', flavor: 'lb1-1-2' });
    const lbTask = await task(lb.json().tasks[0]);
    expect(lbTask.state).toBe('FINISHED');
    const lbId = lbTask.created_resources.loadbalancers[0];
    const listener = await call('POST', `/cloud/v1/lblisteners/${project}/${region}`, {
      name: 'https',
      load_balancer_id: lbId,
      protocol: 'HTTPS',
      protocol_port: 443,
    });
    expect(listener.statusCode).toBe(200);
    const listenerId = (await task(listener.json().tasks[0])).created_resources.listeners[0];
    const got = await call('GET', `/cloud/v1/lblisteners/${project}/${region}/${listenerId}`);
    expect(got.json()).toMatchObject({ name: 'https', protocol: 'HTTPS', protocol_port: 443 });
    const gone = await call('DELETE', `/cloud/v1/loadbalancers/${project}/${region}/${lbId}`);
    expect((await task(gone.json().tasks[0])).state).toBe('FINISHED');
    expect((await call('GET', `/cloud/v1/loadbalancers/${project}/${region}/${lbId}`)).statusCode).toBe(404);
  });

  it('Cloud: a task failure injected by a fault leaves nothing created', async () => {
    await t.request('POST', '/_edgeplane/faults', {
      headers: t.operator,
      body: { operationId: 'cloud.loadBalancers.create', taskError: 'no capacity', times: 1 },
    });
    const lb = await call('POST', `/cloud/v1/loadbalancers/${project}/${region}`, { name: 'doomed', flavor: 'lb1-1-2' });
    const failed = await task(lb.json().tasks[0]);
    expect(failed).toMatchObject({ state: 'ERROR', error: 'no capacity', created_resources: null });
    const list = await call('GET', `/cloud/v1/loadbalancers/${project}/${region}`);
    expect(list.json().results.map((r: { name: string }) => r.name)).not.toContain('doomed');
  });

  it('Cloud: a task failure injected into a catalogue-engine write leaves nothing created either', async () => {
    await t.request('POST', '/_edgeplane/faults', {
      headers: t.operator,
      body: { operationId: 'catalogue.ProfilesHandler.post', taskError: 'no capacity', times: 1 },
    });
    const profile = await call('POST', `/cloud/v1/ddos/profiles/${project}/${region}`, { profile_template: 1, ip_address: '203.0.113.10', fields: [] });
    expect(profile.statusCode, profile.body).toBe(200);
    const failed = await task(profile.json().tasks[0]);
    expect(failed).toMatchObject({ state: 'ERROR', error: 'no capacity', created_resources: null });
    expect((await call('GET', `/cloud/v1/ddos/profiles/${project}/${region}`)).json().count).toBe(0);
  });

  it('S3 storage with a bucket', async () => {
    const storage = await call('POST', '/storage/v4/object_storages', { name: 'assets', location_name: 's-ed1' });
    expect(storage.statusCode).toBe(201);
    const id = storage.json().id;
    const bucket = await call('POST', `/storage/v4/object_storages/${id}/buckets`, { name: 'images' });
    expect(bucket.statusCode).toBe(201);
    const buckets = await call('GET', `/storage/v4/object_storages/${id}/buckets`);
    expect(buckets.json()).toMatchObject({ count: 1, results: [{ name: 'images' }] });
  });

  it('Streaming: a video', async () => {
    const video = await call('POST', '/streaming/videos', { video: { name: 'Launch', description: 'Keynote' } });
    expect(video.statusCode).toBe(200);
    const id = video.json()[0].id;
    const got = await call('GET', `/streaming/videos/${id}`);
    expect(got.json()).toMatchObject({ name: 'Launch' });
    await call('PATCH', `/streaming/videos/${id}`, { name: 'Launch 2026' });
    expect((await call('GET', `/streaming/videos/${id}`)).json().name).toBe('Launch 2026');
  });

  it('FastEdge: a KV store', async () => {
    const store = await call('POST', '/fastedge/v1/kv', { name: 'sessions', comment: 'user sessions' });
    expect(store.statusCode).toBe(200);
    const list = await call('GET', '/fastedge/v1/kv');
    expect(list.json()).toMatchObject({ count: 1, stores: [{ name: 'sessions' }] });
    expect((await call('GET', `/fastedge/v1/kv/${store.json().id}`)).json().comment).toBe('user sessions');
  });
});

describe(`bad input, per product (${engineName})`, () => {
  const cases: [string, string, string, unknown, number, (body: any) => void][] = [
    ['dns', 'POST', '/dns/v2/zones', { name: 42 }, 400, (b) => expect(b.error).toMatch(/name/)],
    ['storage', 'POST', '/storage/v4/object_storages', { name: 1 }, 400, (b) => expect(b.error).toMatch(/location_name.*Field required|name/)],
    ['streaming', 'POST', '/streaming/directories', { name: 7 }, 422, (b) => expect(b.errors.join(' ')).toMatch(/name/)],
    ['fastedge', 'POST', '/fastedge/v1/kv', { name: ['x'] }, 400, (b) => expect(b.error).toMatch(/name/)],
    ['cdn', 'POST', '/cdn/origin_groups', { name: 5 }, 400, (b) => expect(Object.keys(b.errors).length).toBeGreaterThan(0)],
    ['waap', 'POST', '/waap/v1/custom-page-sets', { name: 3 }, 422, (b) => expect(b.errors.length).toBeGreaterThan(0)],
    ['security', 'POST', '/security/sifter/v3/profiles', { name: 3 }, 422, (b) => expect(Array.isArray(b.detail)).toBe(true)],
  ];
  it.each(cases)('%s: %s %s gets the declared status and envelope, and stores nothing', async (_p, method, url, body, status, check) => {
    const before = await t.db.kysely
      .selectFrom('catalogue_records')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await call(method, url, body);
    expect(res.statusCode, res.body).toBe(status);
    check(res.json());
    const after = await t.db.kysely
      .selectFrom('catalogue_records')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('another client gets 404 for a record it does not own, and its lists do not show it', async () => {
    const other = await t.account();
    await call('POST', '/fastedge/v1/secrets', { name: 'mine' });
    const mine = (await call('GET', '/fastedge/v1/secrets')).json().secrets[0];
    expect(mine).toBeDefined();
    const id = (await call('POST', '/dns/v2/network-mappings', { name: 'office', mapping: [] })).json().id;
    expect((await t.request('GET', `/dns/v2/network-mappings/${id}`, { headers: other.headers })).statusCode).toBe(404);
    expect((await t.request('GET', '/fastedge/v1/secrets', { headers: other.headers })).json().count).toBe(0);
    // Another client's cloud project is not found either.
    expect((await t.request('GET', `/cloud/v1/loadbalancers/${project}/${region}`, { headers: other.headers })).statusCode).toBe(404);
  });

  it('needs a token, and a read-only role cannot write', async () => {
    expect((await t.request('GET', '/dns/v2/zones')).statusCode).toBe(401);
    const reader = await t.account({ role: 'Users' });
    expect((await t.request('GET', '/dns/v2/zones', { headers: reader.headers })).statusCode).toBe(200);
    expect((await t.request('POST', '/dns/v2/zones', { headers: reader.headers, body: { name: 'x.example' } })).statusCode).toBe(403);
  });
});
