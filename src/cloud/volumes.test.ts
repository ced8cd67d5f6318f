// Volumes and their snapshots through HTTP: snapshots taken and deleted through tasks, volumes and
// instance boot volumes made from them, the v2 attach and detach tasks, extend, retype, revert and
// update, the snapshots a delete must name, list filters and quotas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, UBUNTU, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';

let f: CloudFixture;
const R = 76;
const volumes = () => `/cloud/v1/volumes/${f.project}/${R}`;
const snapshots = () => `/cloud/v1/snapshots/${f.project}/${R}`;
const volume = async (id: string) => (await f.req('GET', `${volumes()}/${id}`)).json();
const newVolume = async (body: Record<string, unknown>) => (await f.finished(await f.req('POST', volumes(), body))).created_resources.volumes[0] as string;

beforeAll(async () => {
  f = await cloudFixture();
});
afterAll(async () => f.close());

describe('snapshots', () => {
  it('takes a snapshot through a task, lists, renames and deletes it', async () => {
    const vol = await newVolume({ source: 'image', name: 'snap-source', size: 15, image_id: UBUNTU, type_name: 'ssd_hiiops' });
    const created = await f.req('POST', snapshots(), { name: 'before-upgrade', volume_id: vol, description: 'safety', tags: { k: 'v' } });
    expectConforms('POST', '/cloud/v1/snapshots/{project_id}/{region_id}', created);
    const task = await f.finished(created);
    expect(task).toMatchObject({ task_type: 'create_snapshot', created_resources: { snapshots: [created.json().id] } });
    const got = await f.req('GET', `${snapshots()}/${created.json().id}`);
    expectConforms('GET', '/cloud/v1/snapshots/{project_id}/{region_id}/{snapshot_id}', got);
    expect(got.json()).toMatchObject({
      name: 'before-upgrade',
      volume_id: vol,
      size: 15,
      status: 'available',
      description: 'safety',
      creator_task_id: task.id,
    });
    expect((await volume(vol)).snapshot_ids).toEqual([created.json().id]);
    const list = await f.req('GET', `${snapshots()}?volume_id=${vol}`);
    expectConforms('GET', '/cloud/v1/snapshots/{project_id}/{region_id}', list);
    expect(list.json().count).toBe(1);
    expect((await f.req('GET', `${snapshots()}?lifecycle_policy_id=3`)).json().count).toBe(0);
    const renamed = await f.req('PATCH', `${snapshots()}/${created.json().id}`, { name: 'renamed', tags: { k: null } });
    expectConforms('PATCH', '/cloud/v1/snapshots/{project_id}/{region_id}/{snapshot_id}', renamed);
    expect(renamed.json()).toMatchObject({ name: 'renamed', tags: [] });
    const deleted = await f.req('DELETE', `${snapshots()}/${created.json().id}`);
    expectConforms('DELETE', '/cloud/v1/snapshots/{project_id}/{region_id}/{snapshot_id}', deleted);
    expect((await f.finished(deleted)).task_type).toBe('delete_snapshot');
    expect((await f.req('GET', `${snapshots()}/${created.json().id}`)).statusCode).toBe(404);
  });

  it('makes volumes and instance boot volumes from a snapshot, of its size and type', async () => {
    const vol = await newVolume({ source: 'image', name: 'origin', size: 12, image_id: UBUNTU, type_name: 'ssd_hiiops' });
    const snap = (await f.finished(await f.req('POST', snapshots(), { name: 'snap', volume_id: vol }))).created_resources.snapshots[0];
    const copy = await volume(await newVolume({ source: 'snapshot', name: 'copy', snapshot_id: snap }));
    expect(copy).toMatchObject({ size: 12, volume_type: 'ssd_hiiops', bootable: true, volume_image_metadata: { image_id: UBUNTU } });
    const wrongSize = await f.req('POST', volumes(), { source: 'snapshot', name: 'copy-2', snapshot_id: snap, size: 20 });
    expect(wrongSize.statusCode).toBe(400);
    expect(wrongSize.json().errors[0]).toMatchObject({ loc: ['body', 'size'], msg: expect.stringMatching(/must equal the size of snapshot/) });
    expect((await f.req('POST', volumes(), { source: 'snapshot', name: 'copy-3' })).statusCode).toBe(400);
    expect((await f.req('POST', volumes(), { source: 'snapshot', name: 'copy-4', snapshot_id: '00000000-0000-4000-8000-00000000dead' })).statusCode).toBe(400);
    const vm = await f.instance('from-snap', { volumes: [{ source: 'snapshot', snapshot_id: snap, size: 12, type_name: 'standard', boot_index: 0 }] });
    const boot = (await f.req('GET', `${volumes()}?instance_id=${vm}`)).json().results[0];
    expect(boot).toMatchObject({ size: 12, volume_type: 'standard', is_root_volume: true, bootable: true });
  });

  it('counts snapshots in their quotas: over them the task fails', async () => {
    const vol = await newVolume({ source: 'new-volume', name: 'quota-src', size: 3 });
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().volume_snapshots_count_usage;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { volume_snapshots_count_limit: usage } });
    const over = await f.req('POST', snapshots(), { name: 'over', volume_id: vol });
    expect((await f.task(over.json().tasks[0])).error).toMatch(/volume snapshots: requested 1/);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { volume_snapshots_count_limit: 100 } });
  });
});

