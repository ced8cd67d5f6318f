// End to end through HTTP, the way the official client drives it: create, poll the task, read the
// new ID from created_resources, build on it; then an upgrade and a quota failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { expectConforms } from '../../tests/support/conformance.js';

let t: TestApp;
let me: TestAccount;
let project: number;
const region = 76;

beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
});
afterAll(async () => t.close());

async function poll(taskId: string) {
  const res = await t.request('GET', `/cloud/v1/tasks/${taskId}`, { headers: me.headers });
  expect(res.statusCode).toBe(200);
  expectConforms('GET', '/cloud/v1/tasks/{task_id}', res);
  return res.json();
}

describe('cloud end to end (instant mode)', () => {
  it('gives every client a default project', async () => {
    const res = await t.request('GET', '/cloud/v1/projects', { headers: me.headers });
    expect(res.statusCode).toBe(200);
    expectConforms('GET', '/cloud/v1/projects', res);
    const body = res.json();
    expect(body.count).toBe(1);
    expect(body.results[0]).toMatchObject({ is_default: true, state: 'ACTIVE', client_id: me.clientId });
    project = body.results[0].id;
  });

  it('creates a network, subnet and instance, upgrades a cluster, then hits a quota', async () => {
    const net = await t.request('POST', `/cloud/v1/networks/${project}/${region}`, { headers: me.headers, body: { name: 'backend' } });
    expect(net.statusCode).toBe(200);
    expectConforms('POST', '/cloud/v1/networks/{project_id}/{region_id}', net);
    expect(net.json().tasks).toHaveLength(1);
    const netTask = await poll(net.json().tasks[0]);
    expect(netTask).toMatchObject({ state: 'FINISHED', task_type: 'create_network', project_id: project, region_id: region, error: null, user_id: me.userId });
    expect(netTask.created_resources.networks).toHaveLength(1);
    expect(netTask.created_resources.subnets).toEqual([]);
    const networkId = netTask.created_resources.networks[0];
    const got = await t.request('GET', `/cloud/v1/networks/${project}/${region}/${networkId}`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/networks/{project_id}/{region_id}/{network_id}', got);
    expect(got.json()).toMatchObject({ name: 'backend', task_id: null, creator_task_id: netTask.id });

    const sub = await t.request('POST', `/cloud/v1/subnets/${project}/${region}`, {
      headers: me.headers,
      body: { name: 'backend-a', network_id: networkId, cidr: '10.0.1.0/24' },
    });
    expect(sub.statusCode).toBe(200);
    const subTask = await poll(sub.json().tasks[0]);
    expect(subTask.state).toBe('FINISHED');
    const subnetId = subTask.created_resources.subnets[0];
    const subGet = await t.request('GET', `/cloud/v1/subnets/${project}/${region}/${subnetId}`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}', subGet);
    expect(subGet.json()).toMatchObject({ cidr: '10.0.1.0/24', gateway_ip: '10.0.1.1', network_id: networkId });

    const vm = await t.request('POST', `/cloud/v2/instances/${project}/${region}`, {
      headers: me.headers,
      body: {
        name: 'web-1',
        flavor: 'g1-standard-2-4',
        volumes: [{ source: 'new-volume', size: 20, type_name: 'ssd_hiiops' }],
        interfaces: [{ type: 'subnet', network_id: networkId, subnet_id: subnetId }],
      },
    });
    expect(vm.statusCode).toBe(200);
    expectConforms('POST', '/cloud/v2/instances/{project_id}/{region_id}', vm);
    const vmTask = await poll(vm.json().tasks[0]);
    expect(vmTask.state).toBe('FINISHED');
    expect(vmTask.created_resources.instances).toHaveLength(1);
    const instance = await t.request('GET', `/cloud/v1/instances/${project}/${region}/${vmTask.created_resources.instances[0]}`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}', instance);
    expect(instance.json()).toMatchObject({ name: 'web-1', status: 'ACTIVE', vm_state: 'active', addresses: { backend: [{ addr: '10.0.1.2' }] } });
    expect(instance.json().volumes).toHaveLength(1);

    const key = await t.request('POST', `/cloud/v1/ssh_keys/${project}`, { headers: me.headers, body: { name: 'my-key' } });
    expect(key.statusCode).toBe(201);
    expect(key.json().private_key).toMatch(/BEGIN OPENSSH PRIVATE KEY/);
    const cluster = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/${region}`, {
      headers: me.headers,
      body: { name: 'prod', keypair: 'my-key', version: 'v1.30.8', pools: [{ name: 'pool-1', flavor_id: 'g1-standard-2-4', min_node_count: 2 }] },
    });
    expect(cluster.statusCode).toBe(200);
    expect((await poll(cluster.json().tasks[0])).created_resources.k8s_clusters).toHaveLength(1);
    const versions = await t.request('GET', `/cloud/v2/k8s/clusters/${project}/${region}/prod/upgrade_versions`, { headers: me.headers });
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/upgrade_versions', versions);
    expect(versions.json().results.map((v: { version: string }) => v.version)).toEqual(['v1.31.4', 'v1.32.1']);
    const upgrade = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/${region}/prod/upgrade`, { headers: me.headers, body: { version: 'v1.31.4' } });
    expect(upgrade.statusCode).toBe(200);
    expectConforms('POST', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/upgrade', upgrade);
    expect((await poll(upgrade.json().tasks[0])).state).toBe('FINISHED');
    const upgraded = await t.request('GET', `/cloud/v2/k8s/clusters/${project}/${region}/prod`, { headers: me.headers });
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}', upgraded);
    expect(upgraded.json()).toMatchObject({ version: 'v1.31.4', status: 'Provisioned' });

    const quota = await t.request('PUT', `/_edgeplane/cloud/quotas/${me.clientId}`, { headers: t.operator, body: { network_count_limit: 1 } });
    expect(quota.statusCode).toBe(200);
    const over = await t.request('POST', `/cloud/v1/networks/${project}/${region}`, { headers: me.headers, body: { name: 'one-too-many' } });
    expect(over.statusCode).toBe(200);
    const failed = await poll(over.json().tasks[0]);
    expect(failed).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(failed.error).toMatch(/Quota exceeded.*networks.*limit 1/);
    const list = await t.request('GET', `/cloud/v1/networks/${project}/${region}`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/networks/{project_id}/{region_id}', list);
    expect(list.json().results.map((n: { name: string }) => n.name)).toEqual(['backend']);
  });
});
