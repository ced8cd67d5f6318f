// L7 policies and rules through HTTP: created, changed and deleted through tasks (the client reads
// `l7polices`, sic, and `l7rules`), ordered by position, refused on listeners that do not read HTTP,
// redirects checked; a pool a policy sends traffic to cannot go; another client's are not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let lb: string;
let http: string;
let tcp: string;
let pool: string;
const R = 76;
const policies = () => `/cloud/v1/l7policies/${f.project}/${R}`;
const made = async (url: string, body: unknown) => (await f.finished(await f.req('POST', url, body))).created_resources as Record<string, string[]>;

beforeAll(async () => {
  f = await cloudFixture();
  const created = await made(`/cloud/v1/loadbalancers/${f.project}/${R}`, {
    name: 'l7-lb',
    listeners: [
      { name: 'http', protocol: 'HTTP', protocol_port: 80 },
      { name: 'tcp', protocol: 'TCP', protocol_port: 5432 },
    ],
  });
  [lb, [http, tcp]] = [created.loadbalancers[0], created.listeners];
  pool = (await made(`/cloud/v1/lbpools/${f.project}/${R}`, { load_balancer_id: lb, name: 'api', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN' })).pools[0];
});
afterAll(async () => f.close());

describe('L7 policies', () => {
  it('creates policies through tasks and keeps them in position order', async () => {
    const res = await f.req('POST', policies(), { listener_id: http, name: 'to-api', action: 'REDIRECT_TO_POOL', redirect_pool_id: pool, tags: ['api'] });
    expectConforms('POST', '/cloud/v1/l7policies/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_l7policy', created_resources: { l7polices: [res.json().id] } });
    const first = await made(policies(), { listener_id: http, name: 'block', action: 'REJECT', position: 1 });
    await made(policies(), {
      listener_id: http,
      name: 'moved',
      action: 'REDIRECT_TO_URL',
      redirect_url: 'https://example.com/new',
      redirect_http_code: 301,
      position: 99,
    });
    const list = await f.req('GET', policies());
    expectConforms('GET', '/cloud/v1/l7policies/{project_id}/{region_id}', list);
    expect(list.json().results.map((p: any) => [p.name, p.position])).toEqual([
      ['block', 1],
      ['to-api', 2],
      ['moved', 3],
    ]);
    const got = await f.req('GET', `${policies()}/${res.json().id}`);
    expectConforms('GET', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}', got);
    expect(got.json()).toMatchObject({
      listener_id: http,
      action: 'REDIRECT_TO_POOL',
      redirect_pool_id: pool,
      tags: ['api'],
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
      rules: [],
    });
    await f.finished(await f.req('DELETE', `${policies()}/${first.l7polices[0]}`));
    expect((await f.req('GET', policies())).json().results.map((p: any) => [p.name, p.position])).toEqual([
      ['to-api', 1],
      ['moved', 2],
    ]);
  });

  it('refuses policies on listeners that do not read HTTP, and bad redirects, storing nothing', async () => {
    const before = (await f.req('GET', policies())).json().count;
    const cases: [Record<string, unknown>, string][] = [
      [{ listener_id: tcp, action: 'REJECT' }, 'listener_id'],
      [{ listener_id: '00000000-0000-4000-8000-000000000000', action: 'REJECT' }, 'listener_id'],
      [{ listener_id: http, action: 'REDIRECT_TO_URL', redirect_url: 'ftp://example.com' }, 'redirect_url'],
      [{ listener_id: http, action: 'REDIRECT_PREFIX', redirect_prefix: 'not a url' }, 'redirect_prefix'],
      [{ listener_id: http, action: 'REDIRECT_TO_POOL', redirect_pool_id: '00000000-0000-4000-8000-000000000000' }, 'redirect_pool_id'],
      [{ listener_id: http, action: 'REDIRECT_TO_URL', redirect_url: 'https://example.com', redirect_http_code: 304 }, 'redirect_http_code'],
      [{ listener_id: http, action: 'REDIRECT_TO_URL' }, 'redirect_url'],
      [{ listener_id: http, action: 'REJECT', redirect_pool_id: pool }, 'redirect_pool_id'],
    ];
    for (const [body, field] of cases) {
      const res = await f.req('POST', policies(), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(body)).toEqual(['body', field]);
    }
    expect((await f.req('GET', policies())).json().count).toBe(before);
  });

  it('updates a policy through a task; a pool it sends traffic to cannot be deleted', async () => {
    const id = (await f.req('GET', policies())).json().results.find((p: any) => p.name === 'to-api').id;
    const refused = await f.req('DELETE', `/cloud/v1/lbpools/${f.project}/${R}/${pool}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain(id);
    const noop = await f.req('PATCH', `${policies()}/${id}`, { action: 'REDIRECT_TO_POOL', redirect_pool_id: pool });
    expectConforms('PATCH', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id });
    const changed = await f.req('PATCH', `${policies()}/${id}`, { action: 'REDIRECT_PREFIX', redirect_prefix: 'https://api.example.com', position: 2 });
    expect((await f.finished(changed)).task_type).toBe('update_l7policy');
    expect((await f.req('GET', `${policies()}/${id}`)).json()).toMatchObject({
      action: 'REDIRECT_PREFIX',
      redirect_pool_id: null,
      redirect_http_code: 302,
      position: 2,
    });
    expect((await f.req('GET', policies())).json().results.map((p: any) => p.name)).toEqual(['moved', 'to-api']);
    await f.finished(await f.req('DELETE', `/cloud/v1/lbpools/${f.project}/${R}/${pool}`));
  });
});

describe('L7 rules', () => {
  it('adds, reads, replaces and deletes rules through tasks', async () => {
    const policy = (await f.req('GET', policies())).json().results[0].id;
    const rules = `${policies()}/${policy}/rules`;
    const res = await f.req('POST', rules, { type: 'PATH', compare_type: 'STARTS_WITH', value: '/api', tags: ['v1'] });
    expectConforms('POST', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_l7rule', created_resources: { l7rules: [res.json().id] } });
    await made(rules, { type: 'HEADER', key: 'X-Env', compare_type: 'EQUAL_TO', value: 'staging', invert: true });
    const list = await f.req('GET', rules);
    expectConforms('GET', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules', list);
    expect(list.json().results.map((r: any) => [r.type, r.key, r.invert])).toEqual([
      ['PATH', null, false],
      ['HEADER', 'X-Env', true],
    ]);
    const got = await f.req('GET', `${rules}/${res.json().id}`);
    expectConforms('GET', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id}', got);
    expect(got.json()).toMatchObject({ type: 'PATH', value: '/api', tags: ['v1'], provisioning_status: 'ACTIVE' });
    expect((await f.req('GET', `${policies()}/${policy}`)).json().rules.map((r: any) => r.id)).toContain(res.json().id);
    const replaced = await f.req('PUT', `${rules}/${res.json().id}`, { compare_type: 'REGEX', value: '^/api/v[0-9]+' });
    expectConforms('PUT', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id}', replaced);
    expect((await f.finished(replaced)).task_type).toBe('put_l7rule');
    expect((await f.req('GET', `${rules}/${res.json().id}`)).json()).toMatchObject({ compare_type: 'REGEX', value: '^/api/v[0-9]+', type: 'PATH' });
    const removed = await f.req('DELETE', `${rules}/${res.json().id}`);
    expectConforms('DELETE', '/cloud/v1/l7policies/{project_id}/{region_id}/{l7policy_id}/rules/{l7rule_id}', removed);
    await f.finished(removed);
    expect((await f.req('GET', `${rules}/${res.json().id}`)).statusCode).toBe(404);
  });

  it('refuses rules that do not hold together, with the field at fault', async () => {
    const policy = (await f.req('GET', policies())).json().results[0].id;
    const rules = `${policies()}/${policy}/rules`;
    const before = (await f.req('GET', rules)).json().count;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'COOKIE', compare_type: 'EQUAL_TO', value: 'x' }, 'key'],
      [{ type: 'PATH', compare_type: 'EQUAL_TO', value: '/x', key: 'k' }, 'key'],
      [{ type: 'FILE_TYPE', compare_type: 'CONTAINS', value: 'jpg' }, 'compare_type'],
      [{ type: 'PATH', compare_type: 'REGEX', value: '(' }, 'value'],
      [{ type: 'SSL_CONN_HAS_CERT', compare_type: 'EQUAL_TO', value: 'yes' }, 'value'],
      [{ type: 'HOST_NAME', compare_type: 'EQUAL_TO', value: '' }, 'value'],
    ];
    for (const [body, field] of cases) {
      const res = await f.req('POST', rules, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(body)).toEqual(['body', field]);
    }
    expect((await f.req('GET', rules)).json().count).toBe(before);
    expect((await f.req('GET', `${policies()}/no-such-policy/rules`)).statusCode).toBe(404);
  });

  it('goes with its listener, and is not found by another client', async () => {
    const policy = (await f.req('GET', policies())).json().results[0].id;
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    expect((await f.req('GET', `/cloud/v1/l7policies/${project}/${R}/${policy}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('DELETE', `/cloud/v1/l7policies/${project}/${R}/${policy}`, undefined, stranger)).statusCode).toBe(404);
    expect(
      (await f.req('POST', `/cloud/v1/l7policies/${project}/${R}/${policy}/rules`, { type: 'PATH', compare_type: 'EQUAL_TO', value: '/x' }, stranger))
        .statusCode,
    ).toBe(404);
    await f.finished(await f.req('DELETE', `/cloud/v1/lblisteners/${f.project}/${R}/${http}`));
    expect((await f.req('GET', `${policies()}/${policy}`)).statusCode).toBe(404);
    expect((await f.req('GET', policies())).json().count).toBe(0);
  });
});
