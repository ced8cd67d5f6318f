// Progression modes on the server clock, refusals, and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../tests/support/app.js';
import { expectConforms } from '../../tests/support/conformance.js';

let t: TestApp;
let me: TestAccount;
let other: TestAccount;
let project: number;

beforeAll(async () => {
  t = await createTestApp();
  me = await t.account();
  other = await t.account();
  project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
});
afterAll(async () => t.close());

const task = async (id: string, who = me) => (await t.request('GET', `/cloud/v1/tasks/${id}`, { headers: who.headers })).json();

describe('progression modes', () => {
  it('realistic mode keeps a task RUNNING on a frozen clock until the clock passes its duration', async () => {
    t.clock.freeze();
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'realistic', speed: 1 } });
    const res = await t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: me.headers, body: { name: 'slow' } });
    await t.request('POST', '/_edgeplane/tasks/run-due', { headers: t.operator });
    expect((await task(res.json().tasks[0])).state).toBe('RUNNING');
    const net = await t.request('GET', `/cloud/v1/networks/${project}/76/${res.json().id}`, { headers: me.headers });
    expect(net.json().task_id).toBe(res.json().tasks[0]);
    t.clock.advance(4_000);
    const left = await t.request('POST', '/_edgeplane/tasks/run-due', { headers: t.operator });
    expect(left.json().pending).toBe(1);
    expect(Date.parse(left.json().next_due)).toBeGreaterThan(t.clock.now());
    expect((await task(res.json().tasks[0])).state).toBe('RUNNING');
    t.clock.advance(7_000);
    await t.request('POST', '/_edgeplane/tasks/run-due', { headers: t.operator });
    expect((await task(res.json().tasks[0])).state).toBe('FINISHED');
    t.clock.resume();
  });

  it('manual mode moves a task one step at a time through the control API', async () => {
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'manual' } });
    const res = await t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: me.headers, body: { name: 'manual' } });
    const id = res.json().tasks[0];
    expect((await task(id)).state).toBe('NEW');
    const active = await t.request('GET', `/cloud/v1/tasks/${project}/76/active`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/tasks/{project_id}/{region_id}/active', active);
    expect(active.json().results.map((x: { id: string }) => x.id)).toContain(id);
    await t.request('POST', '/_edgeplane/tasks/advance', { headers: t.operator, body: { task_id: id, to: 'step' } });
    expect((await task(id)).state).toBe('RUNNING');
    await t.request('POST', '/_edgeplane/tasks/advance', { headers: t.operator, body: { to: 'end' } });
    expect((await task(id)).state).toBe('FINISHED');
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'instant' } });
  });
});

describe('polling a task', () => {
  it('answers the task as it is now, however often it was polled before', async () => {
    const res = await t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: me.headers, body: { name: 'polled' } });
    const id = res.json().tasks[0];
    const url = `/cloud/v1/tasks/${id}`;
    const first = await t.request('GET', url, { headers: me.headers });
    const again = await t.request('GET', url, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/tasks/{task_id}', again);
    expect(again.body).toBe(first.body);
    expect(first.json()).toMatchObject({ state: 'FINISHED', acknowledged_at: null });
    // Another client asks for the same id after the owner's answer was made: still not theirs.
    expect((await t.request('GET', url, { headers: other.headers })).statusCode).toBe(404);
    t.clock.advance(60_000);
    await t.request('POST', `/cloud/v1/tasks/${id}/acknowledge`, { headers: me.headers });
    const acknowledged = (await t.request('GET', url, { headers: me.headers })).json();
    expect(acknowledged).toMatchObject({ acknowledged_by: me.userId, acknowledged_at: expect.any(String) });
    expect({ ...acknowledged, acknowledged_by: null, acknowledged_at: null }).toEqual(first.json());
  });
});

