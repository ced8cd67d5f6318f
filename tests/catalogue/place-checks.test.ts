// The catalogue engine answers 404 for an operation whose project or region does not exist for the
// caller, and goes on otherwise, exactly as the project's and the region's own GET routes answer. It asks
// those routes' existence checks directly where they can tell (an id in validation's form), and the routes
// themselves, by a request to the server, otherwise: both must give the routes' answers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';

let t: TestApp;
let owner: TestAccount;
let other: TestAccount;
let reader: TestAccount;
const projects: Record<string, number> = {};
beforeAll(async () => {
  t = await createTestApp();
  [owner, other, reader] = [await t.account(), await t.account(), await t.account({ role: 'Users' })];
  const firstOf = async (who: TestAccount) => (await t.request('GET', '/cloud/v1/projects', { headers: who.headers })).json().results[0].id as number;
  projects.owners = await firstOf(owner);
  projects.others = await firstOf(other);
  projects.readers = await firstOf(reader);
  const created = await t.request('POST', '/cloud/v1/projects', { headers: owner.headers, body: { name: 'to delete' } });
  projects.deleted = created.json().id;
  const deletion = await t.request('DELETE', `/cloud/v1/projects/${projects.deleted}`, { headers: owner.headers });
  expect(deletion.statusCode, deletion.body).toBe(200);
});
afterAll(async () => t?.close());

/** The status of a GET of `url` as `who`, and the URLs of every request made for it (its own first). */
async function requestsFor(who: TestAccount, url: string): Promise<{ status: number; urls: string[] }> {
  const inject = vi.spyOn(t.app, 'inject');
  try {
    const status = (await t.request('GET', url, { headers: who.headers })).statusCode;
    return { status, urls: (inject.mock.calls as unknown[][]).map(([options]) => (options as { url: string }).url) };
  } finally {
    inject.mockRestore();
  }
}

/** Whether a GET of the record answers as an existing one (a role that cannot read it gets 403: the operation decides). */
const found = async (who: TestAccount, url: string) => [200, 403].includes((await t.request('GET', url, { headers: who.headers })).statusCode);

describe(`the catalogue engine's place checks (${engineName})`, () => {
  it("agree with the project's and the region's own GET routes for every caller and id", async () => {
    const ids = [...Object.values(projects), 0, 987_654, 9_007_199_254_740_991];
    const regions = [76, 0, 4_242];
    let checked = 0;
    for (const who of [owner, other, reader]) {
      for (const project of ids) {
        for (const region of regions) {
          const engine = await t.request('GET', `/cloud/v1/caas/flavors/${project}/${region}`, { headers: who.headers });
          const exists = (await found(who, `/cloud/v1/projects/${project}`)) && (await found(who, `/cloud/v1/regions/${region}`));
          expect(engine.statusCode, `${who.clientId} ${project} ${region}: ${engine.body}`).toBe(exists ? 200 : 404);
          checked += exists ? 1 : 0;
        }
      }
    }
    // Each caller's own project in region 76, and nothing else: the deleted project is gone for its owner too.
    expect(checked).toBe(3);
  });

  it("agree with a network's and a WAAP domain's own GET routes for every caller and id", async () => {
    const networkOf = async (who: TestAccount, project: number) => {
      const created = await t.request('POST', `/cloud/v1/networks/${project}/76`, { headers: who.headers, body: { name: 'parent' } });
      const task = await t.request('GET', `/cloud/v1/tasks/${created.json().tasks[0]}`, { headers: who.headers });
      return task.json().created_resources.networks[0] as string;
    };
    const domainOf = async (who: TestAccount, name: string) =>
      (await t.request('POST', '/_edgeplane/waap/domains', { headers: t.operator, body: { client_id: who.clientId, name } })).json().id as number;
    const deletedNetwork = await networkOf(owner, projects.owners);
    await t.request('DELETE', `/cloud/v1/networks/${projects.owners}/76/${deletedNetwork}`, { headers: owner.headers });
    const networks = [await networkOf(owner, projects.owners), await networkOf(other, projects.others), deletedNetwork, randomUUID()];
    const domains = [await domainOf(owner, 'owner.example.com'), await domainOf(other, 'other.example.com'), 987_654];
    let checked = 0;
    for (const who of [owner, other, reader]) {
      for (const project of [projects.owners, projects.others, projects.readers]) {
        for (const network of networks) {
          const engine = await t.request('GET', `/cloud/v1/networks/${project}/76/${network}/ports`, { headers: who.headers });
          const exists = (await found(who, `/cloud/v1/projects/${project}`)) && (await found(who, `/cloud/v1/networks/${project}/76/${network}`));
          expect(engine.statusCode, `${who.clientId} ${project} ${network}: ${engine.body}`).toBe(exists ? 200 : 404);
          checked += exists ? 1 : 0;
        }
      }
      for (const domain of domains) {
        const engine = await t.request('GET', `/waap/v1/domains/${domain}/advanced-rules`, { headers: who.headers });
        const exists = await found(who, `/waap/v1/domains/${domain}`);
        expect(engine.statusCode, `${who.clientId} ${domain}: ${engine.body}`).toBe(exists ? 200 : 404);
        checked += exists ? 1 : 0;
      }
    }
    // The owner's and the other client's own network and domain.
    expect(checked).toBe(4);
    // Each answered by its route's own check, with no request to the server itself.
    for (const url of [`/cloud/v1/networks/${projects.owners}/76/${networks[0]}/ports`, `/waap/v1/domains/${domains[0]}/advanced-rules`]) {
      expect(await requestsFor(owner, url)).toEqual({ status: 200, urls: [url] });
    }
  });

  it("agree with the engine's own GET of a parent record (a FastEdge KV store) for every caller and id", async () => {
    const storeOf = async (who: TestAccount, name: string) =>
      (await t.request('POST', '/fastedge/v1/kv', { headers: who.headers, body: { name } })).json().id as number;
    const deleted = await storeOf(owner, 'gone');
    expect((await t.request('DELETE', `/fastedge/v1/kv/${deleted}`, { headers: owner.headers })).statusCode).toBeLessThan(300);
    const stores = [await storeOf(owner, 'sessions'), await storeOf(other, 'carts'), deleted, 987_654];
    let checked = 0;
    for (const who of [owner, other, reader]) {
      for (const store of stores) {
        const engine = await t.request('GET', `/fastedge/v1/kv/${store}/data`, { headers: who.headers });
        const exists = await found(who, `/fastedge/v1/kv/${store}`);
        expect(engine.statusCode, `${who.clientId} ${store}: ${engine.body}`).toBe(exists ? 200 : 404);
        checked += exists ? 1 : 0;
      }
    }
    expect(checked).toBe(2);
    const url = `/fastedge/v1/kv/${stores[0]}/data`;
    expect(await requestsFor(owner, url)).toEqual({ status: 200, urls: [url] });
  });

  it("asks no request of the server for a project and region in the routes' form, and the routes for another form", async () => {
    const url = `/cloud/v1/caas/flavors/${projects.owners}/76`;
    expect(await requestsFor(owner, url)).toEqual({ status: 200, urls: [url] });
    // Region 0 is not in the form the region route's validation writes back: the route itself is asked (and refuses it).
    const other = await requestsFor(owner, `/cloud/v1/caas/flavors/${projects.owners}/0`);
    expect(other.status).toBe(404);
    expect(other.urls).toContain('/cloud/v1/regions/0');
  });
});
