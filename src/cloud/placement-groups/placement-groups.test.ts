// Placement groups through HTTP: made at once within their quota; instances created into them placed
// by policy (anti-affinity failing once every host of the region has a member, affinity once the shared
// host is full, soft anti-affinity never); instances moved in and out through tasks; a group with
// instances cannot be deleted; tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, UBUNTU, type CloudFixture } from '../../../tests/cloud/fixture.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let f: CloudFixture;
const R = 76;
const base = () => `/cloud/v1/servergroups/${f.project}/${R}`;
const vms = () => `/cloud/v2/instances/${f.project}/${R}`;
const group = async (name: string, policy: string) => (await f.req('POST', base(), { name, policy })).json().servergroup_id as string;
const vmBody = (name: string, servergroup_id: string, flavor = 'g1-standard-1-2') => ({
  name,
  flavor,
  servergroup_id,
  volumes: [{ source: 'image', image_id: UBUNTU, size: 10, boot_index: 0 }],
  interfaces: [{ type: 'external' }],
});
const members = async (id: string) => (await f.req('GET', `${base()}/${id}`)).json().instances.map((i: any) => i.instance_name);

beforeAll(async () => {
  f = await cloudFixture();
});
afterAll(async () => f.close());

describe('placement groups', () => {
  it('makes groups at once, lists and reads them, refuses bad names and policies', async () => {
    const res = await f.req('POST', base(), { name: 'web-spread', policy: 'anti-affinity' });
    expectConforms('POST', '/cloud/v1/servergroups/{project_id}/{region_id}', res);
    expect(res.json()).toMatchObject({ name: 'web-spread', policy: 'anti-affinity', instances: [], region_id: R, project_id: f.project });
    const list = await f.req('GET', base());
    expectConforms('GET', '/cloud/v1/servergroups/{project_id}/{region_id}', list);
    expect(list.json().count).toBe(1);
    const got = await f.req('GET', `${base()}/${res.json().servergroup_id}`);
    expectConforms('GET', '/cloud/v1/servergroups/{project_id}/{region_id}/{group_id}', got);
    expect((await f.req('POST', base(), { name: 'x', policy: 'affinity' })).json().errors[0].loc).toEqual(['body', 'name']);
    expect((await f.req('POST', base(), { name: 'bad-policy', policy: 'together' })).json().errors[0].loc).toEqual(['body', 'policy']);
    expect((await f.req('GET', `${base()}/no-such-group`)).statusCode).toBe(404);
    expect((await f.req('GET', base())).json().count).toBe(1);
  });

  it("spreads an anti-affinity group over the region's hosts, and fails the create once every host has a member", async () => {
    const id = (await f.req('GET', base())).json().results[0].servergroup_id;
    for (let i = 1; i <= 4; i += 1) await f.finished(await f.req('POST', vms(), vmBody(`spread-${i}`, id)));
    const fifth = await f.req('POST', vms(), vmBody('spread-5', id));
    const task = await f.task(fifth.json().tasks[0]);
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null, error: expect.stringMatching(/No valid host was found.*\(anti-affinity\)/) });
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${fifth.json().id}`)).statusCode).toBe(404);
    expect(await members(id)).toEqual(['spread-1', 'spread-2', 'spread-3', 'spread-4']);
    const unknown = await f.req('POST', vms(), vmBody('lost', '00000000-0000-4000-8000-0000000000aa'));
    expect(unknown.json().errors[0].loc).toEqual(['body', 'servergroup_id']);
  });

  it('keeps an affinity group on one host until it is full; soft anti-affinity never fails', async () => {
    const together = await group('together', 'affinity');
    // A host takes 128 vCPUs: the spread group's 1-vCPU instance and three of 32 leave 31 on it.
    for (const name of ['big-1', 'big-2', 'big-3']) await f.finished(await f.req('POST', vms(), vmBody(name, together, 'g1-cpu-32-64')));
    const fourth = await f.req('POST', vms(), vmBody('big-4', together, 'g1-cpu-32-64'));
    expect(await f.task(fourth.json().tasks[0])).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/placement group .* \(affinity\)/) });
    expect(await members(together)).toEqual(['big-1', 'big-2', 'big-3']);
    const soft = await group('soft', 'soft-anti-affinity');
    for (let i = 1; i <= 5; i += 1) await f.finished(await f.req('POST', vms(), vmBody(`soft-${i}`, soft)));
    expect(await members(soft)).toHaveLength(5);
  });

  it('moves an instance in and out through tasks, refusing when no host fits the policy', async () => {
    const loose = await f.instance('loose');
    const soft = (await f.req('GET', base())).json().results.find((g: any) => g.name === 'soft').servergroup_id;
    const put = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/put_into_servergroup`, { servergroup_id: soft });
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/put_into_servergroup', put);
    expect((await f.finished(put)).task_type).toBe('put_into_server_group');
    expect(await members(soft)).toContain('loose');
    expect((await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/put_into_servergroup`, { servergroup_id: soft })).statusCode).toBe(409);
    const out = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/remove_from_servergroup`);
    expectConforms('POST', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/remove_from_servergroup', out);
    expect((await f.finished(out)).task_type).toBe('remove_from_server_group');
    expect(await members(soft)).not.toContain('loose');
    expect((await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/remove_from_servergroup`)).statusCode).toBe(409);
    const full = (await f.req('GET', base())).json().results.find((g: any) => g.name === 'web-spread').servergroup_id;
    const refused = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/put_into_servergroup`, { servergroup_id: full });
    expect(await f.task(refused.json().tasks[0])).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/No valid host/) });
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${loose}`)).json()).toMatchObject({ status: 'ACTIVE', task_id: null });
    expect(await members(full)).not.toContain('loose');
    expect(
      (await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${loose}/put_into_servergroup`, { servergroup_id: 'nope' })).json().errors[0].loc,
    ).toEqual(['body', 'servergroup_id']);
  });

  it('places an instance moved into a group without counting its own vCPUs on its host', async () => {
    // Another client: hosts are a client's own, so these start empty.
    const other = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, other)).json().results[0].id;
    const done = async (res: { json(): any }) => {
      const task = await f.task(res.json().tasks[0], other);
      expect(task.state, task.error).toBe('FINISHED');
      return task;
    };
    const instances = `/cloud/v1/instances/${project}/${R}`;
    const one = (await f.req('POST', `/cloud/v1/servergroups/${project}/${R}`, { name: 'one-host', policy: 'affinity' }, other)).json().servergroup_id;
    // Four instances of 32 vCPUs in an affinity group fill their host (128 vCPUs).
    const ids: string[] = [];
    for (let i = 1; i <= 4; i += 1) {
      const created = await done(await f.req('POST', `/cloud/v2/instances/${project}/${R}`, vmBody(`full-${i}`, one, 'g1-cpu-32-64'), other));
      ids.push(created.created_resources.instances[0]);
    }
    await done(await f.req('POST', `${instances}/${ids[3]}/remove_from_servergroup`, undefined, other));
    // Back in: its host holds 96 vCPUs besides its own 32, which fits; counted twice, it would not.
    await done(await f.req('POST', `${instances}/${ids[3]}/put_into_servergroup`, { servergroup_id: one }, other));
    const members = (await f.req('GET', `/cloud/v1/servergroups/${project}/${R}/${one}`, undefined, other)).json().instances;
    expect(members.map((i: { instance_name: string }) => i.instance_name)).toEqual(['full-1', 'full-2', 'full-3', 'full-4']);
  });

  it('cannot delete a group with instances; deletes it through a task once empty', async () => {
    const together = (await f.req('GET', base())).json().results.find((g: any) => g.name === 'together').servergroup_id;
    const refused = await f.req('DELETE', `${base()}/${together}`);
    expect(refused.statusCode).toBe(409);
    for (const id of (await f.req('GET', `${base()}/${together}`)).json().instances.map((i: any) => i.instance_id))
      await f.finished(await f.req('DELETE', `/cloud/v1/instances/${f.project}/${R}/${id}`));
    const res = await f.req('DELETE', `${base()}/${together}`);
    expectConforms('DELETE', '/cloud/v1/servergroups/{project_id}/{region_id}/{group_id}', res);
    expect((await f.finished(res)).task_type).toBe('delete_servergroup');
    expect((await f.req('GET', `${base()}/${together}`)).statusCode).toBe(404);
  });
});

