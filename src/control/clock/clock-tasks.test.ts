// The clock drives the cloud task engine in realistic mode: frozen time keeps a task RUNNING; advancing
// finishes it within the advance call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';

let t: TestApp;
let me: TestAccount;
const region = 76;

beforeAll(async () => {
  t = await createTestApp({ taskMode: 'realistic' });
  me = await t.account();
});
afterAll(async () => t.close());

const clock = (path: string, body?: unknown) => t.request('POST', `/_edgeplane/clock/${path}`, { headers: t.operator, body });
const task = async (id: string) => (await t.request('GET', `/cloud/v1/tasks/${id}`, { headers: me.headers })).json();

describe('realistic tasks follow the server clock', () => {
  it('stay unfinished while time is frozen, and finish as soon as the clock is advanced', async () => {
    expect((await clock('freeze')).statusCode).toBe(200);
    const project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
    const created = await t.request('POST', `/cloud/v1/networks/${project}/${region}`, { headers: me.headers, body: { name: 'frozen' } });
    expect(created.statusCode).toBe(200);
    const [taskId] = created.json().tasks;
    // Several polls with no time passing: the task cannot progress to its end.
    for (let i = 0; i < 3; i += 1) expect(['NEW', 'RUNNING']).toContain((await task(taskId)).state);
    expect((await clock('advance', { seconds: 86400 })).statusCode).toBe(200);
    expect((await task(taskId)).state).toBe('FINISHED');
    await clock('resume');
  });

  it('a task-failure fault makes the created task end in ERROR with the reason', async () => {
    await clock('freeze');
    await t.request('POST', '/_edgeplane/faults', {
      headers: t.operator,
      body: { method: 'POST', path: '/cloud/v1/networks/**', taskError: 'injected: no capacity', times: 1 },
    });
    const project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
    const created = await t.request('POST', `/cloud/v1/networks/${project}/${region}`, { headers: me.headers, body: { name: 'doomed' } });
    const [taskId] = created.json().tasks;
    await clock('advance', { seconds: 86400 });
    const done = await task(taskId);
    expect(done.state).toBe('ERROR');
    expect(done.error).toMatch(/no capacity/);
    expect(done.created_resources).toBeNull();
    await clock('resume');
  });
});
