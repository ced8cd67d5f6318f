// Load balancers through HTTP: a balancer made in one task with its VIP, floating IP, listeners, pools,
// members and monitor; statuses moving through tasks (manual mode); every refusal naming its field and
// storing nothing; updates, failover, resize, metrics and status trees; delete taking everything below;
// the quota failing a task; tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let net: { networkId: string; subnetId: string };
let vm: string;
let vmAddress: string;
const R = 76;
const lbs = () => `/cloud/v1/loadbalancers/${f.project}/${R}`;
const get = async (id: string) => (await f.req('GET', `${lbs()}/${id}`)).json();
const created = async (body: Record<string, unknown>) => (await f.finished(await f.req('POST', lbs(), body))).created_resources;
const advance = (taskId: string) => f.t.request('POST', '/_edgeplane/tasks/advance', { headers: f.t.operator, body: { task_id: taskId, to: 'end' } });

beforeAll(async () => {
  f = await cloudFixture();
  net = await f.networkWithSubnet('lb-net', '10.20.0.0/24');
  vm = await f.instance('backend-1', { interfaces: [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }] });
  vmAddress = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}`)).json().addresses['lb-net'][0].addr;
});
afterAll(async () => f.close());

const webListener = (members: Record<string, unknown>[]) => ({
  name: 'http',
  protocol: 'HTTP',
  protocol_port: 80,
  pools: [
    {
      name: 'web',
      protocol: 'HTTP',
      lb_algorithm: 'ROUND_ROBIN',
      healthmonitor: { type: 'HTTP', delay: 10, timeout: 5, max_retries: 3, url_path: '/health' },
      members,
    },
  ],
});

describe('load balancers', () => {
  it('lists its flavors, with prices when asked', async () => {
    const flavors = await f.req('GET', `/cloud/v1/lbflavors/${f.project}/${R}`);
    expectConforms('GET', '/cloud/v1/lbflavors/{project_id}/{region_id}', flavors);
    expect(flavors.json().results.map((x: any) => x.flavor_id)).toEqual(['lb1-1-2', 'lb1-2-4', 'lb1-4-8', 'lb1-8-16']);
    const priced = await f.req('GET', `/cloud/v1/lbflavors/${f.project}/${R}?include_prices=true`);
    expectConforms('GET', '/cloud/v1/lbflavors/{project_id}/{region_id}', priced);
    expect(priced.json().results[0]).toMatchObject({ currency_code: 'EUR', price_per_month: expect.any(Number), price_status: 'show' });
  });

  it('makes a private balancer with its floating IP, listener, pool, members and monitor in one task', async () => {
    const res = await f.req('POST', lbs(), {
      name: 'front',
      vip_network_id: net.networkId,
      floating_ip: { source: 'new' },
      tags: { env: 'test' },
      listeners: [
        webListener([
          { address: vmAddress, protocol_port: 8080, instance_id: vm },
          { address: '10.20.0.200', protocol_port: 8080, subnet_id: net.subnetId },
        ]),
      ],
    });
    expectConforms('POST', '/cloud/v1/loadbalancers/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task.task_type).toBe('create_loadbalancer');
    const made = task.created_resources;
    expect(made).toMatchObject({
      loadbalancers: [res.json().id],
      listeners: [expect.any(String)],
      pools: [expect.any(String)],
      healthmonitors: [expect.any(String)],
      floatingips: [expect.any(String)],
    });
    expect(made.members).toHaveLength(2);
    const got = await f.req('GET', `${lbs()}/${res.json().id}`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}', got);
    const lb = got.json();
    expect(lb).toMatchObject({
      name: 'front',
      provisioning_status: 'ACTIVE',
      flavor: { flavor_id: 'lb1-1-2' },
      listeners: [{ id: made.listeners[0] }],
      tags_v2: [{ key: 'env', value: 'test' }],
    });
    expect(lb.vip_address).toMatch(/^10\.20\.0\.\d+$/);
    expect(lb.floating_ips).toMatchObject([{ id: made.floatingips[0], fixed_ip_address: lb.vip_address, port_id: lb.vip_port_id, status: 'ACTIVE' }]);
    // The second member's address answers nothing: the monitor finds it down, so the balancer is DEGRADED.
    expect(lb.operating_status).toBe('DEGRADED');
    const status = await f.req('GET', `${lbs()}/${lb.id}/status`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/status', status);
    const pool = status.json().listeners[0].pools[0];
    expect(pool).toMatchObject({ operating_status: 'DEGRADED', health_monitor: { type: 'HTTP', operating_status: 'ONLINE' } });
    expect(pool.members.map((m: any) => [m.address, m.operating_status])).toEqual([
      [vmAddress, 'ONLINE'],
      ['10.20.0.200', 'ERROR'],
    ]);
    const all = await f.req('GET', `${lbs()}/status`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}/status', all);
    expect(all.json().results.map((s: any) => s.id)).toContain(lb.id);
    const fips = await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}`);
    expectConforms('GET', '/cloud/v1/floatingips/{project_id}/{region_id}', fips);
    expect(fips.json().results.find((x: any) => x.id === made.floatingips[0])).toMatchObject({ instance: null, loadbalancer: { id: lb.id } });
    // The VIP holds an address of the subnet: the network cannot go while the balancer is there.
    const subnet = (await f.req('GET', `/cloud/v1/subnets/${f.project}/${R}/${net.subnetId}`)).json();
    expect(subnet.available_ips).toBe(subnet.total_ips - 2);
    const refused = await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${net.networkId}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain(`load balancer ${lb.id}`);
  });

  it('moves provisioning and operating status through its tasks, one change at a time', async () => {
    await f.setMode('manual', 'create_loadbalancer');
    const res = await f.req('POST', lbs(), { name: 'slow' });
    const id = res.json().id;
    expect(await get(id)).toMatchObject({ provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', task_id: res.json().tasks[0] });
    const early = await f.req('POST', `/cloud/v1/lblisteners/${f.project}/${R}`, { load_balancer_id: id, name: 'early', protocol: 'TCP', protocol_port: 22 });
    expect(early.statusCode).toBe(409);
    await advance(res.json().tasks[0]);
    await f.setMode('instant', 'create_loadbalancer');
    expect(await get(id)).toMatchObject({ provisioning_status: 'ACTIVE', operating_status: 'ONLINE', task_id: null });
    await f.setMode('manual', 'create_lblistener');
    const listener = await f.req('POST', `/cloud/v1/lblisteners/${f.project}/${R}`, { load_balancer_id: id, name: 'tcp', protocol: 'TCP', protocol_port: 22 });
    expect(await get(id)).toMatchObject({ provisioning_status: 'PENDING_UPDATE', task_id: listener.json().tasks[0] });
    expect((await f.req('GET', `/cloud/v1/lblisteners/${f.project}/${R}/${listener.json().id}`)).json()).toMatchObject({
      provisioning_status: 'PENDING_CREATE',
      operating_status: 'OFFLINE',
    });
    const busy = await f.req('POST', `${lbs()}/${id}/resize`, { flavor: 'lb1-2-4' });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().message).toMatch(/busy with task/);
    await advance(listener.json().tasks[0]);
    await f.setMode('instant', 'create_lblistener');
    expect(await get(id)).toMatchObject({ provisioning_status: 'ACTIVE', listeners: [{ id: listener.json().id }] });
    expect((await f.task(listener.json().tasks[0])).created_resources.listeners).toEqual([listener.json().id]);
  });

  it('refuses bad input with the field at fault, and stores nothing', async () => {
    const before = (await f.req('GET', lbs())).json().count;
    const cases: [Record<string, unknown>, (string | number)[], number?][] = [
      [{ name: 'x' }, ['name']],
      [{ name: 'bad-flavor', flavor: 'lb9-9-9' }, ['flavor']],
      [{ name: 'subnet-alone', vip_subnet_id: net.subnetId }, ['vip_subnet_id']],
      [{ name: 'six', vip_network_id: net.networkId, vip_ip_family: 'ipv6' }, ['vip_ip_family']],
      [{ name: 'public-fip', floating_ip: { source: 'new' } }, ['floating_ip']],
      [{ name: 'no-such-net', vip_network_id: '00000000-0000-4000-8000-0000000000aa' }, ['vip_network_id'], 400],
      [{ name: 'no-such-port', vip_port_id: '00000000-0000-4000-8000-0000000000ab' }, ['vip_port_id']],
      [
        {
          name: 'two-ports',
          listeners: [
            { name: 'l-a', protocol: 'TCP', protocol_port: 80 },
            { name: 'l-b', protocol: 'HTTP', protocol_port: 80 },
          ],
        },
        ['listeners', 1, 'protocol_port'],
      ],
      [{ name: 'bad-proto', listeners: [{ name: 'l-a', protocol: 'SMTP', protocol_port: 25 }] }, ['listeners', 0, 'protocol']],
      [{ name: 'no-cert', listeners: [{ name: 'l-a', protocol: 'TERMINATED_HTTPS', protocol_port: 443 }] }, ['listeners', 0, 'secret_id']],
      [
        {
          name: 'udp-to-http',
          listeners: [{ name: 'l-a', protocol: 'UDP', protocol_port: 53, pools: [{ name: 'pool', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN' }] }],
        },
        ['listeners', 0, 'pools', 0, 'protocol'],
      ],
      [
        {
          name: 'slow-probe',
          listeners: [
            {
              name: 'l-a',
              protocol: 'TCP',
              protocol_port: 80,
              pools: [{ name: 'pool', protocol: 'TCP', lb_algorithm: 'SOURCE_IP', healthmonitor: { type: 'TCP', delay: 5, timeout: 5, max_retries: 2 } }],
            },
          ],
        },
        ['listeners', 0, 'pools', 0, 'healthmonitor', 'timeout'],
      ],
      [
        { name: 'off-subnet', vip_network_id: net.networkId, listeners: [webListener([{ address: '192.168.9.9', protocol_port: 80 }])] },
        ['listeners', 0, 'pools', 0, 'members', 0, 'address'],
      ],
      [
        { name: 'not-its-ip', vip_network_id: net.networkId, listeners: [webListener([{ address: '10.20.0.99', protocol_port: 80, instance_id: vm }])] },
        ['listeners', 0, 'pools', 0, 'members', 0, 'address'],
      ],
      [
        { name: 'public-member', listeners: [webListener([{ address: '10.20.0.99', protocol_port: 80 }])] },
        ['listeners', 0, 'pools', 0, 'members', 0, 'subnet_id'],
      ],
    ];
    for (const [body, loc, status = 400] of cases) {
      const res = await f.req('POST', lbs(), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json(), JSON.stringify(body)).toMatchObject({ exception_class: 'BadRequestError', errors: [{ loc: ['body', ...loc] }] });
    }
    expect((await f.req('GET', lbs())).json().count).toBe(before);
    expect((await f.req('GET', `/cloud/v1/lblisteners/${f.project}/${R}`)).json().results.map((l: any) => l.name)).not.toContain('l-a');
  });

  it('updates at once (v1) and through a task (v2); fails over, resizes, reports metrics', async () => {
    const id = (await created({ name: 'tuned' })).loadbalancers[0];
    const v1 = await f.req('PATCH', `${lbs()}/${id}`, {
      name: 'tuned-2',
      tags: { team: 'a' },
      logging: { enabled: true, destination_region_id: 38, topic_name: 'lb-logs' },
    });
    expectConforms('PATCH', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}', v1);
    expect(v1.json()).toMatchObject({ name: 'tuned-2', tags_v2: [{ key: 'team', value: 'a' }], logging: { enabled: true, destination_region_id: 38 } });
    expect((await f.req('PATCH', `${lbs()}/${id}`, { logging: { enabled: true, destination_region_id: 999 } })).json().errors[0].loc).toEqual([
      'body',
      'logging',
      'destination_region_id',
    ]);
    const noop = await f.req('PATCH', `/cloud/v2/loadbalancers/${f.project}/${R}/${id}`, { name: 'tuned-2' });
    expectConforms('PATCH', '/cloud/v2/loadbalancers/{project_id}/{region_id}/{load_balancer_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id });
    const off = await f.req('PATCH', `/cloud/v2/loadbalancers/${f.project}/${R}/${id}`, { admin_state_up: false });
    expect((await f.finished(off)).task_type).toBe('update_loadbalancer');
    expect(await get(id)).toMatchObject({ admin_state_up: false, operating_status: 'OFFLINE', provisioning_status: 'ACTIVE' });
    const failover = await f.req('POST', `${lbs()}/${id}/failover`, {});
    expectConforms('POST', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/failover', failover);
    expect((await f.finished(failover)).task_type).toBe('failover_loadbalancer');
    const resize = await f.req('POST', `${lbs()}/${id}/resize`, { flavor: 'lb1-4-8' });
    expectConforms('POST', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/resize', resize);
    await f.finished(resize);
    expect((await get(id)).flavor).toEqual({ flavor_id: 'lb1-4-8', flavor_name: 'lb1-4-8', vcpus: 4, ram: 8192 });
    expect((await f.req('POST', `${lbs()}/${id}/resize`, { flavor: 'lb1-4-8' })).json().errors[0].loc).toEqual(['body', 'flavor']);
    await f.finished(await f.req('PATCH', `/cloud/v2/loadbalancers/${f.project}/${R}/${id}`, { admin_state_up: true }));
    await f.t.clock.advance(30 * 60_000);
    const metrics = await f.req('POST', `${lbs()}/${id}/metrics`, { time_interval: 1, time_unit: 'hour' });
    expectConforms('POST', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/metrics', metrics);
    expect(metrics.json().count).toBeGreaterThanOrEqual(6);
    expect(metrics.json().results.at(-1)).toMatchObject({ cpu_util: expect.any(Number), network_pps_ingress: expect.any(Number) });
    expect((await f.req('POST', `${lbs()}/${id}/metrics`, { time_interval: 61, time_unit: 'hour' })).statusCode).toBe(400);
    const stats = await f.req('GET', `${lbs()}/${id}?show_stats=true`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}', stats);
    expect(stats.json().stats.total_connections).toBeGreaterThan(0);
  });

  it('reports what a new balancer would exceed, and serves tags through the metadata calls', async () => {
    const fits = await f.req('POST', `${lbs()}/check_limits`, { floating_ip: { source: 'new' }, vip_network_id: net.networkId });
    expectConforms('POST', '/cloud/v1/loadbalancers/{project_id}/{region_id}/check_limits', fits);
    expect(fits.json()).toEqual({});
    const count = (await f.req('GET', lbs())).json().count;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { loadbalancer_count_limit: count } });
    try {
      expect((await f.req('POST', `${lbs()}/check_limits`, {})).json()).toEqual({
        loadbalancer_count_limit: count,
        loadbalancer_count_requested: 1,
        loadbalancer_count_usage: count,
      });
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { loadbalancer_count_limit: 20 } });
    }
    const id = (await f.req('GET', `${lbs()}?name=tuned-2`)).json().results[0].id;
    expect((await f.req('POST', `${lbs()}/${id}/metadata`, { owner: 'ops' })).statusCode).toBe(204);
    const tags = await f.req('GET', `${lbs()}/${id}/metadata`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/metadata', tags);
    expect(tags.json().results.map((t: any) => t.key)).toEqual(['team', 'owner']);
    const v2 = `/cloud/v2/loadbalancers/${f.project}/${R}/${id}`;
    const replaced = await f.req('PUT', `${v2}/metadata`, { env: 'prod' });
    expectConforms('PUT', '/cloud/v2/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/metadata', replaced);
    expect((await f.finished(replaced)).task_type).toBe('replace_lbmetadata');
    expect((await f.finished(await f.req('POST', `${v2}/metadata`, { tier: 'web' }))).task_type).toBe('update_lbmetadata');
    expect((await get(id)).tags_v2.map((t: any) => t.key)).toEqual(['env', 'tier']);
    const removed = await f.req('DELETE', `${v2}/metadata_item?key=env`);
    expectConforms('DELETE', '/cloud/v2/loadbalancers/{project_id}/{region_id}/{load_balancer_id}/metadata_item', removed);
    expect((await f.finished(removed)).task_type).toBe('delete_lbmetadata');
    expect((await get(id)).tags_v2.map((t: any) => t.key)).toEqual(['tier']);
    expect((await f.req('DELETE', `${v2}/metadata_item?key=env`)).statusCode).toBe(404);
    expect((await f.req('DELETE', `${v2}/metadata_item`)).json().errors[0].loc).toEqual(['query', 'key']);
  });

  it('lists with filters and order', async () => {
    const list = await f.req('GET', `${lbs()}?order_by=name.desc&provisioning_status=ACTIVE`);
    expectConforms('GET', '/cloud/v1/loadbalancers/{project_id}/{region_id}', list);
    const names = list.json().results.map((b: any) => b.name);
    expect(names).toEqual([...names].sort().reverse());
    expect((await f.req('GET', `${lbs()}?assigned_floating=true`)).json().results.map((b: any) => b.name)).toEqual(['front']);
    expect((await f.req('GET', `${lbs()}?operating_status=DEGRADED`)).json().results.map((b: any) => b.name)).toEqual(['front']);
    expect((await f.req('GET', `${lbs()}?tag_key_value=${encodeURIComponent('{"env":"test"}')}`)).json().count).toBe(1);
    expect((await f.req('GET', `${lbs()}?order_by=size.asc`)).statusCode).toBe(400);
  });

  it('deletes a balancer with everything in it; its floating IP stays, unassigned; then the network can go', async () => {
    const front = (await f.req('GET', `${lbs()}?name=front`)).json().results[0];
    const fipId = front.floating_ips[0].id;
    const res = await f.req('DELETE', `${lbs()}/${front.id}`);
    expectConforms('DELETE', '/cloud/v1/loadbalancers/{project_id}/{region_id}/{load_balancer_id}', res);
    expect((await f.finished(res)).task_type).toBe('delete_loadbalancer');
    expect((await f.req('GET', `${lbs()}/${front.id}`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/lblisteners/${f.project}/${R}?load_balancer_id=${front.id}`)).json().count).toBe(0);
    expect((await f.req('GET', `/cloud/v1/lbpools/${f.project}/${R}?load_balancer_id=${front.id}`)).json().count).toBe(0);
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}/${fipId}`)).json()).toMatchObject({ status: 'DOWN', port_id: null });
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}`));
    await f.finished(await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${net.networkId}`));
  });
});

describe('quotas and tenancy', () => {
  it('fails a create over the load balancer quota and leaves nothing', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json();
    expect(usage).toMatchObject({ loadbalancer_count_limit: 20, loadbalancer_count_usage: expect.any(Number) });
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, {
      headers: f.t.operator,
      body: { loadbalancer_count_limit: usage.loadbalancer_count_usage },
    });
    try {
      const over = await f.req('POST', lbs(), { name: 'over', listeners: [{ name: 'over-listener', protocol: 'TCP', protocol_port: 5000 }] });
      const task = await f.task(over.json().tasks[0]);
      expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
      expect(task.error).toMatch(/load balancers: requested 1/);
      expect((await f.req('GET', `${lbs()}/${over.json().id}`)).statusCode).toBe(404);
      expect((await f.req('GET', `/cloud/v1/lblisteners/${f.project}/${R}`)).json().results.map((l: any) => l.name)).not.toContain('over-listener');
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { loadbalancer_count_limit: 20 } });
    }
  });

  it('leaves nothing when its create task fails: no VIP, floating IP, listener or member', async () => {
    const spare = await f.networkWithSubnet('spare-net', '10.21.0.0/24');
    const subnet = () => f.req('GET', `/cloud/v1/subnets/${f.project}/${R}/${spare.subnetId}`).then((r) => r.json().available_ips);
    const [ips, fips] = [await subnet(), (await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}`)).json().count];
    await f.t.request('POST', '/_edgeplane/faults', {
      headers: f.t.operator,
      body: { operationId: 'cloud.loadBalancers.create', taskError: 'no capacity', times: 1 },
    });
    const res = await f.req('POST', lbs(), {
      name: 'doomed',
      vip_network_id: spare.networkId,
      floating_ip: { source: 'new' },
      listeners: [
        {
          name: 'doomed-l',
          protocol: 'TCP',
          protocol_port: 25,
          pools: [{ name: 'doomed-p', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', members: [{ address: '10.21.0.9', protocol_port: 25 }] }],
        },
      ],
    });
    expect(await f.task(res.json().tasks[0])).toMatchObject({ state: 'ERROR', error: 'no capacity', created_resources: null });
    expect((await f.req('GET', `${lbs()}/${res.json().id}`)).statusCode).toBe(404);
    expect(await subnet()).toBe(ips);
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}`)).json().count).toBe(fips);
    expect((await f.req('GET', `/cloud/v1/lbpools/${f.project}/${R}`)).json().results.map((p: any) => p.name)).not.toContain('doomed-p');
    await f.finished(await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${spare.networkId}`));
  });

  it("answers 401 without a token and 404 for another client's balancer", async () => {
    const id = (await created({ name: 'mine' })).loadbalancers[0];
    expect((await f.t.request('GET', lbs())).statusCode).toBe(401);
    expect((await f.t.request('POST', lbs(), { body: { name: 'anon' } })).statusCode).toBe(401);
    const stranger = await f.t.account();
    const theirProject = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    const theirs = `/cloud/v1/loadbalancers/${theirProject}/${R}/${id}`;
    for (const [method, url, body] of [
      ['GET', theirs],
      ['DELETE', theirs],
      ['PATCH', theirs, { name: 'stolen' }],
      ['GET', `${theirs}/status`],
      ['POST', `${theirs}/failover`, {}],
    ] as const) {
      expect((await f.req(method, url, body, stranger)).statusCode, `${method} ${url}`).toBe(404);
    }
    const listener = await f.req(
      'POST',
      `/cloud/v1/lblisteners/${theirProject}/${R}`,
      { load_balancer_id: id, name: 'sneaky', protocol: 'TCP', protocol_port: 80 },
      stranger,
    );
    expect(listener.statusCode).toBe(400);
    expect(listener.json().errors[0].loc).toEqual(['body', 'load_balancer_id']);
    expect((await f.req('GET', `${lbs()}/${id}`, undefined, stranger)).statusCode).toBe(404);
    expect((await get(id)).name).toBe('mine');
  });
});
