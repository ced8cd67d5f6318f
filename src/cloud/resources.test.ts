// Projects, tasks, instances, volumes, floating IPs and quotas through HTTP, each response checked
// against the reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { expectConforms } from '../../tests/support/conformance.js';

let t: TestApp;
let me: TestAccount;
let reader: TestAccount;
let project: number;
const R = 76;

beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
  reader = await t.account({ role: 'Users' });
  project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
});
afterAll(async () => t.close());

const req = (method: string, url: string, body?: unknown, who = me) => t.request(method, url, { headers: who.headers, body });
const finished = async (res: { json(): any }) => {
  const task = (await req('GET', `/cloud/v1/tasks/${res.json().tasks[0]}`)).json();
  expect(task.state).toBe('FINISHED');
  return task;
};

async function networkWithSubnet(name: string, cidr = '10.1.0.0/24') {
  const net = await finished(await req('POST', `/cloud/v1/networks/${project}/${R}`, { name }));
  const networkId = net.created_resources.networks[0];
  const sub = await finished(await req('POST', `/cloud/v1/subnets/${project}/${R}`, { name: `${name}-s`, network_id: networkId, cidr }));
  return { networkId, subnetId: sub.created_resources.subnets[0] };
}

async function instance(networkId: string, subnetId: string, name = 'vm-1') {
  const task = await finished(
    await req('POST', `/cloud/v2/instances/${project}/${R}`, {
      name,
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'subnet', network_id: networkId, subnet_id: subnetId }],
    }),
  );
  return task.created_resources.instances[0] as string;
}