describe('volume actions', () => {
  it('attaches and detaches through v2 tasks', async () => {
    const vm = await f.instance('attach-vm');
    const vol = await newVolume({ source: 'new-volume', name: 'data', size: 5, tags: { a: '1', b: '2' } });
    await f.setMode('manual', 'attach_volume');
    const attach = await f.req('POST', `/cloud/v2/volumes/${f.project}/${R}/${vol}/attach`, { instance_id: vm, attachment_tag: 'data-disk' });
    expectConforms('POST', '/cloud/v2/volumes/{project_id}/{region_id}/{volume_id}/attach', attach);
    expect(await volume(vol)).toMatchObject({ status: 'attaching', task_id: attach.json().tasks[0], attachments: [] });
    expect((await f.req('DELETE', `${volumes()}/${vol}`)).statusCode).toBe(409);
    await f.setMode('instant');
    expect((await f.task(attach.json().tasks[0])).state).toBe('FINISHED');
    expect(await volume(vol)).toMatchObject({ status: 'in-use', attachments: [{ server_id: vm, instance_name: 'attach-vm', flavor_id: 'g1-standard-1-2' }] });
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}`)).json().volumes.map((v: { id: string }) => v.id)).toContain(vol);
    const boot = (await f.req('GET', `${volumes()}?instance_id=${vm}&bootable=true`)).json().results[0].id;
    expect((await f.req('POST', `/cloud/v2/volumes/${f.project}/${R}/${boot}/detach`, { instance_id: vm })).statusCode).toBe(400);
    expect((await f.req('POST', `/cloud/v2/volumes/${f.project}/${R}/${vol}/detach`, { instance_id: boot })).statusCode).toBe(400);
    const detach = await f.req('POST', `/cloud/v2/volumes/${f.project}/${R}/${vol}/detach`, { instance_id: vm });
    expectConforms('POST', '/cloud/v2/volumes/{project_id}/{region_id}/{volume_id}/detach', detach);
    expect((await f.finished(detach)).task_type).toBe('detach_volume');
    expect(await volume(vol)).toMatchObject({ status: 'available', attachments: [] });
    const patched = await f.req('PATCH', `${volumes()}/${vol}`, { name: 'data-2', tags: { a: null, c: '3' } });
    expectConforms('PATCH', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}', patched);
    expect(patched.json()).toMatchObject({
      name: 'data-2',
      tags: [
        { key: 'b', value: '2' },
        { key: 'c', value: '3' },
      ],
    });
  });

  it('extends (a task, only larger, within quota) and retypes', async () => {
    const vol = await newVolume({ source: 'new-volume', name: 'grow', size: 5 });
    const extend = await f.req('POST', `${volumes()}/${vol}/extend`, { size: 8 });
    expectConforms('POST', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/extend', extend);
    expect((await f.finished(extend)).task_type).toBe('extend_volume');
    expect(await volume(vol)).toMatchObject({ size: 8, status: 'available' });
    expect((await f.req('POST', `${volumes()}/${vol}/extend`, { size: 8 })).statusCode).toBe(400);
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().volume_size_usage;
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { volume_size_limit: usage + 1 } });
    const over = await f.req('POST', `${volumes()}/${vol}/extend`, { size: 10 });
    expect((await f.task(over.json().tasks[0])).error).toMatch(/volume size \(GiB\): requested 2/);
    expect(await volume(vol)).toMatchObject({ size: 8, status: 'available', task_id: null });
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { volume_size_limit: 10_000 } });
    const retyped = await f.req('POST', `${volumes()}/${vol}/retype`, { volume_type: 'ssd_hiiops' });
    expectConforms('POST', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/retype', retyped);
    expect(retyped.json().volume_type).toBe('ssd_hiiops');
    expect((await f.req('POST', `${volumes()}/${vol}/retype`, { volume_type: 'ssd_hiiops' })).statusCode).toBe(400);
    expect((await f.req('POST', `${volumes()}/${vol}/retype`, { volume_type: 'cold' })).statusCode).toBe(400);
  });

  it('reverts a detached volume to its newest snapshot, and deletes it with the snapshots it names', async () => {
    const vol = await newVolume({ source: 'new-volume', name: 'revertible', size: 4 });
    expect((await f.req('POST', `${volumes()}/${vol}/revert`)).statusCode).toBe(400);
    const snap = (await f.finished(await f.req('POST', snapshots(), { name: 'point', volume_id: vol }))).created_resources.snapshots[0];
    const reverted = await f.req('POST', `${volumes()}/${vol}/revert`);
    expect(reverted.statusCode).toBe(200);
    expectConforms('POST', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/revert', reverted);
    const tasks = (await f.t.request('GET', '/cloud/v1/tasks', { headers: f.me.headers, query: { task_type: 'revert_volume' } })).json();
    expect(tasks.results[0]).toMatchObject({ state: 'FINISHED', data: { volume_id: vol, snapshot_id: snap } });
    const refused = await f.req('DELETE', `${volumes()}/${vol}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/has snapshot/);
    expect((await f.req('DELETE', `${volumes()}/${vol}?snapshots=00000000-0000-4000-8000-000000000001`)).statusCode).toBe(400);
    await f.finished(await f.req('DELETE', `${volumes()}/${vol}?snapshots=${snap}`));
    expect((await f.req('GET', `${snapshots()}/${snap}`)).statusCode).toBe(404);
  });

  it('filters lists by attachments, boot, parts of the ID and name, and tags', async () => {
    await newVolume({ source: 'new-volume', name: 'find-me', size: 1, tags: { env: 'qa' } });
    expect((await f.req('GET', `${volumes()}?name_part=FIND`)).json().results.map((v: { name: string }) => v.name)).toEqual(['find-me']);
    expect((await f.req('GET', `${volumes()}?tag_key=env`)).json().count).toBe(1);
    expect((await f.req('GET', `${volumes()}?tag_key_value=${encodeURIComponent('{"env":"qa"}')}`)).json().count).toBe(1);
    expect((await f.req('GET', `${volumes()}?tag_key_value=oops`)).statusCode).toBe(400);
    const attached = (await f.req('GET', `${volumes()}?has_attachments=true`)).json();
    expect(attached.results.every((v: { attachments: unknown[] }) => v.attachments.length === 1)).toBe(true);
  });
});

