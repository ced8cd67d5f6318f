// Listeners, pools, members and health monitors of a balancer through HTTP: each change a task that holds
// the balancer; ports unique per transport; pool protocols that suit their listener; members placed on
// subnets the balancer reaches, once each; one monitor per pool; members' health following their
// instances; updates replacing members and monitors; deletes; another client's objects are not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let lb: string;
let net: { networkId: string; subnetId: string };
let other: { networkId: string; subnetId: string };
let vm: string;
let vmAddress: string;
let far: string;
let farAddress: string;
const R = 76;
const listeners = () => `/cloud/v1/lblisteners/${f.project}/${R}`;
const pools = () => `/cloud/v1/lbpools/${f.project}/${R}`;
const made = async (method: string, url: string, body?: unknown) => {
  const task = await f.finished(await f.req(method, url, body));
  return task.created_resources as Record<string, string[]>;
};
const addressOf = async (id: string, network: string) =>
  (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${id}`)).json().addresses[network][0].addr as string;

beforeAll(async () => {
  f = await cloudFixture();
  net = await f.networkWithSubnet('pool-net', '10.30.0.0/24');
  other = await f.networkWithSubnet('far-net', '10.31.0.0/24');
  vm = await f.instance('pool-vm', { interfaces: [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }] });
  far = await f.instance('far-vm', { interfaces: [{ type: 'subnet', network_id: other.networkId, subnet_id: other.subnetId }] });
  [vmAddress, farAddress] = [await addressOf(vm, 'pool-net'), await addressOf(far, 'far-net')];
  lb = (await made('POST', `/cloud/v1/loadbalancers/${f.project}/${R}`, { name: 'pools-lb', vip_network_id: net.networkId })).loadbalancers[0];
});
afterAll(async () => f.close());

describe('listeners', () => {
  it('creates listeners through tasks; a port is taken once per transport', async () => {
    const res = await f.req('POST', listeners(), {
      load_balancer_id: lb,
      name: 'web',
      protocol: 'HTTP',
      protocol_port: 80,
      insert_x_forwarded: true,
      allowed_cidrs: ['10.0.0.1/8', '192.168.0.0/16'],
      connection_limit: -1,
    });
    expectConforms('POST', '/cloud/v1/lblisteners/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_lblistener', created_resources: { listeners: [res.json().id] } });
    const got = await f.req('GET', `${listeners()}/${res.json().id}?show_stats=true`);
    expectConforms('GET', '/cloud/v1/lblisteners/{project_id}/{region_id}/{listener_id}', got);
    expect(got.json()).toMatchObject({
      load_balancer_id: lb,
      protocol: 'HTTP',
      protocol_port: 80,
      connection_limit: 100000,
      allowed_cidrs: ['10.0.0.0/8', '192.168.0.0/16'],
      insert_headers: { 'X-Forwarded-For': 'True' },
      pool_count: 0,
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
      stats: { total_connections: expect.any(Number) },
    });
    const taken = await f.req('POST', listeners(), { load_balancer_id: lb, name: 'web-2', protocol: 'TCP', protocol_port: 80 });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toMatch(/80\/tcp/);
    await made('POST', listeners(), { load_balancer_id: lb, name: 'dns', protocol: 'UDP', protocol_port: 80 });
    const list = await f.req('GET', `${listeners()}?load_balancer_id=${lb}`);
    expectConforms('GET', '/cloud/v1/lblisteners/{project_id}/{region_id}', list);
    expect(list.json().results.map((l: any) => l.name)).toEqual(['web', 'dns']);
  });

  it('refuses fields that do not suit the protocol, and unknown balancers, storing nothing', async () => {
    const before = (await f.req('GET', listeners())).json().count;
    const cases: [Record<string, unknown>, string][] = [
      [{ protocol: 'TCP', protocol_port: 81, insert_x_forwarded: true }, 'insert_x_forwarded'],
      [{ protocol: 'UDP', protocol_port: 81, timeout_client_data: 1000 }, 'timeout_client_data'],
      [{ protocol: 'HTTPS', protocol_port: 81, secret_id: '00000000-0000-4000-8000-000000000001' }, 'secret_id'],
      [{ protocol: 'TCP', protocol_port: 81, user_list: [{ username: 'admin', encrypted_password: '$6$x' }] }, 'user_list'],
      [{ protocol: 'TCP', protocol_port: 81, allowed_cidrs: ['10.0.0.0/33'] }, 'allowed_cidrs'],
      [{ protocol: 'TCP', protocol_port: 0 }, 'protocol_port'],
      [{ protocol: 'TCP', protocol_port: 81, load_balancer_id: '00000000-0000-4000-8000-00000000beef' }, 'load_balancer_id'],
    ];
    for (const [body, field] of cases) {
      const res = await f.req('POST', listeners(), { load_balancer_id: lb, name: 'bad', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc.slice(0, 2), JSON.stringify(body)).toEqual(['body', field]);
    }
    expect((await f.req('GET', listeners())).json().count).toBe(before);
  });

  it('renames at once (v1) and updates through a task (v2), no task when nothing changes', async () => {
    const id = (await made('POST', listeners(), { load_balancer_id: lb, name: 'admin', protocol: 'TCP', protocol_port: 9000 })).listeners[0];
    const renamed = await f.req('PATCH', `${listeners()}/${id}`, { name: 'admin-2' });
    expect(renamed.json()).toMatchObject({ id, name: 'admin-2' });
    const v2 = `/cloud/v2/lblisteners/${f.project}/${R}/${id}`;
    const noop = await f.req('PATCH', v2, { name: 'admin-2' });
    expectConforms('PATCH', '/cloud/v2/lblisteners/{project_id}/{region_id}/{listener_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id });
    expect((await f.finished(await f.req('PATCH', v2, { connection_limit: 500, admin_state_up: false, allowed_cidrs: ['10.1.0.0/16'] }))).task_type).toBe(
      'patch_lblistener',
    );
    expect((await f.req('GET', `${listeners()}/${id}`)).json()).toMatchObject({
      connection_limit: 500,
      admin_state_up: false,
      operating_status: 'OFFLINE',
      allowed_cidrs: ['10.1.0.0/16'],
    });
    expect((await f.req('PATCH', v2, { user_list: [{ username: 'ops', encrypted_password: '$6$x' }] })).json().errors[0].loc).toEqual(['body', 'user_list']);
    const gone = await f.req('DELETE', `${listeners()}/${id}`);
    expectConforms('DELETE', '/cloud/v1/lblisteners/{project_id}/{region_id}/{listener_id}', gone);
    await f.finished(gone);
    expect((await f.req('GET', `${listeners()}/${id}`)).statusCode).toBe(404);
  });
});

describe('pools and members', () => {
  let web: string;
  let pool: string;

  it("creates a listener's default pool with a monitor and members; only one per listener", async () => {
    web = (await f.req('GET', `${listeners()}?name=web`)).json().results[0].id;
    const res = await f.req('POST', pools(), {
      listener_id: web,
      name: 'web-pool',
      protocol: 'HTTP',
      lb_algorithm: 'LEAST_CONNECTIONS',
      session_persistence: { type: 'APP_COOKIE', cookie_name: 'SESSION' },
      healthmonitor: {
        type: 'HTTP',
        delay: 5,
        timeout: 3,
        max_retries: 2,
        http_method: 'GET',
        expected_codes: '200,301-302',
        http_version: '1.1',
        domain_name: 'app.example',
      },
      members: [{ address: vmAddress, protocol_port: 8080, instance_id: vm, weight: 5 }],
    });
    expectConforms('POST', '/cloud/v1/lbpools/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task.created_resources.pools).toEqual([res.json().id]);
    pool = res.json().id;
    const got = await f.req('GET', `${pools()}/${pool}`);
    expectConforms('GET', '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}', got);
    expect(got.json()).toMatchObject({
      listeners: [{ id: web }],
      loadbalancers: [{ id: lb }],
      lb_algorithm: 'LEAST_CONNECTIONS',
      operating_status: 'ONLINE',
      session_persistence: { type: 'APP_COOKIE', cookie_name: 'SESSION' },
      healthmonitor: { type: 'HTTP', expected_codes: '200,301-302', max_retries_down: 3, operating_status: 'ONLINE' },
      members: [{ address: vmAddress, protocol_port: 8080, weight: 5, subnet_id: net.subnetId, operating_status: 'ONLINE' }],
    });
    expect((await f.req('GET', `${listeners()}/${web}`)).json().pool_count).toBe(1);
    const second = await f.req('POST', pools(), { listener_id: web, name: 'web-pool-2', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN' });
    expect(second.statusCode).toBe(409);
    const list = await f.req('GET', `${pools()}?load_balancer_id=${lb}`);
    expectConforms('GET', '/cloud/v1/lbpools/{project_id}/{region_id}', list);
    expect(list.json().results[0].members).toEqual([{ id: expect.any(String) }]);
    const detailed = await f.req('GET', `${pools()}?listener_id=${web}&details=true`);
    expectConforms('GET', '/cloud/v1/lbpools/{project_id}/{region_id}', detailed);
    expect(detailed.json().results[0].members[0]).toMatchObject({ address: vmAddress, operating_status: 'ONLINE' });
  });

  it('refuses pools that do not suit the listener or break the rules, storing nothing', async () => {
    const before = (await f.req('GET', pools())).json().count;
    const dns = (await f.req('GET', `${listeners()}?name=dns`)).json().results[0].id;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ listener_id: dns, protocol: 'TCP' }, ['protocol']],
      [{ protocol: 'HTTP' }, ['listener_id']],
      [{ listener_id: dns, protocol: 'UDP', session_persistence: { type: 'HTTP_COOKIE' } }, ['session_persistence', 'type']],
      [{ load_balancer_id: lb, protocol: 'HTTP', session_persistence: { type: 'APP_COOKIE' } }, ['session_persistence', 'cookie_name']],
      [
        { load_balancer_id: lb, protocol: 'TCP', healthmonitor: { type: 'TCP', delay: 5, timeout: 2, max_retries: 2, url_path: '/x' } },
        ['healthmonitor', 'url_path'],
      ],
      [{ load_balancer_id: lb, protocol: 'TCP', healthmonitor: { type: 'UDP-CONNECT', delay: 5, timeout: 2, max_retries: 2 } }, ['healthmonitor', 'type']],
      [
        { load_balancer_id: lb, protocol: 'HTTP', healthmonitor: { type: 'HTTP', delay: 5, timeout: 2, max_retries: 2, expected_codes: '200-100' } },
        ['healthmonitor', 'expected_codes'],
      ],
      [{ load_balancer_id: lb, protocol: 'TCP', ca_secret_id: '00000000-0000-4000-8000-000000000001' }, ['ca_secret_id']],
      [
        {
          load_balancer_id: lb,
          protocol: 'TCP',
          members: [
            { address: '10.30.0.50', protocol_port: 80 },
            { address: '10.30.0.50', protocol_port: 80 },
          ],
        },
        ['members', 1],
      ],
      [
        { load_balancer_id: lb, protocol: 'TCP', members: [{ address: '10.30.0.50', protocol_port: 80, instance_id: '00000000-0000-4000-8000-00000000dead' }] },
        ['members', 0, 'instance_id'],
      ],
      [{ load_balancer_id: lb, protocol: 'TCP', members: [{ address: 'not-an-ip', protocol_port: 80 }] }, ['members', 0, 'address']],
    ];
    for (const [body, loc] of cases) {
      const res = await f.req('POST', pools(), { name: 'bad-pool', lb_algorithm: 'ROUND_ROBIN', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(body)).toEqual(['body', ...loc]);
    }
    expect((await f.req('GET', pools())).json().count).toBe(before);
  });

  it('adds members where the balancer reaches them, once each; removes them', async () => {
    const add = (body: Record<string, unknown>) => f.req('POST', `${pools()}/${pool}/member`, body);
    const onOtherNet = await add({ address: farAddress, protocol_port: 8080, subnet_id: other.subnetId });
    expectConforms('POST', '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/member', onOtherNet);
    const memberId = (await f.finished(onOtherNet)).created_resources.members[0];
    expect(memberId).toBe(onOtherNet.json().id);
    const dup = await add({ address: farAddress, protocol_port: 8080, subnet_id: other.subnetId });
    expect(dup.statusCode).toBe(409);
    const wrongSubnet = await add({ address: farAddress, protocol_port: 9090, subnet_id: net.subnetId });
    expect(wrongSubnet.json().errors[0].loc).toEqual(['body', 'address']);
    // Routed (L3) members must be on the VIP's network; far-vm is not.
    await f.req('PATCH', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb}`, { preferred_connectivity: 'L3' });
    const unreachable = await add({ address: farAddress, protocol_port: 9090, instance_id: far });
    expect(unreachable.statusCode).toBe(400);
    expect(unreachable.json().errors[0]).toMatchObject({ loc: ['body', 'instance_id'], msg: expect.stringMatching(/L3/) });
    await f.req('PATCH', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb}`, { preferred_connectivity: 'L2' });
    await f.finished(await add({ address: farAddress, protocol_port: 9090, instance_id: far }));
    const removed = await f.req('DELETE', `${pools()}/${pool}/member/${memberId}`);
    expectConforms('DELETE', '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/member/{member_id}', removed);
    await f.finished(removed);
    expect((await f.req('DELETE', `${pools()}/${pool}/member/${memberId}`)).statusCode).toBe(404);
    expect((await f.req('GET', `${pools()}/${pool}`)).json().members.map((m: any) => m.protocol_port)).toEqual([8080, 9090]);
  });

  it('shows a member in ERROR once its instance stops, and the pool DEGRADED', async () => {
    await f.finished(await f.req('POST', `/cloud/v2/instances/${f.project}/${R}/${far}/action`, { action: 'stop' }));
    const got = (await f.req('GET', `${pools()}/${pool}`)).json();
    expect(got.members.map((m: any) => m.operating_status)).toEqual(['ONLINE', 'ERROR']);
    expect(got.operating_status).toBe('DEGRADED');
    expect((await f.req('GET', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb}`)).json().operating_status).toBe('DEGRADED');
    await f.finished(await f.req('POST', `/cloud/v2/instances/${f.project}/${R}/${far}/action`, { action: 'start' }));
    expect((await f.req('GET', `${pools()}/${pool}`)).json().operating_status).toBe('ONLINE');
  });

  it('keeps one monitor per pool: refuses a second, removes it at once', async () => {
    const second = await f.req('POST', `${pools()}/${pool}/healthmonitor`, { type: 'TCP', delay: 5, timeout: 2, max_retries: 2 });
    expect(second.statusCode).toBe(409);
    const removed = await f.req('DELETE', `${pools()}/${pool}/healthmonitor`);
    expect(removed.statusCode).toBe(204);
    expect((await f.req('GET', `${pools()}/${pool}`)).json()).toMatchObject({
      healthmonitor: null,
      members: [{ operating_status: 'NO_MONITOR' }, { operating_status: 'NO_MONITOR' }],
    });
    expect((await f.req('DELETE', `${pools()}/${pool}/healthmonitor`)).statusCode).toBe(404);
    const added = await f.req('POST', `${pools()}/${pool}/healthmonitor`, { type: 'PING', delay: 3, timeout: 1, max_retries: 1 });
    expectConforms('POST', '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}/healthmonitor', added);
    expect((await f.finished(added)).created_resources.healthmonitors).toEqual([added.json().id]);
    expect(
      (await f.req('POST', `${pools()}/${pool}/healthmonitor`, { type: 'HTTP', delay: 3, timeout: 1, max_retries: 1, domain_name: 'x.example' })).statusCode,
    ).toBe(400);
  });

  it('updates through a task, members and monitor given replacing the current ones', async () => {
    const v2 = `/cloud/v2/lbpools/${f.project}/${R}/${pool}`;
    const same = (await f.req('GET', `${pools()}/${pool}`))
      .json()
      .members.map((m: any) => ({ address: m.address, protocol_port: m.protocol_port, weight: m.weight }));
    const noop = await f.req('PATCH', v2, { name: 'web-pool', members: same });
    expectConforms('PATCH', '/cloud/v2/lbpools/{project_id}/{region_id}/{pool_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id: pool });
    const res = await f.req('PATCH', v2, {
      lb_algorithm: 'ROUND_ROBIN',
      members: [{ address: vmAddress, protocol_port: 8443 }],
      healthmonitor: { delay: 10, timeout: 5, max_retries: 3 },
    });
    expect((await f.finished(res)).task_type).toBe('patch_lbpool');
    const got = (await f.req('GET', `${pools()}/${pool}`)).json();
    expect(got).toMatchObject({
      lb_algorithm: 'ROUND_ROBIN',
      healthmonitor: { type: 'PING', delay: 10 },
      members: [{ address: vmAddress, protocol_port: 8443, subnet_id: net.subnetId }],
    });
    expect((await f.req('PATCH', `/cloud/v1/lbpools/${f.project}/${R}/${pool}`, { protocol: 'UDP' })).json().errors[0].loc).toEqual(['body', 'protocol']);
  });

  it('deletes a listener with its default pool when asked, otherwise leaves the pool', async () => {
    const alone = (await made('POST', pools(), { load_balancer_id: lb, name: 'spare', protocol: 'TCP', lb_algorithm: 'SOURCE_IP' })).pools[0];
    const tcp = (await made('POST', listeners(), { load_balancer_id: lb, name: 'tcp-in', protocol: 'TCP', protocol_port: 7000, default_pool_id: alone }))
      .listeners[0];
    expect((await f.req('GET', `${pools()}/${alone}`)).json().listeners).toEqual([{ id: tcp }]);
    await f.finished(await f.req('DELETE', `${listeners()}/${tcp}`));
    expect((await f.req('GET', `${pools()}/${alone}`)).json().listeners).toEqual([]);
    const res = await f.req('DELETE', `${listeners()}/${web}?delete_default_pool=true`);
    await f.finished(res);
    expect((await f.req('GET', `${pools()}/${pool}`)).statusCode).toBe(404);
    const gone = await f.req('DELETE', `${pools()}/${alone}`);
    expectConforms('DELETE', '/cloud/v1/lbpools/{project_id}/{region_id}/{pool_id}', gone);
    await f.finished(gone);
    expect((await f.req('GET', `${pools()}?load_balancer_id=${lb}`)).json().count).toBe(0);
  });

  it('hides listeners and pools from another client', async () => {
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    const dns = (await f.req('GET', `${listeners()}?name=dns`)).json().results[0].id;
    expect((await f.req('GET', `/cloud/v1/lblisteners/${project}/${R}/${dns}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('DELETE', `/cloud/v1/lblisteners/${project}/${R}/${dns}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/lblisteners/${project}/${R}`, undefined, stranger)).json().count).toBe(0);
    const res = await f.req(
      'POST',
      `/cloud/v1/lbpools/${project}/${R}`,
      { listener_id: dns, name: 'theirs', protocol: 'UDP', lb_algorithm: 'ROUND_ROBIN' },
      stranger,
    );
    expect(res.json().errors[0].loc).toEqual(['body', 'listener_id']);
    expect((await f.t.request('GET', listeners())).statusCode).toBe(401);
  });
});
