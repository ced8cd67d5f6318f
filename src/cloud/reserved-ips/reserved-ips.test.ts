// Reserved fixed IPs through HTTP: every way to reserve one, addresses taken by the task (never twice,
// a full subnet failing the task), refusals naming their field, instances taking and letting go of them,
// VIPs shared with instance ports, a balancer's VIP on one, deletes refused while in use, the public
// address quota, tenancy; and the ports list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, UBUNTU, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let net: { networkId: string; subnetId: string };
const R = 76;
const base = () => `/cloud/v1/reserved_fixed_ips/${f.project}/${R}`;
const get = async (id: string) => (await f.req('GET', `${base()}/${id}`)).json();
const reserve = async (body: Record<string, unknown>) => (await f.finished(await f.req('POST', base(), body))).created_resources.ports[0] as string;
const advance = (taskId: string) => f.t.request('POST', '/_edgeplane/tasks/advance', { headers: f.t.operator, body: { task_id: taskId, to: 'end' } });
const vmOn = (name: string, interfaces: Record<string, unknown>[]) => f.instance(name, { interfaces });

beforeAll(async () => {
  f = await cloudFixture();
  net = await f.networkWithSubnet('rip-net', '10.40.0.0/24');
});
afterAll(async () => f.close());

describe('reserving', () => {
  it("reserves a public address, a subnet's first free one, any subnet's, or the one asked for", async () => {
    const before = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().external_ip_count_usage;
    const res = await f.req('POST', base(), { type: 'external' });
    expectConforms('POST', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_reserved_fixed_ip', created_resources: { ports: [res.json().id] } });
    const got = await f.req('GET', `${base()}/${res.json().id}`);
    expectConforms('GET', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}', got);
    expect(got.json()).toMatchObject({
      is_external: true,
      is_vip: false,
      status: 'DOWN',
      subnet_id: null,
      network: { external: true },
      reservation: { status: 'available' },
      attachments: [],
    });
    expect((await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().external_ip_count_usage).toBe(before + 1);
    const first = await get(await reserve({ type: 'subnet', subnet_id: net.subnetId }));
    expect(first).toMatchObject({ fixed_ip_address: '10.40.0.2', subnet_id: net.subnetId, network_id: net.networkId, is_external: false });
    expect((await get(await reserve({ type: 'any_subnet', network_id: net.networkId, is_vip: true }))).fixed_ip_address).toBe('10.40.0.3');
    expect((await get(await reserve({ type: 'ip_address', network_id: net.networkId, ip_address: '10.40.0.50' }))).fixed_ip_address).toBe('10.40.0.50');
    const list = await f.req('GET', `${base()}?internal_only=true&order_by=fixed_ip_address.desc`);
    expectConforms('GET', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}', list);
    expect(list.json().results.map((r: any) => r.fixed_ip_address)).toEqual(['10.40.0.50', '10.40.0.3', '10.40.0.2']);
    expect((await f.req('GET', `${base()}?vip_only=true`)).json().results.map((r: any) => r.fixed_ip_address)).toEqual(['10.40.0.3']);
  });

  it('refuses what does not hold together, naming the field, storing nothing', async () => {
    const before = (await f.req('GET', base())).json().count;
    const cases: [Record<string, unknown>, string, number?][] = [
      [{ type: 'subnet' }, 'subnet_id'],
      [{ type: 'external', subnet_id: net.subnetId }, 'subnet_id'],
      [{ type: 'ip_address', network_id: net.networkId }, 'ip_address'],
      [{ type: 'ip_address', network_id: net.networkId, ip_address: '10.99.0.5' }, 'ip_address'],
      [{ type: 'ip_address', network_id: net.networkId, ip_address: '10.40.0.1' }, 'ip_address'],
      [{ type: 'any_subnet', network_id: '00000000-0000-4000-8000-0000000000aa' }, 'network_id'],
      [{ type: 'subnet', subnet_id: '00000000-0000-4000-8000-0000000000ab' }, 'subnet_id'],
      [{ type: 'external', ip_family: 'ipv6' }, 'ip_family'],
      [{ type: 'port', port_id: '00000000-0000-4000-8000-0000000000ac' }, 'port_id'],
      [{ type: 'port', port_id: '00000000-0000-4000-8000-0000000000ac', is_vip: true }, 'is_vip'],
      [{ type: 'floating' }, 'type'],
    ];
    for (const [body, field] of cases) {
      const res = await f.req('POST', base(), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().errors.map((e: any) => e.loc),
        JSON.stringify(body),
      ).toContainEqual(['body', field]);
    }
    const taken = await f.req('POST', base(), { type: 'ip_address', network_id: net.networkId, ip_address: '10.40.0.50' });
    expect(taken.statusCode).toBe(409);
    expect((await f.req('GET', base())).json().count).toBe(before);
  });

  it('never hands an address out twice, and fails the task when the subnet is full', async () => {
    const small = await f.networkWithSubnet('tiny-net', '10.41.0.0/29');
    const free = async () => (await f.req('GET', `/cloud/v1/subnets/${f.project}/${R}/${small.subnetId}`)).json().available_ips;
    const addresses = [];
    for (let i = 0; i < 4; i += 1) addresses.push((await get(await reserve({ type: 'subnet', subnet_id: small.subnetId }))).fixed_ip_address);
    expect(addresses).toEqual(['10.41.0.2', '10.41.0.3', '10.41.0.4', '10.41.0.5']);
    expect(await free()).toBe(1);
    // Two reservations race for the last address: the first task to finish takes it, the other fails.
    await f.setMode('manual', 'create_reserved_fixed_ip');
    const [a, b] = [
      await f.req('POST', base(), { type: 'subnet', subnet_id: small.subnetId }),
      await f.req('POST', base(), { type: 'any_subnet', network_id: small.networkId }),
    ];
    await advance(b.json().tasks[0]);
    await advance(a.json().tasks[0]);
    await f.setMode('instant', 'create_reserved_fixed_ip');
    expect((await f.task(b.json().tasks[0])).state).toBe('FINISHED');
    expect((await get(b.json().id)).fixed_ip_address).toBe('10.41.0.6');
    expect(await f.task(a.json().tasks[0])).toMatchObject({ state: 'ERROR', created_resources: null, error: expect.stringMatching(/No free address left/) });
    expect((await f.req('GET', `${base()}/${a.json().id}`)).statusCode).toBe(404);
    const full = await f.req('POST', base(), { type: 'subnet', subnet_id: small.subnetId });
    expect((await f.task(full.json().tasks[0])).error).toMatch(/No free address left in subnet/);
    expect(await free()).toBe(0);
    // A network with reserved addresses cannot go.
    const refused = await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${small.networkId}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/5 reserved/);
  });
});

describe('in use', () => {
  it('is taken by an instance as an interface, let go of when the instance goes, deleted when the delete names it', async () => {
    const kept = await reserve({ type: 'subnet', subnet_id: net.subnetId });
    const vm = await vmOn('rip-vm', [{ type: 'reserved_fixed_ip', port_id: kept, floating_ip: { source: 'new' } }]);
    expect(await get(kept)).toMatchObject({
      status: 'ACTIVE',
      attachments: [{ resource_id: vm, resource_type: 'instance' }],
      reservation: { resource_id: vm, status: 'attached' },
    });
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}`)).json().addresses['rip-net'][0].addr).toBe((await get(kept)).fixed_ip_address);
    const busy = await f.req('DELETE', `${base()}/${kept}`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().message).toContain(`instance ${vm}`);
    const twice = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'rip-vm-2',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'image', image_id: UBUNTU, size: 10, boot_index: 0 }],
      interfaces: [{ type: 'reserved_fixed_ip', port_id: kept }],
    });
    expect(twice.statusCode).toBe(409);
    const unknown = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'rip-vm-3',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'image', image_id: UBUNTU, size: 10, boot_index: 0 }],
      interfaces: [{ type: 'reserved_fixed_ip', port_id: net.subnetId }],
    });
    expect(unknown.json().errors[0].loc).toEqual(['body', 'interfaces', 0, 'port_id']);
    expect((await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}?reserved_fixed_ips=${net.subnetId}`)).statusCode).toBe(400);
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}`));
    expect(await get(kept)).toMatchObject({ status: 'DOWN', attachments: [] });
    const vm2 = await vmOn('rip-vm-4', [{ type: 'external' }]);
    const attach = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${vm2}/attach_interface`, { type: 'reserved_fixed_ip', port_id: kept });
    expect((await f.finished(attach)).created_resources.ports).toEqual([kept]);
    const address = (await get(kept)).fixed_ip_address;
    await f.finished(await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${vm2}/detach_interface`, { port_id: kept, ip_address: address }));
    expect((await get(kept)).status).toBe('DOWN');
    await f.finished(await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${vm2}/attach_interface`, { type: 'reserved_fixed_ip', port_id: kept }));
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm2}?reserved_fixed_ips=${kept}`));
    expect((await f.req('GET', `${base()}/${kept}`)).statusCode).toBe(404);
  });

  it("reserves an instance's own port, which then outlives the instance", async () => {
    const vm = await vmOn('own-port-vm', [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }]);
    const port = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}/interfaces`)).json().results[0].port_id;
    expect(await reserve({ type: 'port', port_id: port })).toBe(port);
    expect(await get(port)).toMatchObject({ status: 'ACTIVE', attachments: [{ resource_id: vm }] });
    expect((await f.req('POST', base(), { type: 'port', port_id: port })).statusCode).toBe(409);
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}`));
    expect(await get(port)).toMatchObject({ status: 'DOWN', is_external: false });
    await f.finished(await f.req('DELETE', `${base()}/${port}`));
  });

  it('is shared as a VIP by instance ports on its network', async () => {
    const vip = (await f.req('GET', `${base()}?vip_only=true`)).json().results[0].port_id;
    const vm = await vmOn('vip-vm', [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }]);
    const port = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}/interfaces`)).json().results[0].port_id;
    const candidates = await f.req('GET', `${base()}/${vip}/available_devices`);
    expectConforms('GET', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}/available_devices', candidates);
    expect(candidates.json().results.map((c: any) => c.port_id)).toContain(port);
    const added = await f.req('PATCH', `${base()}/${vip}/connected_devices`, { port_ids: [port] });
    expectConforms('PATCH', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}/connected_devices', added);
    expect(added.json()).toMatchObject({ count: 1, results: [{ port_id: port, instance_id: vm, instance_name: 'vip-vm', network: { id: net.networkId } }] });
    const connected = await f.req('GET', `${base()}/${vip}/connected_devices`);
    expectConforms('GET', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}/connected_devices', connected);
    const shown = await f.req('GET', `/cloud/v1/ports/${f.project}/${R}/${port}`);
    expectConforms('GET', '/cloud/v1/ports/{project_id}/{region_id}/{port_id}', shown);
    expect(shown.json()).toMatchObject({
      id: port,
      network_id: net.networkId,
      allowed_address_pairs: [{ ip_address: (await get(vip)).fixed_ip_address }],
      managed_by: 'user',
    });
    const wrong = await f.req('PUT', `${base()}/${vip}/connected_devices`, { port_ids: [port, vip] });
    expect(wrong.json().errors[0].loc).toEqual(['body', 'port_ids', 1]);
    expect((await f.req('PATCH', `${base()}/${vip}`, { is_vip: false })).statusCode).toBe(409);
    expect((await f.req('DELETE', `${base()}/${vip}`)).statusCode).toBe(409);
    const cleared = await f.req('PUT', `${base()}/${vip}/connected_devices`, { port_ids: [] });
    expectConforms('PUT', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}/connected_devices', cleared);
    expect(cleared.json().count).toBe(0);
    const plain = await f.req('PATCH', `${base()}/${vip}`, { is_vip: false });
    expectConforms('PATCH', '/cloud/v1/reserved_fixed_ips/{project_id}/{region_id}/{port_id}', plain);
    expect(plain.json().is_vip).toBe(false);
    expect((await f.req('GET', `${base()}/${vip}/connected_devices`)).statusCode).toBe(409);
    await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${vm}`));
  });

  it("is a balancer's VIP, freed (not deleted) with the balancer", async () => {
    const port = await reserve({ type: 'ip_address', network_id: net.networkId, ip_address: '10.40.0.77' });
    const lb = (await f.finished(await f.req('POST', `/cloud/v1/loadbalancers/${f.project}/${R}`, { name: 'on-reserved', vip_port_id: port })))
      .created_resources.loadbalancers[0];
    expect((await f.req('GET', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb}`)).json()).toMatchObject({ vip_address: '10.40.0.77', vip_port_id: port });
    expect(await get(port)).toMatchObject({ status: 'ACTIVE', attachments: [{ resource_id: lb, resource_type: 'loadbalancer' }] });
    expect((await f.req('GET', `/cloud/v1/ports/${f.project}/${R}/${port}`)).json().managed_by).toBe('system');
    expect((await f.req('POST', `/cloud/v1/loadbalancers/${f.project}/${R}`, { name: 'second', vip_port_id: port })).statusCode).toBe(409);
    await f.finished(await f.req('DELETE', `/cloud/v1/loadbalancers/${f.project}/${R}/${lb}`));
    expect(await get(port)).toMatchObject({ status: 'DOWN', fixed_ip_address: '10.40.0.77' });
    const ports = await f.req('GET', `/cloud/v1/ports/${f.project}/${R}?network_ids=${net.networkId}&order_by=created_at.desc`);
    expectConforms('GET', '/cloud/v1/ports/{project_id}/{region_id}', ports);
    expect(ports.json().results[0].id).toBe(port);
  });
});