describe('quotas and tenancy', () => {
  it('refuses a group over the quota at once', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().servergroup_count_usage;
    expect(usage).toBe(2);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { servergroup_count_limit: usage } });
    try {
      const over = await f.req('POST', base(), { name: 'over', policy: 'affinity' });
      expect(over.statusCode).toBe(400);
      expect(over.json().message).toMatch(/placement groups: requested 1/);
    } finally {
      await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { servergroup_count_limit: 20 } });
    }
  });

  it("answers 401 without a token and 404 for another client's group", async () => {
    const id = (await f.req('GET', base())).json().results[0].servergroup_id;
    expect((await f.t.request('GET', base())).statusCode).toBe(401);
    const stranger = await f.t.account();
    const project = (await f.req('GET', '/cloud/v1/projects', undefined, stranger)).json().results[0].id;
    expect((await f.req('GET', `/cloud/v1/servergroups/${project}/${R}/${id}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('DELETE', `/cloud/v1/servergroups/${project}/${R}/${id}`, undefined, stranger)).statusCode).toBe(404);
    const theirs = await f.req('POST', `/cloud/v2/instances/${project}/${R}`, vmBody('theirs', id), stranger);
    expect(theirs.json().errors[0].loc).toEqual(['body', 'servergroup_id']);
  });
});

describe('placement of racing creates', () => {
  let racer: CloudFixture;
  beforeAll(async () => {
    racer = await cloudFixture();
  });
  afterAll(async () => racer.close());

  it('places each create of an anti-affinity group after the one before it has committed (several connections at once on PostgreSQL)', async () => {
    const id = (await racer.req('POST', `/cloud/v1/servergroups/${racer.project}/${R}`, { name: 'racing', policy: 'anti-affinity' })).json().servergroup_id;
    const creates = await Promise.all(
      Array.from({ length: 6 }, (_, i) => racer.req('POST', `/cloud/v2/instances/${racer.project}/${R}`, vmBody(`race-${i}`, id))),
    );
    const tasks = await Promise.all(creates.map((res) => racer.task(res.json().tasks[0])));
    // Four hosts in the region: two members on one host would let a fifth and a sixth through.
    expect(tasks.filter((task) => task.state === 'FINISHED')).toHaveLength(4);
    for (const task of tasks.filter((t) => t.state !== 'FINISHED'))
      expect(task).toMatchObject({ state: 'ERROR', error: expect.stringMatching(/No valid host/) });
    const group = (await racer.req('GET', `/cloud/v1/servergroups/${racer.project}/${R}/${id}`)).json();
    expect(group.instances).toHaveLength(4);
  });
});
