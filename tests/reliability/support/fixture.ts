// A client that owns one object of every kind the API lets us make, so generated requests reach real
// objects (and the isolation matrix has something to hide from the second client).
import type { TestAccount, TestApp } from '../../support/app.js';

export interface Owned {
  account: TestAccount;
  /** The administrator's user id that the tests may modify (not the one whose token they use). */
  spareUserId: number;
  /** Values per path-parameter name: ids of objects this client owns. */
  ids: Record<string, unknown[]>;
}

async function json(t: TestApp, method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const res = await t.request(method, url, { headers, body });
  if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.body ? res.json() : null;
}

/** Creates, for one client, an object of each kind; a product that refuses is left out (reported). */
export async function ownEverything(t: TestApp, account: TestAccount, missing: string[] = []): Promise<Owned> {
  const h = account.headers;
  const op = t.operator;
  const ids: Record<string, unknown[]> = { clientId: [account.clientId], client_id: [account.clientId], userId: [account.userId] };
  const step = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      missing.push(`${what}: ${(error as Error).message}`);
    }
  };
  let spareUserId = account.userId;
  await step('user', async () => {
    spareUserId = await t.iam.accounts.addUser(account.clientId, { email: `spare-${account.clientId}-${Date.now()}@example.test`, name: 'spare', groupId: 2 });
    ids.userId = [spareUserId];
  });
  await step('token', async () => {
    const token = await json(t, 'POST', `/iam/clients/${account.clientId}/tokens`, h, {
      name: 'fuzz',
      exp_date: null,
      client_user: { role: { id: 2, name: 'Users' } },
    });
    ids.tokenId = [token.id ?? (await json(t, 'GET', `/iam/clients/${account.clientId}/tokens`, h)).at(-1)?.id];
  });
  await step('rule template', async () => {
    const tpl = await json(t, 'POST', '/cdn/resources/rule_templates', h, { name: 'fuzz', rule: '/images/*', ruleType: 0, options: {} });
    ids.rule_template_id = [tpl.id];
  });
  await step('event log', async () => {
    const log = await json(t, 'POST', '/_edgeplane/security/event-logs', op, { client_id: account.clientId, alert_type: 'ddos_alert' });
    ids.event_log_id = [log.id];
  });
  await step('waap domain', async () => {
    const domain = await json(t, 'POST', '/_edgeplane/waap/domains', op, { client_id: account.clientId, name: `fuzz-${account.clientId}.example.com` });
    ids.domain_id = [domain.id];
  });
  await step('waap events', async () => {
    await json(t, 'POST', '/_edgeplane/waap/generate', op, { client_ids: [account.clientId], events: 20, days: 1, seed: 1 });
    const events = await json(t, 'GET', `/waap/v1/analytics/requests?limit=5&start=${new Date(t.clock.now() - 7 * 86_400_000).toISOString()}`, h);
    ids.request_id = (events.results ?? []).map((e: any) => e.id);
  });
  await step('cloud', async () => {
    const project = (await json(t, 'GET', '/cloud/v1/projects', h)).results[0]?.id ?? (await json(t, 'POST', '/cloud/v1/projects', h, { name: 'fuzz' })).id;
    const region = (await json(t, 'GET', '/cloud/v1/regions', h)).results[0].id;
    ids.project_id = [project];
    ids.region_id = [region];
    const created = await json(t, 'POST', `/cloud/v1/networks/${project}/${region}`, h, { name: 'fuzz-net', create_router: true, type: 'vxlan' });
    ids.task_id = created.tasks;
    const task = await json(t, 'GET', `/cloud/v1/tasks/${created.tasks[0]}`, h);
    ids.network_id = task.created_resources?.networks ?? [];
  });
  await step('fault', async () => {
    // A fault that can never match (a scenario nobody sends): it only gives the fault routes an id.
    const fault = await json(t, 'POST', '/_edgeplane/faults', op, { path: '/nowhere', scenario: `never-${account.clientId}`, status: 503 });
    ids.faultId = [fault.id];
  });
  await step('edge network', async () => {
    await json(t, 'POST', `/_edgeplane/edge/clients/${account.clientId}/networks`, op, { name: `fuzz-${account.clientId}` });
    ids.name = [`fuzz-${account.clientId}`];
  });
  return { account, spareUserId, ids };
}