describe('projects', () => {
  it('creates, reads, updates (PATCH and PUT), lists and deletes a project with its resources', async () => {
    const created = await req('POST', '/cloud/v1/projects', { name: 'staging', description: 'for tests' });
    expect(created.statusCode).toBe(201);
    expectConforms('POST', '/cloud/v1/projects', created);
    const id = created.json().id;
    expect(created.json()).toMatchObject({ name: 'staging', is_default: false, state: 'ACTIVE', client_id: me.clientId });
    const patched = await req('PATCH', `/cloud/v1/projects/${id}`, { name: 'staging-2' });
    expectConforms('PATCH', '/cloud/v1/projects/{project_id}', patched);
    expect(patched.json().name).toBe('staging-2');
    expect((await req('PUT', `/cloud/v1/projects/${id}`, { description: 'older client' })).json().description).toBe('older client');
    const got = await req('GET', `/cloud/v1/projects/${id}`);
    expectConforms('GET', '/cloud/v1/projects/{project_id}', got);
    const net = await finished(await req('POST', `/cloud/v1/networks/${id}/${R}`, { name: 'inside' }));
    const deleted = await req('DELETE', `/cloud/v1/projects/${id}`);
    expectConforms('DELETE', '/cloud/v1/projects/{project_id}', deleted);
    expect((await finished(deleted)).task_type).toBe('delete_project');
    expect((await req('GET', `/cloud/v1/projects/${id}`)).statusCode).toBe(404);
    expect((await req('GET', `/cloud/v1/networks/${project}/${R}/${net.created_resources.networks[0]}`)).statusCode).toBe(404);
    const withDeleted = await t.request('GET', '/cloud/v1/projects', { headers: me.headers, query: { include_deleted: 'true' } });
    expect(withDeleted.json().results.map((p: { name: string }) => p.name)).toContain('staging-2');
  });

  it('lists by name, with or without deleted ones, in each order, a page at a time (filters of one shape with other values too)', async () => {
    const names = ['list-b', 'list-a', 'list-c'];
    const ids: number[] = [];
    for (const name of names) ids.push((await req('POST', '/cloud/v1/projects', { name })).json().id);
    await finished(await req('DELETE', `/cloud/v1/projects/${ids[2]}`));
    const list = async (query: Record<string, string>) => {
      const res = await t.request('GET', '/cloud/v1/projects', { headers: me.headers, query });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { count: number; results: { name: string }[] };
      return { count: body.count, names: body.results.map((p) => p.name).filter((name) => name.startsWith('list-')) };
    };
    for (const name of names.slice(0, 2)) expect(await list({ name })).toEqual({ count: 1, names: [name] });
    expect(await list({ name: 'list-c' })).toEqual({ count: 0, names: [] });
    expect(await list({ name: 'list-c', include_deleted: 'true' })).toEqual({ count: 1, names: ['list-c'] });
    expect((await list({ order_by: 'name.asc', limit: '1000' })).names).toEqual(['list-a', 'list-b']);
    expect((await list({ order_by: 'name.desc', include_deleted: 'true', limit: '1000' })).names).toEqual(['list-c', 'list-b', 'list-a']);
    expect((await list({ order_by: 'created_at.desc', include_deleted: 'true', limit: '1000' })).names).toEqual(['list-c', 'list-a', 'list-b']);
    const all = await list({ include_deleted: 'true', limit: '1000' });
    const second = await t.request('GET', '/cloud/v1/projects', { headers: me.headers, query: { include_deleted: 'true', limit: '1', offset: '1' } });
    expect(second.json().count).toBe(all.count);
    expect(second.json().results).toHaveLength(1);
  });

  it('fails a create task whose project was deleted before it finished', async () => {
    const id = (await req('POST', '/cloud/v1/projects', { name: 'short-lived' })).json().id;
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'manual', task_type: 'create_network' } });
    const pending = await req('POST', `/cloud/v1/networks/${id}/${R}`, { name: 'orphan' });
    await finished(await req('DELETE', `/cloud/v1/projects/${id}`));
    await t.request('POST', '/_edgeplane/tasks/advance', { headers: t.operator, body: { task_id: pending.json().tasks[0], to: 'end' } });
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'instant' } });
    const task = (await req('GET', `/cloud/v1/tasks/${pending.json().tasks[0]}`)).json();
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(task.error).toMatch(/deleted \(with its project\)/);
  });

  it('refuses deleting the default project, bad names, and writes by a read-only user; ignores unknown fields', async () => {
    const res = await req('DELETE', `/cloud/v1/projects/${project}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError', message: expect.stringMatching(/default project/) });
    const bad = await req('POST', '/cloud/v1/projects', { name: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError', errors: [{ loc: ['body', 'name'], type: 'value_error' }] });
    const newer = await req('POST', '/cloud/v1/projects', { name: 'newer-client', colour: 'blue' });
    expect(newer.statusCode).toBe(201);
    expect(newer.json()).not.toHaveProperty('colour');
    expect((await req('POST', '/cloud/v1/projects', { name: 'nope' }, reader)).statusCode).toBe(403);
  });
});

describe('tasks', () => {
  it('lists with filters, paginates, acknowledges one and all', async () => {
    await req('POST', `/cloud/v1/networks/${project}/${R}`, { name: 'task-1' });
    await req('POST', `/cloud/v1/networks/${project}/${R}`, { name: 'task-2' });
    const all = await t.request('GET', '/cloud/v1/tasks', {
      headers: me.headers,
      query: { project_id: [String(project)], region_id: [String(R)], task_type: 'create_network', limit: '1' },
    });
    expectConforms('GET', '/cloud/v1/tasks', all);
    expect(all.json().results).toHaveLength(1);
    expect(all.json().count).toBeGreaterThanOrEqual(2);
    const second = await t.request('GET', '/cloud/v1/tasks', {
      headers: me.headers,
      query: { project_id: [String(project)], region_id: [String(R)], task_type: 'create_network', limit: '1', offset: '1' },
    });
    expect(second.json().results[0].id).not.toBe(all.json().results[0].id);
    const future = await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { from_timestamp: '2999-01-01T00:00:00' } });
    expect(future.json().count).toBe(0);
    const one = await req('POST', `/cloud/v1/tasks/${all.json().results[0].id}/acknowledge`);
    expectConforms('POST', '/cloud/v1/tasks/{task_id}/acknowledge', one);
    expect(one.json()).toMatchObject({ acknowledged_by: me.userId, acknowledged_at: expect.any(String) });
    expect(one.json()).not.toHaveProperty('acknowledged');
    const acked = await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { is_acknowledged: 'true' } });
    expect(acked.json().count).toBe(1);
    const batch = await req('POST', '/cloud/v1/tasks/acknowledge', { task_ids: [second.json().results[0].id] });
    expect(batch.statusCode).toBe(204);
    expect((await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { is_acknowledged: 'true' } })).json().count).toBe(2);
    expect((await t.request('POST', '/cloud/v1/tasks/acknowledge_all', { headers: me.headers, query: { project_id: String(project) } })).statusCode).toBe(204);
    const open = await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { is_acknowledged: 'false', project_id: String(project) } });
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json().count).toBe(0);
    expect((await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { state: 'DONE' } })).statusCode).toBe(400);
  });
});

describe('instances, volumes and floating IPs', () => {
  it('runs power actions as tasks and refuses actions that do not fit the state', async () => {
    const { networkId, subnetId } = await networkWithSubnet('power', '10.2.0.0/24');
    const id = await instance(networkId, subnetId);
    const stopped = await req('POST', `/cloud/v1/instances/${project}/${R}/${id}/stop`);
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/stop', stopped);
    expect((await req('GET', `/cloud/v1/instances/${project}/${R}/${id}`)).json()).toMatchObject({ status: 'SHUTOFF', vm_state: 'stopped' });
    expect((await req('POST', `/cloud/v1/instances/${project}/${R}/${id}/suspend`)).statusCode).toBe(409);
    const action = await req('POST', `/cloud/v2/instances/${project}/${R}/${id}/action`, { action: 'start' });
    expectConforms('POST', '/cloud/v2/instances/{project_id}/{region_id}/{instance_id}/action', action);
    expect((await finished(action)).task_type).toBe('start_vm');
    const list = await req('GET', `/cloud/v1/instances/${project}/${R}`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}', list);
    const flavors = await req('GET', `/cloud/v1/flavors/${project}/${R}`);
    expectConforms('GET', '/cloud/v1/flavors/{project_id}/{region_id}', flavors);
    expect(flavors.json().results.map((f: { flavor_id: string }) => f.flavor_id)).toContain('g1-standard-1-2');
    expect((await req('GET', `/cloud/v1/flavors/${project}/${R}?exclude_linux=true`)).json()).toEqual({ count: 0, results: [] });
  });

  it('keeps dependencies: no delete of a network in use or an attached volume', async () => {
    const { networkId, subnetId } = await networkWithSubnet('deps', '10.3.0.0/24');
    const id = await instance(networkId, subnetId, 'deps-vm');
    const netDelete = await req('DELETE', `/cloud/v1/networks/${project}/${R}/${networkId}`);
    expect(netDelete.statusCode).toBe(409);
    expect(netDelete.json().message).toMatch(/port/);
    expect((await req('DELETE', `/cloud/v1/subnets/${project}/${R}/${subnetId}`)).statusCode).toBe(409);
    const vol = await finished(await req('POST', `/cloud/v1/volumes/${project}/${R}`, { source: 'new-volume', name: 'data', size: 5 }));
    const volumeId = vol.created_resources.volumes[0];
    const attached = await req('POST', `/cloud/v1/volumes/${project}/${R}/${volumeId}/attach`, { instance_id: id });
    expectConforms('POST', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/attach', attached);
    expect(attached.json()).toMatchObject({ status: 'in-use', attachments: [{ server_id: id }] });
    const refused = await req('DELETE', `/cloud/v1/volumes/${project}/${R}/${volumeId}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/attached/);
    const detached = await req('POST', `/cloud/v1/volumes/${project}/${R}/${volumeId}/detach`, { instance_id: id });
    expectConforms('POST', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/detach', detached);
    expect((await finished(await req('DELETE', `/cloud/v1/volumes/${project}/${R}/${volumeId}`))).task_type).toBe('delete_volume');
    const vmDelete = await req('DELETE', `/cloud/v1/instances/${project}/${R}/${id}`);
    expectConforms('DELETE', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', vmDelete);
    await finished(vmDelete);
    const netGone = await req('DELETE', `/cloud/v1/networks/${project}/${R}/${networkId}`);
    expectConforms('DELETE', '/cloud/v1/networks/{project_id}/{region_id}/{network_id}', netGone);
    await finished(netGone);
    expect((await req('GET', `/cloud/v1/subnets/${project}/${R}/${subnetId}`)).statusCode).toBe(404);
  });

  it('refuses a network whose create task has not finished, and overlapping subnets', async () => {
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'manual', task_type: 'create_network' } });
    const pending = await req('POST', `/cloud/v1/networks/${project}/${R}`, { name: 'pending' });
    const early = await req('POST', `/cloud/v1/subnets/${project}/${R}`, { name: 'sub-1', network_id: pending.json().id, cidr: '10.9.0.0/24' });
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toMatch(/not ready/);
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'instant' } });
    await finished(pending);
    await finished(await req('POST', `/cloud/v1/subnets/${project}/${R}`, { name: 'sub-1', network_id: pending.json().id, cidr: '10.9.0.0/24' }));
    expect((await req('POST', `/cloud/v1/subnets/${project}/${R}`, { name: 'sub-2', network_id: pending.json().id, cidr: '10.9.0.128/25' })).statusCode).toBe(
      409,
    );
    expect((await req('POST', `/cloud/v1/subnets/${project}/${R}`, { name: 'sub-3', network_id: pending.json().id, cidr: '10.9.0.1/24' })).statusCode).toBe(
      400,
    );
  });

  it('creates, assigns, unassigns and deletes a floating IP', async () => {
    const { networkId, subnetId } = await networkWithSubnet('fip', '10.4.0.0/24');
    const id = await instance(networkId, subnetId, 'fip-vm');
    const itfs = await req('GET', `/cloud/v1/instances/${project}/${R}/${id}/interfaces`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/interfaces', itfs);
    expect(itfs.json().results[0]).toMatchObject({
      network_id: networkId,
      ip_assignments: [{ ip_address: '10.4.0.2', subnet_id: subnetId }],
      network_details: { id: networkId, subnets: [{ id: subnetId }] },
    });
    const ports = itfs.json().results.map((i: { port_id: string }) => ({ id: i.port_id }));
    const created = await req('POST', `/cloud/v1/floatingips/${project}/${R}`, {});
    expectConforms('POST', '/cloud/v1/floatingips/{project_id}/{region_id}', created);
    const fipId = (await finished(created)).created_resources.floatingips[0];
    const assigned = await req('POST', `/cloud/v1/floatingips/${project}/${R}/${fipId}/assign`, { port_id: ports[0].id });
    expectConforms('POST', '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}/assign', assigned);
    expect(assigned.json()).toMatchObject({ status: 'ACTIVE', fixed_ip_address: '10.4.0.2', port_id: ports[0].id });
    const unassigned = await req('POST', `/cloud/v1/floatingips/${project}/${R}/${fipId}/unassign`);
    expectConforms('POST', '/cloud/v1/floatingips/{project_id}/{region_id}/{floating_ip_id}/unassign', unassigned);
    expect(unassigned.json()).toMatchObject({ status: 'DOWN', port_id: null });
    await req('POST', `/cloud/v1/floatingips/${project}/${R}/${fipId}/assign`, { port_id: ports[0].id });
    const list = await req('GET', `/cloud/v1/floatingips/${project}/${R}`);
    expect(list.json().results[0].instance.id).toBe(id);
    const withFip = await req('GET', `/cloud/v1/instances/${project}/${R}/${id}/interfaces`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/interfaces', withFip);
    expect(withFip.json().results[0].floatingip_details.map((f: { id: string }) => f.id)).toEqual([fipId]);
    expectConforms('GET', '/cloud/v1/floatingips/{project_id}/{region_id}', list);
    await finished(await req('DELETE', `/cloud/v1/floatingips/${project}/${R}/${fipId}`));
    expect((await req('GET', `/cloud/v1/floatingips/${project}/${R}/${fipId}`)).statusCode).toBe(404);
  });
});