describe('metadata (the tags under their deprecated name)', () => {
  it('lists, merges, replaces, reads and deletes the same tags the resources show', async () => {
    const vol = await newVolume({ source: 'new-volume', name: 'tagged', size: 1, tags: { a: '1' } });
    const meta = `${volumes()}/${vol}/metadata`;
    const list = await f.req('GET', meta);
    expectConforms('GET', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/metadata', list);
    expect(list.json()).toEqual({ count: 1, results: [{ key: 'a', value: '1', read_only: false }] });
    expect((await f.req('POST', meta, { b: '2', a: null })).statusCode).toBe(204);
    expect((await volume(vol)).tags).toEqual([{ key: 'b', value: '2', read_only: false }]);
    expect((await f.req('PUT', meta, { c: '3' })).statusCode).toBe(204);
    const item = await f.req('GET', `${volumes()}/${vol}/metadata_item?key=c`);
    expectConforms('GET', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}/metadata_item', item);
    expect(item.json()).toEqual({ key: 'c', value: '3', read_only: false });
    expect((await f.req('GET', `${volumes()}/${vol}/metadata_item?key=b`)).statusCode).toBe(404);
    expect((await f.req('GET', `${volumes()}/${vol}/metadata_item`)).json().errors).toEqual([
      { loc: ['query', 'key'], msg: 'Field required', type: 'missing' },
    ]);
    expect((await f.req('DELETE', `${volumes()}/${vol}/metadata_item?key=c`)).statusCode).toBe(204);
    expect((await volume(vol)).tags).toEqual([]);
    expect((await f.req('POST', meta, { 'bad key': 'x' })).statusCode).toBe(400);
    const snap = (await f.finished(await f.req('POST', snapshots(), { name: 'meta-snap', volume_id: vol }))).created_resources.snapshots[0];
    const replaced = await f.req('PUT', `${snapshots()}/${snap}/metadata`, { env: 'prod' });
    expectConforms('PUT', '/cloud/v1/snapshots/{project_id}/{region_id}/{snapshot_id}/metadata', replaced);
    expect(replaced.json().tags).toEqual([{ key: 'env', value: 'prod', read_only: false }]);
    const vm = await f.instance('meta-vm', { tags: { role: 'db' } });
    const tag = await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}/metadata/role`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/metadata/{key}', tag);
    expect(tag.json().value).toBe('db');
    expect((await f.req('DELETE', `/cloud/v2/instances/${f.project}/${R}/${vm}/metadata_item?key=role`)).statusCode).toBe(204);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${vm}`)).json().tags).toEqual([]);
    const stranger = await f.t.account();
    expect((await f.req('GET', meta, undefined, stranger)).statusCode).toBe(404);
  });
});
