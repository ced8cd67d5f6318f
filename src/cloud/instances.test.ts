// Instances through HTTP, past create and power: update, flavor change, console, interfaces attached and
// detached through tasks, floating IPs made with an interface, deletes that take volumes and floating IPs
// along, name templates, list filters; and floating IP updates (v1 tags, v2 port through a task).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';

let f: CloudFixture;
let net: { networkId: string; subnetId: string };
const R = 76;
const base = () => `/cloud/v1/instances/${f.project}/${R}`;
const get = async (id: string) => (await f.req('GET', `${base()}/${id}`)).json();

beforeAll(async () => {
  f = await cloudFixture();
  net = await f.networkWithSubnet('inst-net', '10.7.0.0/24');
});
afterAll(async () => f.close());

describe('instances', () => {
  it('renames and retags (tags merged), changes flavor through a task, shows a console while running', async () => {
    const id = await f.instance('change-me', { tags: { a: '1', b: '2' } });
    const updated = await f.req('PATCH', `${base()}/${id}`, { name: 'changed', tags: { a: null, c: '3' } });
    expectConforms('PATCH', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', updated);
    expect(updated.json()).toMatchObject({
      name: 'changed',
      tags: [
        { key: 'b', value: '2' },
        { key: 'c', value: '3' },
      ],
    });
    const resized = await f.req('POST', `${base()}/${id}/changeflavor`, { flavor_id: 'g1-standard-2-4' });
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/changeflavor', resized);
    expect((await f.finished(resized)).task_type).toBe('resize_vm');
    expect(await get(id)).toMatchObject({ status: 'ACTIVE', flavor: { flavor_id: 'g1-standard-2-4', vcpus: 2 } });
    expect((await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().cpu_count_usage).toBe(2);
    expect((await f.req('POST', `${base()}/${id}/changeflavor`, { flavor_id: 'g1-standard-2-4' })).statusCode).toBe(400);
    expect((await f.req('POST', `${base()}/${id}/changeflavor`, { flavor_id: 'a1-standard-2-4' })).statusCode).toBe(400);
    expect((await f.req('POST', `${base()}/${id}/changeflavor`, { flavor_id: 'no-such' })).statusCode).toBe(400);
    expect((await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 1, time_unit: 'hour' })).json().count).toBeLessThanOrEqual(1);
    await f.t.clock.advance(20 * 60_000);
    const metrics = await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 1, time_unit: 'hour' });
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/metrics', metrics);
    expect(metrics.json().count).toBeGreaterThanOrEqual(4);
    const [point] = metrics.json().results;
    expect(point).toMatchObject({ cpu_util: expect.any(Number), disks: [{ disk_name: 'vda' }] });
    expect((await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 1, time_unit: 'hour' })).json()).toEqual(metrics.json());
    const console = await f.req('GET', `${base()}/${id}/get_console`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/get_console', console);
    expect(console.json().remote_console).toMatchObject({ protocol: 'vnc', type: 'novnc', url: expect.stringContaining(id) });
    expect((await f.req('GET', `${base()}/${id}/get_console?console_type=telnet`)).statusCode).toBe(400);
    await f.finished(await f.req('POST', `/cloud/v2/instances/${f.project}/${R}/${id}/action`, { action: 'stop' }));
    const stopped = await f.req('GET', `${base()}/${id}/get_console`);
    expect(stopped.statusCode).toBe(409);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/get_console', stopped);
    const idle = (await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 2, time_unit: 'hour' })).json();
    expect(idle.results[0]).toMatchObject({ cpu_util: null, memory_util: null });
    expect((await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 1, time_unit: 'week' })).statusCode).toBe(400);
    expect((await f.req('POST', `${base()}/${id}/metrics`, { time_interval: 31, time_unit: 'day' })).json().errors[0].loc).toEqual(['body', 'time_interval']);
  });

  it('attaches and detaches interfaces through tasks', async () => {
    const id = await f.instance('nics');
    const attach = await f.req('POST', `${base()}/${id}/attach_interface`, { type: 'subnet', subnet_id: net.subnetId, interface_name: 'eth1' });
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/attach_interface', attach);
    const task = await f.finished(attach);
    expect(task.task_type).toBe('attach_vm_interface');
    const itfs = (await f.req('GET', `${base()}/${id}/interfaces`)).json();
    expect(itfs.count).toBe(2);
    const port = itfs.results.find((i: { interface_name: string }) => i.interface_name === 'eth1');
    expect(port).toMatchObject({ port_id: task.created_resources.ports[0], network_id: net.networkId, ip_assignments: [{ subnet_id: net.subnetId }] });
    expect((await get(id)).addresses['inst-net']).toHaveLength(1);
    const wrongIp = await f.req('POST', `${base()}/${id}/detach_interface`, { port_id: port.port_id, ip_address: '10.7.0.250' });
    expect(wrongIp.statusCode).toBe(400);
    const detach = await f.req('POST', `${base()}/${id}/detach_interface`, { port_id: port.port_id, ip_address: port.ip_assignments[0].ip_address });
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/detach_interface', detach);
    expect((await f.finished(detach)).task_type).toBe('detach_vm_interface');
    expect((await f.req('GET', `${base()}/${id}/interfaces`)).json().count).toBe(1);
    expect((await f.req('POST', `${base()}/${id}/attach_interface`, { type: 'subnet', subnet_id: '00000000-0000-4000-8000-000000000099' })).statusCode).toBe(
      400,
    );
  });

  it('makes a floating IP with an interface, names itself from its address, and deletes what it is told to', async () => {
    const created = await f.finished(
      await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
        name_template: 'web-{two_ip_octets}',
        flavor: 'g1-standard-1-2',
        volumes: [
          { source: 'new-volume', size: 5 },
          { source: 'new-volume', size: 6, name: 'extra-data' },
        ],
        interfaces: [{ type: 'any_subnet', network_id: net.networkId, ip_address: '10.7.0.77', floating_ip: { source: 'new' } }],
      }),
    );
    const id = created.created_resources.instances[0];
    const vm = await get(id);
    expect(vm).toMatchObject({ name: 'web-0-77', addresses: { 'inst-net': [{ addr: '10.7.0.77' }] } });
    const fips = (await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}`))
      .json()
      .results.filter((x: { instance: { id: string } | null }) => x.instance?.id === id);
    expect(fips).toMatchObject([{ status: 'ACTIVE', fixed_ip_address: '10.7.0.77' }]);
    const taken = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'clash',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 5 }],
      interfaces: [{ type: 'any_subnet', network_id: net.networkId, ip_address: '10.7.0.77' }],
    });
    expect(taken.statusCode).toBe(400);
    const extra = vm.volumes[1].id;
    expect((await f.req('DELETE', `${base()}/${id}?volumes=00000000-0000-4000-8000-000000000001`)).statusCode).toBe(400);
    expect((await f.req('DELETE', `${base()}/${id}?delete_floatings=true&floatings=${fips[0].id}`)).statusCode).toBe(400);
    expect((await f.req('DELETE', `${base()}/${id}?reserved_fixed_ips=00000000-0000-4000-8000-000000000001`)).statusCode).toBe(400);
    await f.finished(await f.req('DELETE', `${base()}/${id}?volumes=${extra}&floatings=${fips[0].id}`));
    expect((await f.req('GET', `/cloud/v1/volumes/${f.project}/${R}/${extra}`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}/${fips[0].id}`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/volumes/${f.project}/${R}/${vm.volumes[0].id}`)).json().status).toBe('available');
  });

  it('takes an existing floating IP, and refuses one that is assigned', async () => {
    const fip = (await f.finished(await f.req('POST', `/cloud/v1/floatingips/${f.project}/${R}`, {}))).created_resources.floatingips[0];
    const body = (name: string) => ({
      name,
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 5 }],
      interfaces: [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId, floating_ip: { source: 'existing', existing_floating_id: fip } }],
    });
    const id = (await f.finished(await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, body('fip-taker')))).created_resources.instances[0];
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}/${fip}`)).json()).toMatchObject({ status: 'ACTIVE', port_id: expect.any(String) });
    expect((await f.req('GET', `${base()}/${id}/interfaces`)).json().results[0].floatingip_details[0].id).toBe(fip);
    expect((await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, body('fip-thief'))).statusCode).toBe(409);
  });

  it('filters lists by name, flavor, status, address and order', async () => {
    const list = await f.req('GET', `${base()}?flavor_prefix=g1-standard-1&order_by=name.desc`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}', list);
    const listed = list.json().results.map((i: { name: string }) => i.name);
    expect(listed).toEqual([...listed].sort().reverse());
    expect((await f.req('GET', `${base()}?status=SHUTOFF`)).json().results.map((i: { name: string }) => i.name)).toEqual(['changed']);
    expect((await f.req('GET', `${base()}?ip=10.7.0.`)).json().count).toBeGreaterThan(0);
    expect((await f.req('GET', `${base()}?status=SLEEPING`)).statusCode).toBe(400);
  });
});

