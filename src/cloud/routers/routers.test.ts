// Routers through HTTP: made with interfaces, a gateway and routes in one task; subnets attached and
// detached at once (one router per subnet, at its gateway address); routes whose next hop is on an
// attached subnet; updates at once and through a task; what cannot be deleted while a router holds it;
// a router letting a balancer reach members at layer 3; the quota; tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let a: { networkId: string; subnetId: string };
let b: { networkId: string; subnetId: string };
const R = 76;
const base = () => `/cloud/v1/routers/${f.project}/${R}`;
const get = async (id: string) => (await f.req('GET', `${base()}/${id}`)).json();
const publicNet = `00000000-0000-4000-8000-${String(R).padStart(12, '0')}`;

beforeAll(async () => {
  f = await cloudFixture();
  a = await f.networkWithSubnet('rt-a', '10.50.0.0/24');
  b = await f.networkWithSubnet('rt-b', '10.51.0.0/24');
});
afterAll(async () => f.close());

describe('routers', () => {
  let router: string;

  it('makes a router with interfaces, a gateway and routes in one task', async () => {
    const before = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json();
    const res = await f.req('POST', base(), {
      name: 'edge',
      interfaces: [{ subnet_id: a.subnetId, type: 'subnet' }],
      external_gateway_info: { type: 'default' },
      routes: [{ destination: '172.16.5.9/16', nexthop: '10.50.0.254' }],
    });
    expectConforms('POST', '/cloud/v1/routers/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_router', created_resources: { routers: [res.json().id] } });
    router = res.json().id;
    const got = await f.req('GET', `${base()}/${router}`);
    expectConforms('GET', '/cloud/v1/routers/{project_id}/{region_id}/{router_id}', got);
    expect(got.json()).toMatchObject({
      name: 'edge',
      status: 'ACTIVE',
      distributed: false,
      routes: [{ destination: '172.16.0.0/16', nexthop: '10.50.0.254' }],
      interfaces: [{ network_id: a.networkId, ip_assignments: [{ ip_address: '10.50.0.1', subnet_id: a.subnetId }] }],
      external_gateway_info: { network_id: publicNet, enable_snat: true, external_fixed_ips: [{ ip_address: expect.stringMatching(/^203\.0\.113\./) }] },
    });
    const after = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json();
    expect([after.router_count_usage, after.external_ip_count_usage]).toEqual([before.router_count_usage + 1, before.external_ip_count_usage + 1]);
    const ports = (await f.req('GET', `/cloud/v1/ports/${f.project}/${R}?network_ids=${a.networkId}`)).json().results;
    expect(ports).toMatchObject([{ managed_by: 'system', ip_assignments: [{ ip_address: '10.50.0.1' }] }]);
    const list = await f.req('GET', `${base()}?name=edge`);
    expectConforms('GET', '/cloud/v1/routers/{project_id}/{region_id}', list);
    expect(list.json().count).toBe(1);
  });

  it('refuses what does not hold together, naming the field, storing nothing', async () => {
    const before = (await f.req('GET', base())).json().count;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ external_gateway_info: { type: 'manual', network_id: a.networkId } }, ['external_gateway_info', 'network_id']],
      [{ external_gateway_info: { type: 'manual' } }, ['external_gateway_info', 'network_id']],
      [{ external_gateway_info: { type: 'default', network_id: publicNet } }, ['external_gateway_info', 'network_id']],
      [{ interfaces: [{ subnet_id: b.subnetId }, { subnet_id: b.subnetId }] }, ['interfaces', 1, 'subnet_id']],
      [{ interfaces: [{ subnet_id: '00000000-0000-4000-8000-0000000000aa' }] }, ['interfaces', 0, 'subnet_id']],
      [{ interfaces: [{ subnet_id: b.subnetId }], routes: [{ destination: '10.9.0.0/16', nexthop: '10.50.0.9' }] }, ['routes', 0, 'nexthop']],
      [{ interfaces: [{ subnet_id: b.subnetId }], routes: [{ destination: '10.9.0.0/33', nexthop: '10.51.0.9' }] }, ['routes', 0, 'destination']],
      [{ name: '!' }, ['name']],
    ];
    for (const [body, loc] of cases) {
      const res = await f.req('POST', base(), { name: 'bad-router', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(body)).toEqual(['body', ...loc]);
    }
    const taken = await f.req('POST', base(), { name: 'second', interfaces: [{ subnet_id: a.subnetId }] });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toContain(router);
    expect((await f.req('GET', base())).json().count).toBe(before);
  });

  it("attaches and detaches subnets at once; a route's next hop keeps its subnet attached", async () => {
    const attached = await f.req('POST', `${base()}/${router}/attach`, { subnet_id: b.subnetId, ip_address: '10.51.0.254' });
    expectConforms('POST', '/cloud/v1/routers/{project_id}/{region_id}/{router_id}/attach', attached);
    expect(attached.json().interfaces.map((i: any) => i.ip_assignments[0].ip_address)).toEqual(['10.50.0.1', '10.51.0.254']);
    expect((await f.req('POST', `${base()}/${router}/attach`, { subnet_id: b.subnetId })).statusCode).toBe(409);
    const c = await f.networkWithSubnet('rt-c', '10.52.0.0/24');
    expect((await f.req('POST', `${base()}/${router}/attach`, { subnet_id: c.subnetId, ip_address: '10.99.0.1' })).json().errors[0].loc).toEqual([
      'body',
      'ip_address',
    ]);
    const hop = await f.req('POST', `${base()}/${router}/detach`, { subnet_id: a.subnetId });
    expect(hop.statusCode).toBe(409);
    expect(hop.json().message).toMatch(/172\.16\.0\.0\/16/);
    expect((await f.req('POST', `${base()}/${router}/detach`, { subnet_id: c.subnetId })).json().errors[0].loc).toEqual(['body', 'subnet_id']);
    const detached = await f.req('POST', `${base()}/${router}/detach`, { subnet_id: b.subnetId });
    expectConforms('POST', '/cloud/v1/routers/{project_id}/{region_id}/{router_id}/detach', detached);
    expect(detached.json().interfaces).toHaveLength(1);
    await f.finished(await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${c.networkId}`));
  });

  it('updates at once (v1) and through a task (v2), no task when nothing changes', async () => {
    const v1 = await f.req('PATCH', `${base()}/${router}`, { name: 'edge-2', routes: [], external_gateway_info: null });
    expectConforms('PATCH', '/cloud/v1/routers/{project_id}/{region_id}/{router_id}', v1);
    expect(v1.json()).toMatchObject({ name: 'edge-2', routes: [], external_gateway_info: null });
    expect((await f.req('GET', `/cloud/v1/ports/${f.project}/${R}`)).json().results.filter((p: any) => p.network_id === publicNet)).toEqual([]);
    const v2 = `/cloud/v2/routers/${f.project}/${R}/${router}`;
    const noop = await f.req('PATCH', v2, { name: 'edge-2' });
    expectConforms('PATCH', '/cloud/v2/routers/{project_id}/{region_id}/{router_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id: router });
    const task = await f.finished(
      await f.req('PATCH', v2, {
        external_gateway_info: { type: 'manual', network_id: publicNet, enable_snat: false },
        routes: [{ destination: '0.0.0.0/0', nexthop: '10.50.0.5' }],
      }),
    );
    expect(task.task_type).toBe('update_router');
    expect(await get(router)).toMatchObject({
      external_gateway_info: { enable_snat: false, external_fixed_ips: [expect.any(Object)] },
      routes: [{ destination: '0.0.0.0/0' }],
    });
    expect((await f.req('PATCH', v2, { external_gateway_info: { type: 'default' } })).json().errors[0].loc).toEqual(['body', 'external_gateway_info', 'type']);
  });

  it('lets a balancer route to members on a network it joins to the VIP network', async () => {
    const vm = await f.instance('rt-member', { interfaces: [{ type: 'subnet', network_id: b.networkId, subnet_id: b.subnetId }] });
    const address = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}`)).json().addresses['rt-b'][0].addr;
    const lb = (
      await f.finished(
        await f.req('POST', `/cloud/v1/loadbalancers/${f.project}/${R}`, {
          name: 'routed-lb',
          vip_network_id: a.networkId,
          preferred_connectivity: 'L3',
          listeners: [{ name: 'tcp-in', protocol: 'TCP', protocol_port: 22, pools: [{ name: 'ssh', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN' }] }],
        }),
      )
    ).created_resources;
    const member = { address, protocol_port: 22, instance_id: vm };
    const unreachable = await f.req('POST', `/cloud/v1/lbpools/${f.project}/${R}/${lb.pools[0]}/member`, member);
    expect(unreachable.json().errors[0].loc).toEqual(['body', 'instance_id']);
    await f.req('POST', `${base()}/${router}/attach`, { subnet_id: b.subnetId });
    await f.finished(await f.req('POST', `/cloud/v1/lbpools/${f.project}/${R}/${lb.pools[0]}/member`, member));
    await f.finished(await f.req('DELETE', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb.loadbalancers[0]}`));
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}`));
  });

  it('holds its subnets and networks; is deleted once detached, with its gateway', async () => {
    const net = await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${b.networkId}`);
    expect(net.statusCode).toBe(409);
    expect(net.json().message).toContain(`router ${router}`);
    expect((await f.req('DELETE', `/cloud/v1/subnets/${f.project}/${R}/${a.subnetId}`)).statusCode).toBe(409);
    const busy = await f.req('DELETE', `${base()}/${router}`);
    expect(busy.statusCode).toBe(409);
    await f.req('PATCH', `${base()}/${router}`, { routes: [] });
    for (const s of [a.subnetId, b.subnetId]) await f.req('POST', `${base()}/${router}/detach`, { subnet_id: s });
    const res = await f.req('DELETE', `${base()}/${router}`);
    expectConforms('DELETE', '/cloud/v1/routers/{project_id}/{region_id}/{router_id}', res);
    expect((await f.finished(res)).task_type).toBe('delete_router');
    expect((await f.req('GET', `${base()}/${router}`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/ports/${f.project}/${R}`)).json().results.filter((p: any) => p.managed_by === 'system')).toEqual([]);
    await f.finished(await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${b.networkId}`));
  });
});

describe('quotas and tenancy', () => {
  it('fails a router over the router quota, leaving nothing', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().router_count_usage;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { router_count_limit: usage } });
    try {
      const over = await f.req('POST', base(), { name: 'over', interfaces: [{ subnet_id: a.subnetId }], external_gateway_info: {} });
      expect(await f.task(over.json().tasks[0])).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/routers: requested 1/) });
      expect((await f.req('GET', `${base()}/${over.json().id}`)).statusCode).toBe(404);
      expect((await f.req('GET', `/cloud/v1/ports/${f.project}/${R}?network_ids=${a.networkId}`)).json().count).toBe(0);
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { router_count_limit: 10 } });
    }
  });

  it("answers 401 without a token and 404 for another client's router", async () => {
    const id = (await f.finished(await f.req('POST', base(), { name: 'mine' }))).created_resources.routers[0];
    expect((await f.t.request('GET', base())).statusCode).toBe(401);
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    for (const [method, url, body] of [
      ['GET', ''],
      ['DELETE', ''],
      ['PATCH', '', { name: 'theirs' }],
      ['POST', '/attach', { subnet_id: a.subnetId }],
    ] as const) {
      expect((await f.req(method, `/cloud/v1/routers/${project}/${R}/${id}${url}`, body, stranger)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await get(id)).name).toBe('mine');
  });
});
