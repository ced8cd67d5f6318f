// What an instant-mode network create sends its pooled PostgreSQL connection: one socket write, with
// BEGIN, the network's row, the row made ready, the task's row, the quota check and the COMMIT
// (platform/db/pipelined-transactions.ts, writeAtEnd in platform/db/final-statement.ts). Each write more is a round trip and a backend's wake-up: a
// create that quietly goes back to more of them (the task's own read of its row did, once) fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { countPoolWrites } from '../../../tests/support/pool-writes.js';

let t: TestApp;
let me: TestAccount;
let project: number;

beforeAll(async () => {
  t = await createTestApp({ taskMode: 'instant' });
  me = await t.account();
  project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id;
});
afterAll(async () => t.close());

describe.skipIf(engineName !== 'postgres')('an instant network create on PostgreSQL', () => {
  it('writes its whole transaction to the pooled connection at once, and finishes its task', async () => {
    const create = (name: string) => t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: me.headers, body: { name } });
    // The first create prepares the statements; the one measured runs them by name.
    expect((await create('first-net')).statusCode).toBe(200);
    expect((await create('second-net')).statusCode).toBe(200);
    const counter = countPoolWrites(t.db.raw.pg!);
    const answer = await create('third-net');
    expect(answer.statusCode).toBe(200);
    expect(counter.writes).toBe(1);
    const [taskId] = answer.json().tasks as string[];
    const task = (await t.request('GET', `/cloud/v1/tasks/${taskId}`, { headers: me.headers })).json();
    expect(task).toMatchObject({ state: 'FINISHED', created_resources: { networks: [answer.json().id] } });
    const network = (await t.request('GET', `/cloud/v1/networks/${project}/76/${answer.json().id}`, { headers: me.headers })).json();
    expect(network).toMatchObject({ name: 'third-net' });
  });
});