describe('quotas and tenancy', () => {
  it('fails a public reservation over the public address quota', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().external_ip_count_usage;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { external_ip_count_limit: usage } });
    try {
      const over = await f.req('POST', base(), { type: 'external' });
      expect(await f.task(over.json().tasks[0])).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/public addresses: requested 1/) });
      expect((await f.req('GET', `${base()}/${over.json().id}`)).statusCode).toBe(404);
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { external_ip_count_limit: 100 } });
    }
  });

  it("answers 401 without a token and 404 for another client's", async () => {
    const id = (await f.req('GET', base())).json().results[0].port_id;
    expect((await f.t.request('GET', base())).statusCode).toBe(401);
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    for (const [method, url, body] of [
      ['GET', ''],
      ['DELETE', ''],
      ['PATCH', '', { is_vip: true }],
      ['GET', '/connected_devices'],
    ] as const) {
      expect((await f.req(method, `/cloud/v1/reserved_fixed_ips/${project}/${R}/${id}${url}`, body, stranger)).statusCode).toBe(404);
    }
    expect((await f.req('GET', `/cloud/v1/ports/${project}/${R}/${id}`, undefined, stranger)).statusCode).toBe(404);
    const taken = await f.req('POST', `/cloud/v1/reserved_fixed_ips/${project}/${R}`, { type: 'port', port_id: id }, stranger);
    expect(taken.json().errors[0].loc).toEqual(['body', 'port_id']);
  });
});