describe('floating IP updates', () => {
  it('changes tags at once (v1) and the port through a task (v2), with no task when nothing changes', async () => {
    const id = await f.instance('fip-target', { interfaces: [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }] });
    const port = (await f.req('GET', `${base()}/${id}/interfaces`)).json().results[0];
    const fip = (await f.finished(await f.req('POST', `/cloud/v1/floatingips/${f.project}/${R}`, { tags: { a: '1' } }))).created_resources.floatingips[0];
    const tagged = await f.req('PATCH', `/cloud/v1/floatingips/${f.project}/${R}/${fip}`, { tags: { b: '2' } });
    expectConforms('PATCH', '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}', tagged);
    expect(tagged.json().tags.map((t: { key: string }) => t.key)).toEqual(['a', 'b']);
    const noop = await f.req('PATCH', `/cloud/v2/floatingips/${f.project}/${R}/${fip}`, { tags: { a: '1' } });
    expectConforms('PATCH', '/cloud/v2/floatingips/{project_id}/{region_id}/{floating_ip_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id: fip });
    const assigned = await f.req('PATCH', `/cloud/v2/floatingips/${f.project}/${R}/${fip}`, {
      port_id: port.port_id,
      fixed_ip_address: port.ip_assignments[0].ip_address,
    });
    expect((await f.finished(assigned)).task_type).toBe('update_floating_ip');
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}/${fip}`)).json()).toMatchObject({ status: 'ACTIVE', port_id: port.port_id });
    expect((await f.req('PATCH', `/cloud/v2/floatingips/${f.project}/${R}/${fip}`, { fixed_ip_address: '10.7.0.254' })).statusCode).toBe(400);
    await f.finished(await f.req('PATCH', `/cloud/v2/floatingips/${f.project}/${R}/${fip}`, { port_id: null }));
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}/${fip}`)).json()).toMatchObject({ status: 'DOWN', port_id: null });
    expect((await f.req('GET', `/cloud/v1/floatingips/${f.project}/${R}?status=DOWN`)).json().results.map((x: { id: string }) => x.id)).toContain(fip);
  });
});

describe('unknown fields', () => {
  it('are accepted and dropped everywhere in a body, at any depth', async () => {
    const res = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'newer-client',
      flavor: 'g1-standard-1-2',
      future_field: { any: 'thing' },
      volumes: [{ source: 'new-volume', size: 5, future_volume_field: 1 }],
      interfaces: [{ type: 'external', future_interface_field: true }],
    });
    expect((await f.finished(res)).state).toBe('FINISHED');
    const network = await f.req('POST', `/cloud/v1/networks/${f.project}/${R}`, { name: 'newer-net', mtu_hint: 9000 });
    expect((await f.finished(network)).data).toEqual({ network_id: network.json().id });
    expect(await (await f.req('GET', `/cloud/v1/networks/${f.project}/${R}/${network.json().id}`)).json()).not.toHaveProperty('mtu_hint');
  });
});