describe('refusals and tenancy', () => {
  it('refuses regions that are not ACTIVE or lack the capability', async () => {
    const down = await t.request('POST', `/cloud/v1/networks/${project}/6`, { headers: me.headers, body: { name: 'net-x' } });
    expect(down.statusCode).toBe(400);
    expect(down.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError' });
    expect(down.json().message).toMatch(/MAINTENANCE/);
    const noK8s = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/80`, {
      headers: me.headers,
      body: { name: 'c2', keypair: 'key', version: 'v1.30.8', pools: [{ name: 'p1', flavor_id: 'g1-standard-1-2', min_node_count: 1 }] },
    });
    expect(noK8s.statusCode).toBe(400);
    expect(noK8s.json().message).toMatch(/Kubernetes/);
  });

  it('refuses a downgrade and an unknown version', async () => {
    expect((await t.request('POST', `/cloud/v1/ssh_keys/${project}`, { headers: me.headers, body: { name: 'key' } })).statusCode).toBe(201);
    const made = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/76`, {
      headers: me.headers,
      body: { name: 'c1', keypair: 'key', version: 'v1.31.4', pools: [{ name: 'p1', flavor_id: 'g1-standard-1-2', min_node_count: 1 }] },
    });
    expect(made.statusCode, made.body).toBe(200);
    const down = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/76/c1/upgrade`, { headers: me.headers, body: { version: 'v1.30.8' } });
    expect(down.statusCode).toBe(400);
    const unknown = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/76/c1/upgrade`, { headers: me.headers, body: { version: 'v9.9.9' } });
    expect(unknown.statusCode).toBe(400);
    // The version moves only when the upgrade task finishes; meanwhile a second upgrade is refused.
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'manual', task_type: 'upgrade_k8s_cluster_v2' } });
    const up = await t.request('POST', `/cloud/v2/k8s/clusters/${project}/76/c1/upgrade`, { headers: me.headers, body: { version: 'v1.32.1' } });
    const taskId = up.json().tasks[0];
    await t.request('POST', '/_edgeplane/tasks/advance', { headers: t.operator, body: { task_id: taskId, to: 'step' } });
    expect((await task(taskId)).state).toBe('RUNNING');
    const during = (await t.request('GET', `/cloud/v2/k8s/clusters/${project}/76/c1`, { headers: me.headers })).json();
    expect(during).toMatchObject({ version: 'v1.31.4', task_id: taskId });
    expect((await t.request('POST', `/cloud/v2/k8s/clusters/${project}/76/c1/upgrade`, { headers: me.headers, body: { version: 'v1.32.1' } })).statusCode).toBe(
      409,
    );
    await t.request('POST', '/_edgeplane/tasks/advance', { headers: t.operator, body: { task_id: taskId, to: 'end' } });
    expect((await t.request('GET', `/cloud/v2/k8s/clusters/${project}/76/c1`, { headers: me.headers })).json()).toMatchObject({
      version: 'v1.32.1',
      task_id: null,
    });
    await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode: 'instant' } });
  });

  it('creates a volume through a task and refuses a type the region lacks', async () => {
    const created = await t.request('POST', `/cloud/v1/volumes/${project}/76`, { headers: me.headers, body: { source: 'new-volume', name: 'vol', size: 10 } });
    expect(created.statusCode).toBe(200);
    const done = await task(created.json().tasks[0]);
    expect(done.created_resources.volumes).toEqual([created.json().id]);
    const volume = await t.request('GET', `/cloud/v1/volumes/${project}/76/${created.json().id}`, { headers: me.headers });
    expectConforms('GET', '/cloud/v1/volumes/{project_id}/{region_id}/{volume_id}', volume);
    expect(volume.json()).toMatchObject({ status: 'available', size: 10 });
    const wrong = await t.request('POST', `/cloud/v1/volumes/${project}/18`, {
      headers: me.headers,
      body: { source: 'new-volume', name: 'vol', size: 10, type_name: 'ultra' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError', errors: [{ loc: ['body', 'type_name'] }] });
  });

  it("hides another client's project, task and network (404), and needs a token (401)", async () => {
    const res = await t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: me.headers, body: { name: 'mine' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.request('GET', `/cloud/v1/tasks/${res.json().tasks[0]}`, { headers: other.headers })).statusCode).toBe(404);
    expect((await t.request('GET', `/cloud/v1/networks/${project}/76/${res.json().id}`, { headers: other.headers })).statusCode).toBe(404);
    expect((await t.request('GET', `/cloud/v1/projects/${project}`, { headers: other.headers })).statusCode).toBe(404);
    // Reads keyed only by project and region check the project too (found by the isolation matrix).
    expect((await t.request('GET', `/cloud/v1/tasks/${project}/76/active`, { headers: other.headers })).statusCode).toBe(404);
    expect((await t.request('GET', `/cloud/v1/flavors/${project}/76`, { headers: other.headers })).statusCode).toBe(404);
    expect((await t.request('GET', `/cloud/v1/flavors/${project}/76`, { headers: me.headers })).statusCode).toBe(200);
    expect((await t.request('GET', '/cloud/v1/projects')).statusCode).toBe(401);
    const wrong = await t.request('GET', '/cloud/v1/tasks', { headers: { authorization: 'APIKey 1$not-a-real-token' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 401, exception_class: 'NotAuthenticatedError' });
    const missing = await t.request('GET', '/cloud/v1/tasks/00000000-0000-4000-8000-000000000000', { headers: me.headers });
    expect(missing.json()).toMatchObject({
      code: 404,
      exception_class: 'NotFoundError',
      message: expect.stringMatching(/Task .* not found/),
      request_id: expect.any(String),
    });
    expect((await t.request('GET', '/_edgeplane/tasks/mode', { headers: me.headers })).statusCode).toBe(403);
  });

  it('lists regions with every field of the reference', async () => {
    const res = await t.request('GET', '/cloud/v1/regions', { headers: me.headers });
    expectConforms('GET', '/cloud/v1/regions', res);
    expect(res.json().count).toBe(8);
    const tasks = await t.request('GET', '/cloud/v1/tasks', { headers: me.headers, query: { state: ['FINISHED', 'ERROR'], limit: '2', order_by: 'desc' } });
    expectConforms('GET', '/cloud/v1/tasks', tasks);
    expect(tasks.json().results).toHaveLength(2);
  });
});
