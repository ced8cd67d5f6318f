// File shares through HTTP: standard shares on a network (their server takes a subnet address, a full
// subnet failing the task) and VAST shares; each type's fields checked by name; updates at once (v1) and
// through a task (v3); extends within the size quota; access rules; deletes; regions without shares;
// quotas and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
let net: { networkId: string; subnetId: string };
const R = 76;
const base = (region = R) => `/cloud/v1/file_shares/${f.project}/${region}`;
const get = async (id: string) => (await f.req('GET', `${base()}/${id}`)).json();
const create = async (body: Record<string, unknown>) => (await f.finished(await f.req('POST', base(), body))).created_resources.file_shares[0] as string;
const standard = (name: string, extra: Record<string, unknown> = {}) => ({ name, protocol: 'NFS', size: 10, network: { network_id: net.networkId }, ...extra });

beforeAll(async () => {
  f = await cloudFixture();
  net = await f.networkWithSubnet('sfs-net', '10.60.0.0/24');
});
afterAll(async () => f.close());

describe('file shares', () => {
  it("makes a standard share on a network, mounted at its server's subnet address, with its access rules", async () => {
    const res = await f.req(
      'POST',
      base(),
      standard('data', {
        access: [
          { access_mode: 'rw', ip_address: '10.60.0.0/24' },
          { access_mode: 'ro', ip_address: '192.0.2.7' },
        ],
        tags: { team: 'ml' },
      }),
    );
    expectConforms('POST', '/cloud/v1/file_shares/{project_id}/{region_id}', res);
    const task = await f.finished(res);
    expect(task).toMatchObject({ task_type: 'create_sfs', created_resources: { file_shares: [res.json().id] } });
    const got = await f.req('GET', `${base()}/${res.json().id}`);
    expectConforms('GET', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}', got);
    expect(got.json()).toMatchObject({
      name: 'data',
      protocol: 'NFS',
      size: 10,
      status: 'available',
      type_name: 'standard',
      volume_type: 'default_share_type',
      network_id: net.networkId,
      network_name: 'sfs-net',
      subnet_id: net.subnetId,
      connection_point: `10.60.0.2:/shares/share-${res.json().id}`,
      share_settings: { type_name: 'standard' },
      tags: [{ key: 'team', value: 'ml' }],
    });
    const rules = await f.req('GET', `${base()}/${res.json().id}/access_rule`);
    expectConforms('GET', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}/access_rule', rules);
    expect(rules.json().results.map((r: any) => [r.access_to, r.access_level, r.state])).toEqual([
      ['10.60.0.0/24', 'rw', 'active'],
      ['192.0.2.7/32', 'ro', 'active'],
    ]);
    const refused = await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${net.networkId}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain(`file share ${res.json().id}`);
    const list = await f.req('GET', `${base()}?type_name=standard`);
    expectConforms('GET', '/cloud/v1/file_shares/{project_id}/{region_id}', list);
    expect(list.json().results.map((s: any) => s.name)).toEqual(['data']);
  });

  it('makes a VAST share with its settings where the region offers them', async () => {
    const id = await create({ name: 'vast-data', protocol: 'NFS', size: 50, type_name: 'vast', share_settings: { root_squash: false } });
    expect(await get(id)).toMatchObject({
      type_name: 'vast',
      volume_type: 'vast_share_type',
      share_settings: { type_name: 'vast', root_squash: false, allowed_characters: 'LCD', path_length: 'LCD' },
      connection_point: expect.stringMatching(/^vast\.luxembourg-2\./),
    });
    const frankfurt = await f.req('POST', base(38), { name: 'vast-de', protocol: 'NFS', size: 50, type_name: 'vast' });
    expect(frankfurt.json().errors[0].loc).toEqual(['body', 'type_name']);
    const noShares = await f.req('POST', base(116), standard('us-share'));
    expect(noShares.statusCode).toBe(400);
    expect(noShares.json().message).toMatch(/file shares/);
  });

  it('refuses fields its type does not take, or lacks, naming them, storing nothing', async () => {
    const before = (await f.req('GET', base())).json().count;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ name: 'no-net', protocol: 'NFS', size: 10 }, ['network']],
      [standard('with-settings', { share_settings: { root_squash: true } }), ['share_settings']],
      [{ name: 'vast-net', protocol: 'NFS', size: 10, type_name: 'vast', network: { network_id: net.networkId } }, ['network']],
      [standard('mismatch', { type_name: 'standard', volume_type: 'vast_share_type' }), ['volume_type']],
      [standard('bad-rule', { access: [{ access_mode: 'rw', ip_address: '10.0.0.0/40' }] }), ['access', 0, 'ip_address']],
      [
        standard('dup-rule', {
          access: [
            { access_mode: 'rw', ip_address: '10.0.0.1' },
            { access_mode: 'ro', ip_address: '10.0.0.1/32' },
          ],
        }),
        ['access', 1, 'ip_address'],
      ],
      [standard('bad-mode', { access: [{ access_mode: 'x', ip_address: '10.0.0.1' }] }), ['access', 0, 'access_mode']],
      [{ ...standard('no-such-net'), network: { network_id: '00000000-0000-4000-8000-0000000000aa' } }, ['network', 'network_id']],
      [{ ...standard('no-such-subnet'), network: { network_id: net.networkId, subnet_id: '00000000-0000-4000-8000-0000000000ab' } }, ['network', 'subnet_id']],
      [standard('smb', { protocol: 'SMB' }), ['protocol']],
      [standard('zero', { size: 0 }), ['size']],
    ];
    for (const [body, loc] of cases) {
      const res = await f.req('POST', base(), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(body)).toEqual(['body', ...loc]);
    }
    expect((await f.req('GET', base())).json().count).toBe(before);
  });

  it('fails the create when the subnet has no address left for the server, leaving nothing', async () => {
    const tiny = await f.networkWithSubnet('sfs-tiny', '10.61.0.0/29');
    for (let i = 0; i < 5; i += 1)
      await f.finished(await f.req('POST', `/cloud/v1/reserved_fixed_ips/${f.project}/${R}`, { type: 'subnet', subnet_id: tiny.subnetId }));
    const res = await f.req('POST', base(), { name: 'no-room', protocol: 'NFS', size: 1, network: { network_id: tiny.networkId } });
    expect(await f.task(res.json().tasks[0])).toMatchObject({ state: 'ERROR', created_resources: null, error: expect.stringMatching(/No free address left/) });
    expect((await f.req('GET', `${base()}/${res.json().id}`)).statusCode).toBe(404);
  });

  it('updates at once (v1) and through a task (v3); extends within the quota; only grows', async () => {
    const id = (await f.req('GET', `${base()}?name=data`)).json().results[0].id;
    const v1 = await f.req('PATCH', `${base()}/${id}`, { name: 'data-2', tags: { team: null, env: 'prod' } });
    expectConforms('PATCH', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}', v1);
    expect(v1.json()).toMatchObject({ name: 'data-2', tags: [{ key: 'env', value: 'prod' }] });
    expect((await f.req('PATCH', `${base()}/${id}`, { share_settings: { root_squash: false } })).json().errors[0].loc).toEqual(['body', 'share_settings']);
    const v3 = `/cloud/v3/file_shares/${f.project}/${R}/${id}`;
    const noop = await f.req('PATCH', v3, { name: 'data-2' });
    expectConforms('PATCH', '/cloud/v3/file_shares/{project_id}/{region_id}/{file_share_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id });
    expect((await f.finished(await f.req('PATCH', v3, { name: 'data-3' }))).task_type).toBe('update_sfs');
    expect((await get(id)).name).toBe('data-3');
    const grown = await f.req('POST', `${base()}/${id}/extend`, { size: 20 });
    expectConforms('POST', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}/extend', grown);
    expect((await f.finished(grown)).task_type).toBe('extend_sfs');
    expect(await get(id)).toMatchObject({ size: 20, status: 'available' });
    expect((await f.req('POST', `${base()}/${id}/extend`, { size: 20 })).json().errors[0].loc).toEqual(['body', 'size']);
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json();
    expect(usage).toMatchObject({ sfs_count_usage: 2, sfs_size_usage: 70 });
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { sfs_size_limit: 80 } });
    try {
      const limits = await f.req('POST', `${base()}/check_limits`, { size: 20 });
      expectConforms('POST', '/cloud/v1/file_shares/{project_id}/{region_id}/check_limits', limits);
      expect(limits.json()).toEqual({ sfs_size_limit: 80, sfs_size_requested: 20, sfs_size_usage: 70 });
      expect((await f.req('POST', `${base()}/check_limits`, { size: 10 })).json()).toEqual({});
      const over = await f.req('POST', `${base()}/${id}/extend`, { size: 40 });
      expect(await f.task(over.json().tasks[0])).toMatchObject({
        state: 'ERROR',
        error: expect.stringMatching(/file share size \(GiB\): requested 20, in use 70, limit 80/),
      });
      expect(await get(id)).toMatchObject({ size: 20, status: 'available' });
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { sfs_size_limit: 10000 } });
    }
  });

  it('adds and removes access rules at once, each address once', async () => {
    const id = (await f.req('GET', `${base()}?name=data-3`)).json().results[0].id;
    const added = await f.req('POST', `${base()}/${id}/access_rule`, { access_mode: 'ro', ip_address: '10.70.0.0/16' });
    expectConforms('POST', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}/access_rule', added);
    expect(added.json()).toMatchObject({ access_level: 'ro', access_to: '10.70.0.0/16', state: 'active' });
    expect((await f.req('POST', `${base()}/${id}/access_rule`, { access_mode: 'rw', ip_address: '10.70.0.0/16' })).statusCode).toBe(409);
    expect((await f.req('POST', `${base()}/${id}/access_rule`, { access_mode: 'rw', ip_address: 'nope' })).json().errors[0].loc).toEqual([
      'body',
      'ip_address',
    ]);
    const removed = await f.req('DELETE', `${base()}/${id}/access_rule/${added.json().id}`);
    expect(removed.statusCode).toBe(204);
    expect((await f.req('DELETE', `${base()}/${id}/access_rule/${added.json().id}`)).statusCode).toBe(404);
    expect((await f.req('GET', `${base()}/${id}/access_rule`)).json().count).toBe(2);
  });

  it("holds a Kubernetes cluster's Slurm add-on, and cannot go while it does", async () => {
    const id = (await f.req('GET', `${base()}?name=data-3`)).json().results[0].id;
    const key = await f.sshKey('slurm-key');
    const slurm = { enabled: true, file_share_id: id, ssh_key_ids: [key], worker_count: 2 };
    const cluster = { name: 'hpc', keypair: 'slurm-key', version: 'v1.30.8', pools: [{ name: 'pool-1', flavor_id: 'g1-standard-1-2', min_node_count: 1 }] };
    const missing = await f.req('POST', `/cloud/v2/k8s/clusters/${f.project}/${R}`, {
      ...cluster,
      add_ons: { slurm: { ...slurm, file_share_id: '00000000-0000-4000-8000-0000000000aa' } },
    });
    expect(missing.json().errors[0].loc).toEqual(['body', 'add_ons', 'slurm', 'file_share_id']);
    await f.finished(await f.req('POST', `/cloud/v2/k8s/clusters/${f.project}/${R}`, { ...cluster, add_ons: { slurm } }));
    expect((await f.req('GET', `/cloud/v2/k8s/clusters/${f.project}/${R}/hpc`)).json().add_ons.slurm).toMatchObject({
      enabled: true,
      file_share_id: id,
      worker_count: 2,
    });
    const held = await f.req('DELETE', `${base()}/${id}`);
    expect(held.statusCode).toBe(409);
    expect(held.json().message).toMatch(/Slurm add-on of Kubernetes cluster hpc/);
    await f.finished(await f.req('DELETE', `/cloud/v2/k8s/clusters/${f.project}/${R}/hpc`));
  });

  it('deletes a share with its rules; then its network can go', async () => {
    const id = (await f.req('GET', `${base()}?name=data-3`)).json().results[0].id;
    const res = await f.req('DELETE', `${base()}/${id}`);
    expectConforms('DELETE', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}', res);
    expect((await f.finished(res)).task_type).toBe('delete_sfs');
    expect((await f.req('GET', `${base()}/${id}`)).statusCode).toBe(404);
    await f.finished(await f.req('DELETE', `/cloud/v1/networks/${f.project}/${R}/${net.networkId}`));
  });
});

describe('quotas and tenancy', () => {
  it('fails a share over the share count quota', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().sfs_count_usage;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { sfs_count_limit: usage } });
    try {
      const over = await f.req('POST', base(), { name: 'over', protocol: 'NFS', size: 1, type_name: 'vast' });
      expect(await f.task(over.json().tasks[0])).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/file shares: requested 1/) });
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { sfs_count_limit: 20 } });
    }
  });

  it("answers 401 without a token and 404 for another client's share", async () => {
    const id = (await f.req('GET', base())).json().results[0].id;
    expect((await f.t.request('GET', base())).statusCode).toBe(401);
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    for (const [method, url, body] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/extend', { size: 99 }],
      ['GET', '/access_rule'],
      ['POST', '/access_rule', { access_mode: 'rw', ip_address: '10.0.0.1' }],
    ] as const) {
      expect((await f.req(method, `/cloud/v1/file_shares/${project}/${R}/${id}${url}`, body, stranger)).statusCode, `${method} ${url}`).toBe(404);
    }
  });
});
