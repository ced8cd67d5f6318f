// The CDN and WAAP products together: a CDN resource whose `waap` option is on is protected by WAAP, so
// the WAAP product lists its host as a domain; turning the option off puts that domain in bypass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createResource, uniqueHost } from '../support/cdn.js';
import { createTestApp, engineName, type TestAccount, type TestApp } from '../support/app.js';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  await t.request('PUT', `/_edgeplane/waap/clients/${a.clientId}`, { headers: t.operator, body: { enabled: true } });
});
afterAll(async () => t.close());

const waapDomain = async (name: string) => {
  const list = (await t.request('GET', `/waap/v1/domains?name=${encodeURIComponent(name)}`, { headers: a.headers })).json();
  return list.results.find((d: { name: string }) => d.name === name) as { id: number; status: string } | undefined;
};

describe(`a CDN resource's waap option (${engineName})`, () => {
  it('makes its host a WAAP domain, switches it to bypass when turned off, and active again', async () => {
    const cname = uniqueHost('shop');
    const group = await createGroup(t, a);
    const resource = await createResource(t, a, { cname, originGroup: group.id, options: { waap: { enabled: true, value: true } } });
    expect(await waapDomain(cname)).toMatchObject({ status: 'active' });
    const url = `/cdn/resources/${resource.id}`;
    expect((await t.request('PATCH', url, { headers: a.headers, body: { options: { waap: { enabled: false, value: true } } } })).statusCode).toBe(200);
    expect(await waapDomain(cname)).toMatchObject({ status: 'bypass' });
    expect((await t.request('PATCH', url, { headers: a.headers, body: { options: { waap: { enabled: true, value: true } } } })).statusCode).toBe(200);
    const domain = await waapDomain(cname);
    expect(domain).toMatchObject({ status: 'active' });
    // The domain keeps its id (and so its events) through the changes; a resource without the option brings none.
    await createResource(t, a, { cname: uniqueHost('plain'), originGroup: group.id });
    const all = (await t.request('GET', '/waap/v1/domains', { headers: a.headers })).json();
    expect(all.results.filter((d: { name: string }) => d.name.startsWith('plain'))).toEqual([]);
    // Deleting the resource (deactivated first) bypasses the domain, which the user may then delete.
    expect((await t.request('PATCH', url, { headers: a.headers, body: { active: false } })).statusCode).toBe(200);
    expect((await t.request('DELETE', url, { headers: a.headers })).statusCode).toBe(204);
    expect(await waapDomain(cname)).toMatchObject({ id: domain!.id, status: 'bypass' });
    expect((await t.request('DELETE', `/waap/v1/domains/${domain!.id}`, { headers: a.headers })).statusCode).toBe(204);
  });
});
