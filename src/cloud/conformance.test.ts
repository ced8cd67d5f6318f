// The remaining operations' responses against the reference, one request each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { expectConforms } from '../../tests/support/conformance.js';
import { UBUNTU } from '../../tests/cloud/fixture.js';

let t: TestApp;
let me: TestAccount;
let p: number;
const R = 38;

beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
  p = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
});
afterAll(async () => t.close());

const call = async (method: string, url: string, ref: string, body?: unknown, status = 200) => {
  const res = await t.request(method, url, { headers: me.headers, body });
  expect(res.statusCode, res.body).toBe(status);
  expectConforms(method, ref, res);
  return res.json();
};
const taskOf = async (res: { tasks: string[] }) => (await t.request('GET', `/cloud/v1/tasks/${res.tasks[0]}`, { headers: me.headers })).json();

describe('every implemented cloud operation conforms', () => {
  it('regions, networks, subnets', async () => {
    const region = await call('GET', `/cloud/v1/regions/${R}`, '/cloud/v1/regions/{region_id}');
    expect(region).toMatchObject({ id: R, access_level: 'core', has_kvm: true, has_baremetal: false, state: 'ACTIVE' });
    expect((await t.request('GET', '/cloud/v1/regions/999', { headers: me.headers })).statusCode).toBe(404);
    const net = await call('POST', `/cloud/v1/networks/${p}/${R}`, '/cloud/v1/networks/{project_id}/{region_id}', {
      name: 'net-n',
      type: 'vlan',
      tags: { env: 'test' },
    });
    const networkId = (await taskOf(net)).created_resources.networks[0];
    const renamed = await call('PATCH', `/cloud/v1/networks/${p}/${R}/${networkId}`, '/cloud/v1/networks/{project_id}/{region_id}/{network_id}', {
      name: 'net-n2',
    });
    expect(renamed).toMatchObject({ name: 'net-n2', type: 'vlan', tags: [{ key: 'env', value: 'test', read_only: false }] });
    expect(
      await call('PATCH', `/cloud/v2/networks/${p}/${R}/${networkId}`, '/cloud/v2/networks/{project_id}/{region_id}/{network_id}', { name: 'net-n2' }),
    ).toEqual({ tasks: [], id: networkId });
    const v2 = await call('PATCH', `/cloud/v2/networks/${p}/${R}/${networkId}`, '/cloud/v2/networks/{project_id}/{region_id}/{network_id}', {
      tags: { team: 'a' },
    });
    expect((await taskOf(v2)).task_type).toBe('update_network');
    expect(
      (await t.request('GET', `/cloud/v1/networks/${p}/${R}/${networkId}`, { headers: me.headers })).json().tags.map((x: { key: string }) => x.key),
    ).toEqual(['env', 'team']);
    const sub = await call('POST', `/cloud/v1/subnets/${p}/${R}`, '/cloud/v1/subnets/{project_id}/{region_id}', {
      name: 'sub-1',
      network_id: networkId,
      cidr: '192.168.0.0/24',
      dns_nameservers: ['8.8.8.8'],
    });
    const subnetId = (await taskOf(sub)).created_resources.subnets[0];
    const list = await call('GET', `/cloud/v1/subnets/${p}/${R}?network_id=${networkId}`, '/cloud/v1/subnets/{project_id}/{region_id}');
    expect(list.count).toBe(1);
    const patched = await call('PATCH', `/cloud/v1/subnets/${p}/${R}/${subnetId}`, '/cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}', {
      name: 'sub-2',
      enable_dhcp: false,
    });
    expect(patched).toMatchObject({ name: 'sub-2', enable_dhcp: false, total_ips: 253, available_ips: 253 });
    const removed = await call('DELETE', `/cloud/v1/subnets/${p}/${R}/${subnetId}`, '/cloud/v1/subnets/{project_id}/{region_id}/{subnet_id}');
    expect((await taskOf(removed)).state).toBe('FINISHED');
  });

  it('volumes and Kubernetes clusters', async () => {
    const vol = await call('POST', `/cloud/v1/volumes/${p}/${R}`, '/cloud/v1/volumes/{project_id}/{region_id}', {
      source: 'new-volume',
      name: 'vol',
      size: 3,
      type_name: 'cold',
    });
    const volumeId = (await taskOf(vol)).created_resources.volumes[0];
    const vols = await call('GET', `/cloud/v1/volumes/${p}/${R}`, '/cloud/v1/volumes/{project_id}/{region_id}');
    expect(vols.results[0]).toMatchObject({ id: volumeId, volume_type: 'cold', status: 'available' });
    await call('DELETE', `/cloud/v1/volumes/${p}/${R}/${volumeId}`, '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}');
    const versions = await call('GET', `/cloud/v2/k8s/${p}/${R}/create_versions`, '/cloud/v2/k8s/{project_id}/{region_id}/create_versions');
    expect(versions.count).toBe(4);
    await call('POST', `/cloud/v1/ssh_keys/${p}`, '/cloud/v1/ssh_keys/{project_id}', { name: 'key' }, 201);
    const cluster = await call('POST', `/cloud/v2/k8s/clusters/${p}/${R}`, '/cloud/v2/k8s/clusters/{project_id}/{region_id}', {
      name: 'k1',
      keypair: 'key',
      version: versions.results[0].version,
      pools: [{ name: 'p1', flavor_id: 'g1-standard-2-4', min_node_count: 1, max_node_count: 3 }],
    });
    expect((await taskOf(cluster)).created_resources.k8s_clusters).toEqual([cluster.id]);
    const clusters = await call('GET', `/cloud/v2/k8s/clusters/${p}/${R}`, '/cloud/v2/k8s/clusters/{project_id}/{region_id}');
    expect(clusters.results[0]).toMatchObject({ name: 'k1', status: 'Provisioned', pools: [{ name: 'p1', node_count: 1, max_node_count: 3 }] });
    expect(
      (
        await t.request('POST', `/cloud/v2/k8s/clusters/${p}/${R}`, {
          headers: me.headers,
          body: { name: 'k1', keypair: 'key', version: 'v1.30.8', pools: [{ name: 'p2', flavor_id: 'g1-standard-2-4', min_node_count: 1 }] },
        })
      ).statusCode,
    ).toBe(409);
    const gone = await call('DELETE', `/cloud/v2/k8s/clusters/${p}/${R}/k1`, '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}');
    expect((await taskOf(gone)).task_type).toBe('delete_k8s_cluster_v2');
    expect((await t.request('GET', `/cloud/v2/k8s/clusters/${p}/${R}/k1`, { headers: me.headers })).statusCode).toBe(404);
  });

  it('lists an external interface with the public network', async () => {
    const vm = await call('POST', `/cloud/v2/instances/${p}/${R}`, '/cloud/v2/instances/{project_id}/{region_id}', {
      name: 'edge',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'image', image_id: UBUNTU, size: 10, boot_index: 0 }],
      interfaces: [{ type: 'external', interface_name: 'eth0' }],
    });
    const itfs = await call(
      'GET',
      `/cloud/v1/instances/${p}/${R}/${vm.id}/interfaces`,
      '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/interfaces',
    );
    expect(itfs.results).toHaveLength(1);
    expect(itfs.results[0]).toMatchObject({ interface_name: 'eth0', network_details: { external: true, name: 'public' } });
  });

  it('pages lists with limit and offset and reports the total', async () => {
    for (const name of ['net-a', 'net-b', 'net-c']) await call('POST', `/cloud/v1/networks/${p}/${R}`, '/cloud/v1/networks/{project_id}/{region_id}', { name });
    const page = await call('GET', `/cloud/v1/networks/${p}/${R}?limit=2&offset=2`, '/cloud/v1/networks/{project_id}/{region_id}');
    expect(page.count).toBe(4);
    expect(page.results).toHaveLength(2);
    const empty = await call('GET', `/cloud/v1/networks/${p}/${R}?limit=0`, '/cloud/v1/networks/{project_id}/{region_id}');
    expect(empty).toEqual({ count: 4, results: [] });
    const byName = await call('GET', `/cloud/v1/networks/${p}/${R}?order_by=name.desc&limit=2`, '/cloud/v1/networks/{project_id}/{region_id}');
    expect(byName.results.map((n: { name: string }) => n.name)).toEqual(['net-n2', 'net-c']);
    expect((await t.request('GET', `/cloud/v1/networks/${p}/${R}?name=net-b`, { headers: me.headers })).json().count).toBe(1);
    expect((await t.request('GET', `/cloud/v1/networks/${p}/${R}?limit=1001`, { headers: me.headers })).statusCode).toBe(400);
  });
});
