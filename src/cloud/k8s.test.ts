// Kubernetes through HTTP: clusters whose nodes are instances of the project (with boot volumes, in the
// quotas), their kubeconfig and certificates (real X.509), updates, pools (create, change, resize,
// delete), nodes, quota checks, and the keys and security groups a cluster must name.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';

let f: CloudFixture;
const R = 76;
const base = () => `/cloud/v2/k8s/clusters/${f.project}/${R}`;
const clusterBody = (
  name: string,
  pools: Record<string, unknown>[] = [{ name: 'workers', flavor_id: 'g1-standard-2-4', min_node_count: 2, max_node_count: 4 }],
) => ({ name, keypair: 'k8s-key', version: 'v1.30.8', pools });

beforeAll(async () => {
  f = await cloudFixture();
  await f.sshKey('k8s-key');
  await f.finished(await f.req('POST', base(), clusterBody('main')));
});
afterAll(async () => f.close());

describe('clusters', () => {
  it('runs its nodes as instances of the project, with boot volumes, counted in the quotas', async () => {
    const cluster = (await f.req('GET', `${base()}/main`)).json();
    expect(cluster).toMatchObject({ status: 'Provisioned', keypair: 'k8s-key', pools: [{ name: 'workers', node_count: 2, status: 'Running' }] });
    const nodes = await f.req('GET', `${base()}/main/instances`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/instances', nodes);
    expect(nodes.json().count).toBe(2);
    expect(nodes.json().results[0]).toMatchObject({ status: 'ACTIVE', ssh_key_name: 'k8s-key', flavor: { flavor_id: 'g1-standard-2-4' } });
    const instances = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}`)).json();
    expect(instances.count).toBe(2);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}?include_k8s=false`)).json().count).toBe(0);
    const volumes = (await f.req('GET', `/cloud/v1/volumes/${f.project}/${R}?cluster_id=${cluster.id}`)).json();
    expect(volumes.results).toMatchObject([
      { size: 50, is_root_volume: true },
      { size: 50, is_root_volume: true },
    ]);
    const quotas = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json();
    expect(quotas).toMatchObject({ cluster_count_usage: 1, vm_count_usage: 2, cpu_count_usage: 4, volume_size_usage: 100 });
    const node = nodes.json().results[0].id;
    const refused = await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${node}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/node of Kubernetes cluster main/);
  });

  it('gives a provisioned cluster a kubeconfig and a CA of its own', async () => {
    const config = await f.req('GET', `${base()}/main/config`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/config', config);
    const body = config.json();
    const ca = new X509Certificate(Buffer.from(body.cluster_ca_certificate, 'base64'));
    const client = new X509Certificate(Buffer.from(body.client_certificate, 'base64'));
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(client.subject).toMatch(/system:masters/);
    expect(body.config).toContain(`server: ${body.host}`);
    expect(body.config).toContain(`client-certificate-data: ${body.client_certificate}`);
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(365 * 86_400_000);
    const certs = await f.req('GET', `${base()}/main/certificates`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/certificates', certs);
    expect(new X509Certificate(certs.json().certificate).fingerprint256).toBe(ca.fingerprint256);
    expect((await f.req('GET', `${base()}/main`)).json().authentication.kubeconfig_expires_at).toBe(body.expires_at);
  });

  it('updates settings through a task, with no task when nothing changes', async () => {
    const noop = await f.req('PATCH', `${base()}/main`, {});
    expectConforms('PATCH', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}', noop);
    expect(noop.json().tasks).toEqual([]);
    const changed = await f.req('PATCH', `${base()}/main`, {
      autoscaler_config: { 'scale-down-enabled': 'true' },
      logging: { enabled: true, topic_name: 'k8s.logs' },
    });
    expect((await f.finished(changed)).task_type).toBe('update_k8s_cluster_v2');
    expect((await f.req('GET', `${base()}/main`)).json()).toMatchObject({
      autoscaler_config: { 'scale-down-enabled': 'true' },
      logging: { enabled: true, topic_name: 'k8s.logs' },
    });
    expect((await f.req('PATCH', `${base()}/main`, { autoscaler_config: { 'scale-down-enabled': 'true' } })).json().tasks).toEqual([]);
    const slurm = await f.req('PATCH', `${base()}/main`, {
      add_ons: {
        slurm: { enabled: true, file_share_id: '00000000-0000-4000-8000-000000000005', ssh_key_ids: ['00000000-0000-4000-8000-000000000006'], worker_count: 1 },
      },
    });
    expect(slurm.statusCode).toBe(400);
  });

  it('refuses unknown flavors, security groups, a repeated pool name, a bad fixed network', async () => {
    const bad = async (body: Record<string, unknown>, loc: (string | number)[]) => {
      const res = await f.req('POST', base(), body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0].loc).toEqual(['body', ...loc]);
    };
    await bad(clusterBody('c-flavor', [{ name: 'p1', flavor_id: 'no-such', min_node_count: 1 }]), ['pools', 0, 'flavor_id']);
    await bad(
      clusterBody('c-groups', [{ name: 'p1', flavor_id: 'g1-standard-2-4', min_node_count: 1, security_group_ids: ['00000000-0000-4000-8000-00000000abcd'] }]),
      ['pools', 0, 'security_group_ids'],
    );
    await bad(
      clusterBody('c-dup', [
        { name: 'p1', flavor_id: 'g1-standard-2-4', min_node_count: 1 },
        { name: 'p1', flavor_id: 'g1-standard-2-4', min_node_count: 1 },
      ]),
      ['pools', 1, 'name'],
    );
    await bad(clusterBody('c-range', [{ name: 'p1', flavor_id: 'g1-standard-2-4', min_node_count: 3, max_node_count: 2 }]), ['pools', 0, 'max_node_count']);
    await bad({ ...clusterBody('c-net'), fixed_network: '00000000-0000-4000-8000-00000000abcd' }, ['fixed_network']);
    expect((await f.req('POST', base(), clusterBody('main'))).statusCode).toBe(409);
  });

  it('fails a cluster whose nodes go over the instance quota, leaving nothing', async () => {
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { vm_count_limit: 3 } });
    const check = await f.req('POST', `${base()}/check_limits`, { pools: [{ flavor_id: 'g1-standard-2-4', min_node_count: 2 }] });
    expectConforms('POST', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/check_limits', check);
    expect(check.json()).toEqual({ vm_count_limit: 3, vm_count_requested: 2, vm_count_usage: 2 });
    const over = await f.req('POST', base(), clusterBody('too-big'));
    const task = await f.task(over.json().tasks[0]);
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(task.error).toMatch(/instances: requested 2, in use 2, limit 3/);
    expect((await f.req('GET', `${base()}/too-big`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}`)).json().count).toBe(2);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { vm_count_limit: 50 } });
    const fits = await f.req('POST', `${base()}/pools/check_limits`, { flavor_id: 'g1-standard-2-4', node_count: 2 });
    expectConforms('POST', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/pools/check_limits', fits);
    expect(fits.json()).toEqual({});
  });
});

describe('pools and nodes', () => {
  it('adds a pool through a task, changes it at once, resizes it through a task, and deletes it', async () => {
    const created = await f.req('POST', `${base()}/main/pools`, {
      name: 'extra',
      flavor_id: 'g1-standard-1-2',
      min_node_count: 1,
      max_node_count: 3,
      labels: { role: 'batch' },
      taints: { dedicated: 'batch:NoSchedule' },
    });
    expectConforms('POST', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools', created);
    expect((await f.finished(created)).created_resources.k8s_pools).toEqual([created.json().id]);
    const got = await f.req('GET', `${base()}/main/pools/extra`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools/{pool_name}', got);
    expect(got.json()).toMatchObject({ name: 'extra', node_count: 1, status: 'Running', labels: { role: 'batch' } });
    const list = await f.req('GET', `${base()}/main/pools`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools', list);
    expect(list.json().count).toBe(2);
    const patched = await f.req('PATCH', `${base()}/main/pools/extra`, { auto_healing_enabled: true, max_node_count: 5, node_count: 2 });
    expectConforms('PATCH', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools/{pool_name}', patched);
    expect(patched.json()).toMatchObject({ auto_healing_enabled: true, max_node_count: 5, node_count: 2 });
    expect((await f.req('GET', `${base()}/main/pools/extra/instances`)).json().count).toBe(2);
    expect((await f.req('PATCH', `${base()}/main/pools/extra`, { node_count: 9 })).statusCode).toBe(400);
    const resized = await f.req('POST', `${base()}/main/pools/extra/resize`, { node_count: 4 });
    expectConforms('POST', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools/{pool_name}/resize', resized);
    expect((await f.finished(resized)).task_type).toBe('resize_k8s_cluster_v2');
    const nodes = await f.req('GET', `${base()}/main/pools/extra/instances`);
    expectConforms('GET', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools/{pool_name}/instances', nodes);
    expect(nodes.json().count).toBe(4);
    await f.finished(await f.req('POST', `${base()}/main/pools/extra/resize`, { node_count: 1 }));
    expect((await f.req('GET', `${base()}/main/pools/extra/instances`)).json().count).toBe(1);
    expect((await f.req('POST', `${base()}/main/pools/extra/resize`, { node_count: 6 })).statusCode).toBe(400);
    const deleted = await f.req('DELETE', `${base()}/main/pools/extra`);
    expectConforms('DELETE', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/pools/{pool_name}', deleted);
    expect((await f.finished(deleted)).task_type).toBe('delete_k8s_cluster_pool_v2');
    expect((await f.req('GET', `${base()}/main/pools/extra`)).statusCode).toBe(404);
    expect((await f.req('GET', `${base()}/main/instances`)).json().count).toBe(2);
    const last = await f.req('DELETE', `${base()}/main/pools/workers`);
    expect(last.statusCode).toBe(409);
    expect(last.json().message).toMatch(/last pool/);
  });

  it("deletes a node, never below the pool's minimum", async () => {
    await f.finished(await f.req('POST', `${base()}/main/pools/workers/resize`, { node_count: 3 }));
    const [first] = (await f.req('GET', `${base()}/main/pools/workers/instances`)).json().results;
    const gone = await f.req('DELETE', `${base()}/main/pools/workers/instances/${first.id}`);
    expect(gone.statusCode).toBe(204);
    expect((await f.req('GET', `${base()}/main/pools/workers`)).json().node_count).toBe(2);
    const [next] = (await f.req('GET', `${base()}/main/instances`)).json().results;
    const refused = await f.req('DELETE', `${base()}/main/instances/${next.id}`);
    expect(refused.statusCode).toBe(409);
    expect((await f.req('DELETE', `${base()}/main/instances/00000000-0000-4000-8000-000000000077`)).statusCode).toBe(404);
  });

  it('lists node flavors and deletes a cluster with its pools, nodes and the volumes named', async () => {
    const flavors = await f.req('GET', `/cloud/v1/k8s/${f.project}/${R}/flavors`);
    expectConforms('GET', '/cloud/v1/k8s/{project_id}/{region_id}/flavors', flavors);
    expect(flavors.json().results.map((x: { flavor_id: string }) => x.flavor_id)).toContain('g1-standard-2-4');
    await f.finished(await f.req('POST', base(), clusterBody('doomed', [{ name: 'p1', flavor_id: 'g1-standard-1-2', min_node_count: 1 }])));
    const pvc = (await f.finished(await f.req('POST', `/cloud/v1/volumes/${f.project}/${R}`, { source: 'new-volume', name: 'pvc-data', size: 1 })))
      .created_resources.volumes[0];
    const gone = await f.req('DELETE', `${base()}/doomed?volumes=${pvc}`);
    expectConforms('DELETE', '/cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}', gone);
    await f.finished(gone);
    expect((await f.req('GET', `${base()}/doomed`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/volumes/${f.project}/${R}/${pvc}`)).statusCode).toBe(404);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}`)).json().count).toBe(2);
  });

  it('hides clusters, pools and nodes of another client', async () => {
    const stranger = await f.t.account();
    for (const url of [`${base()}/main`, `${base()}/main/pools`, `${base()}/main/instances`, `${base()}/main/config`])
      expect((await f.req('GET', url, undefined, stranger)).statusCode, url).toBe(404);
    expect((await f.req('POST', `${base()}/main/pools`, { name: 'theirs', flavor_id: 'g1-standard-1-2', min_node_count: 1 }, stranger)).statusCode).toBe(404);
  });
});