describe('quotas', () => {
  it('reports limits and usage, and fails an instance over the vCPU quota with nothing left created', async () => {
    const all = await req('GET', '/cloud/v2/client_quotas');
    expectConforms('GET', '/cloud/v2/client_quotas', all);
    const regional = await req('GET', `/cloud/v2/regional_quotas/${me.clientId}/${R}`);
    expectConforms('GET', '/cloud/v2/regional_quotas/{client_id}/{region_id}', regional);
    expect(regional.json().vm_count_usage).toBeGreaterThan(0);
    expect((await req('GET', `/cloud/v2/regional_quotas/${me.clientId + 999}/${R}`)).statusCode).toBe(404);
    const global = await req('GET', `/cloud/v2/global_quotas/${me.clientId}`);
    expectConforms('GET', '/cloud/v2/global_quotas/{client_id}', global);
    const before = await t.db.kysely
      .selectFrom('cloud_resources')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('client_id', '=', me.clientId)
      .executeTakeFirstOrThrow();
    await t.request('PUT', `/_edgeplane/cloud/quotas/${me.clientId}`, { headers: t.operator, body: { cpu_count_limit: regional.json().cpu_count_usage } });
    const { networkId, subnetId } = await networkWithSubnet('quota', '10.5.0.0/24');
    const vm = await req('POST', `/cloud/v2/instances/${project}/${R}`, {
      name: 'too-big',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'subnet', network_id: networkId, subnet_id: subnetId }],
    });
    const task = (await req('GET', `/cloud/v1/tasks/${vm.json().tasks[0]}`)).json();
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(task.error).toMatch(/Quota exceeded.*vCPUs/);
    const after = await t.db.kysely
      .selectFrom('cloud_resources')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('client_id', '=', me.clientId)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 2); // the new network and subnet, nothing of the instance (the default security group existed)
    expect((await t.request('PUT', `/_edgeplane/cloud/quotas/${me.clientId}`, { headers: me.headers, body: { cpu_count_limit: 1 } })).statusCode).toBe(403);
  });

  it("holds a limit when one client's creates race: each is checked after the one before it has committed", async () => {
    const racer = await t.account();
    const own = (await req('GET', '/cloud/v1/projects', undefined, racer)).json().results[0].id;
    await t.request('PUT', `/_edgeplane/cloud/quotas/${racer.clientId}`, { headers: t.operator, body: { network_count_limit: 3, external_ip_count_limit: 2 } });
    const outcome = async (creates: Promise<{ json(): any }>[]) => {
      const tasks = await Promise.all(
        (await Promise.all(creates)).map(async (res) => (await req('GET', `/cloud/v1/tasks/${res.json().tasks[0]}`, undefined, racer)).json()),
      );
      return {
        finished: tasks.filter((task) => task.state === 'FINISHED').length,
        errors: tasks.filter((task) => task.state === 'ERROR').map((task) => task.error),
      };
    };
    // On PostgreSQL these run on several connections at once (each create is one transaction).
    const networks = await outcome(Array.from({ length: 12 }, (_, i) => req('POST', `/cloud/v1/networks/${own}/${R}`, { name: `race-${i}` }, racer)));
    expect(networks.finished).toBe(3);
    expect(networks.errors).toHaveLength(9);
    for (const error of networks.errors) expect(error).toMatch(/Quota exceeded.*networks: requested 1, in use 3, limit 3/);
    // Public addresses: the ports without a parent, kept in the usage table's port rows (migration 018).
    const vm = (i: number) => ({
      name: `public-${i}`,
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'external' }],
    });
    const instances = await outcome(Array.from({ length: 5 }, (_, i) => req('POST', `/cloud/v2/instances/${own}/${R}`, vm(i), racer)));
    expect(instances.finished).toBe(2);
    for (const error of instances.errors) expect(error).toMatch(/Quota exceeded.*public addresses: requested 1, in use 2, limit 2/);
    const usage = (await req('GET', `/cloud/v2/regional_quotas/${racer.clientId}/${R}`, undefined, racer)).json();
    expect(usage).toMatchObject({ network_count_usage: 3, vm_count_usage: 2, external_ip_count_usage: 2 });
  });

  it("answers each region of the client-wide read as the region's own read does", async () => {
    const regions = (await req('GET', '/cloud/v1/regions')).json().results.map((r: { id: number }) => r.id) as number[];
    const other = regions.find((id) => id !== R)!;
    await finished(await req('POST', `/cloud/v1/networks/${project}/${other}`, { name: 'elsewhere' }));
    await finished(await req('POST', `/cloud/v1/networks/${project}/${other}`, { name: 'elsewhere-2' }));
    const vm = { name: 'public', flavor: 'g1-standard-1-2', volumes: [{ source: 'new-volume', size: 10 }], interfaces: [{ type: 'external' }] };
    await finished(await req('POST', `/cloud/v2/instances/${project}/${other}`, vm));
    const all = (await req('GET', '/cloud/v2/client_quotas')).json();
    expect(all.regional_quotas.map((q: { region_id: number }) => q.region_id)).toEqual(regions);
    for (const id of regions) {
      const own = (await req('GET', `/cloud/v2/regional_quotas/${me.clientId}/${id}`)).json();
      expect(all.regional_quotas.find((q: { region_id: number }) => q.region_id === id)).toEqual(own);
    }
    const here = all.regional_quotas.find((q: { region_id: number }) => q.region_id === R);
    const there = all.regional_quotas.find((q: { region_id: number }) => q.region_id === other);
    expect(there).toMatchObject({ network_count_usage: 2, vm_count_usage: 1, external_ip_count_usage: 1 });
    expect(here.vm_count_usage).toBeGreaterThan(0);
    expect(here.external_ip_count_usage).toBe(0);
    expect(all.global_quotas).toEqual((await req('GET', `/cloud/v2/global_quotas/${me.clientId}`)).json());
  });
});
