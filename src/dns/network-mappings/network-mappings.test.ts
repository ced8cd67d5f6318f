// Network mappings through the API: create, read by id and by name, list with true counts, change,
// delete, the YAML import, refusals and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });
const BASE = '/dns/v2/network-mappings';

const YAML = `name: mapping_rule_1
mapping:
    - tags:
        - tag_name_1
      cidr4:
        - 127.0.2.0/24
    - tags: [tag_name_2, tag_name_3]
      cidr4: [128.0.1.0/24, 128.0.2.0/24]
      cidr6: [aa:10::/64]
---
name: mapping_rule_2
mapping:
    - tags: [my_network]
      cidr4: [129.0.2.0/24]
`;

describe('network mappings', () => {
  let id: number;

  it('creates a mapping and reads it by id and by name', async () => {
    const body = {
      name: 'office',
      mapping: [
        { tags: ['hq'], cidr4: ['192.0.2.0/24'], cidr6: ['2001:db8::/48'] },
        { tags: ['vpn'], cidr4: ['198.51.100.0/25'] },
      ],
    };
    const res = await call('POST', BASE, body);
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('POST', BASE, res);
    id = res.json().id;
    const read = await call('GET', `${BASE}/${id}`);
    expectConforms('GET', `${BASE}/{id}`, read);
    expect(read.json()).toEqual({ id, name: 'office', mapping: [body.mapping[0], { ...body.mapping[1], cidr6: [] }] });
    expect((await call('GET', `${BASE}/by-name/office`)).json()).toEqual(read.json());
  });

  it('lists with the true total, pages and orders', async () => {
    await call('POST', BASE, { name: 'alpha', mapping: [] });
    const all = await call('GET', BASE);
    expectConforms('GET', BASE, all);
    expect(all.json().total_amount).toBe(2);
    const page = (await call('GET', `${BASE}?order_by=name&limit=1&offset=1`)).json();
    expect(page).toMatchObject({ total_amount: 2, network_mappings: [{ name: 'office' }] });
    expect((await call('GET', `${BASE}?order_by=colour`)).statusCode).toBe(400);
  });

  it('changes the fields sent with PUT', async () => {
    const res = await call('PUT', `${BASE}/${id}`, { mapping: [{ tags: ['moved'], cidr4: ['203.0.113.0/24'] }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect((await call('GET', `${BASE}/${id}`)).json()).toEqual({ id, name: 'office', mapping: [{ tags: ['moved'], cidr4: ['203.0.113.0/24'], cidr6: [] }] });
    expect((await call('PUT', `${BASE}/${id}`, { name: 'alpha' })).json().error).toMatch(/already exists/);
  });

  it('imports YAML documents, creating and replacing by name', async () => {
    await call('POST', BASE, { name: 'mapping_rule_2', mapping: [{ tags: ['old'], cidr4: ['10.0.0.0/8'] }] });
    const res = await t.request('POST', `${BASE}/import`, { headers: { ...a.headers, 'content-type': 'text/plain' }, body: YAML });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect((await call('GET', `${BASE}/by-name/mapping_rule_1`)).json().mapping).toEqual([
      { tags: ['tag_name_1'], cidr4: ['127.0.2.0/24'], cidr6: [] },
      { tags: ['tag_name_2', 'tag_name_3'], cidr4: ['128.0.1.0/24', '128.0.2.0/24'], cidr6: ['aa:10::/64'] },
    ]);
    expect((await call('GET', `${BASE}/by-name/mapping_rule_2`)).json().mapping).toEqual([{ tags: ['my_network'], cidr4: ['129.0.2.0/24'], cidr6: [] }]);
  });

  it.each([
    ['no name', { mapping: [] }, /name is required/],
    ['an empty name', { name: ' ', mapping: [] }, /name is required/],
    ['a bad IPv4 network', { name: 'x', mapping: [{ cidr4: ['192.0.2.0/33'] }] }, /not an IPv4 network/],
    ['an IPv6 network in cidr4', { name: 'x', mapping: [{ cidr4: ['2001:db8::/32'] }] }, /not an IPv4 network/],
    ['an address without prefix', { name: 'x', mapping: [{ cidr6: ['2001:db8::1'] }] }, /not an IPv6 network/],
    ['a duplicate name', { name: 'office', mapping: [] }, /already exists/],
    ['tags that are not text', { name: 'x', mapping: [{ tags: [1] }] }, /tags/],
  ])('refuses %s with 400', async (_label, body, message) => {
    const before = (await call('GET', BASE)).json().total_amount;
    const res = await call('POST', BASE, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatch(message);
    expect((await call('GET', BASE)).json().total_amount).toBe(before);
  });

  it.each([
    ['broken YAML', 'name: [unclosed', /YAML document 1/],
    ['a document without a name', 'mapping: []', /name is required/],
    ['a bad network', 'name: z\nmapping:\n  - cidr4: [300.0.0.0/8]', /not an IPv4 network/],
    ['an alias bomb', 'a: &a [x]\nb: *a\nname: n', /YAML document 1/],
    ['an empty body', '', /YAML documents/],
    ['1,001 entries', `name: n\nmapping:\n${'  - cidr4: [10.0.0.0/8]\n'.repeat(1001)}`, /at most 1000 entries/],
    ['101 tags', `name: n\nmapping:\n  - tags: [${Array.from({ length: 101 }, (_, i) => `t${i}`).join(', ')}]`, /mapping\[0\]: at most 100 tags/],
    ['1,001 networks', `name: n\nmapping:\n  - cidr6: [${Array(1001).fill('aa::/64').join(', ')}]`, /cidr6: at most 1000 networks/],
    ['a tag of 256 characters', `name: n\nmapping:\n  - tags: [${'t'.repeat(256)}]`, /longer than 255 characters/],
    ['brackets nested 33 deep', `name: n\nmapping: ${'['.repeat(33)}${']'.repeat(33)}`, /nested more than 32 levels/],
    ['a line nested by 200 block indicators', `name: n\nmapping:\n${'- '.repeat(100)}x`, /more than 128 characters deep/],
  ])('refuses an import with %s, storing nothing', async (_label, text, message) => {
    const before = (await call('GET', BASE)).json().total_amount;
    const res = await t.request('POST', `${BASE}/import`, { headers: { ...a.headers, 'content-type': 'text/plain' }, body: text });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatch(message);
    expect((await call('GET', BASE)).json().total_amount).toBe(before);
  });

  // Regression: the YAML library composes collections by recursion; after one deep document, a second
  // one a few thousand levels deep aborted the whole process (V8: "RegExpCompiler Allocation failed").
  it('refuses deeply nested documents one after another, and keeps answering', async () => {
    for (const depth of [1_000, 5_000, 50_000]) {
      const res = await t.request('POST', `${BASE}/import`, {
        headers: { ...a.headers, 'content-type': 'text/plain' },
        body: `${'['.repeat(depth)}${']'.repeat(depth)}`,
      });
      expect(res.statusCode).toBe(400);
    }
    expect((await call('GET', BASE)).statusCode).toBe(200);
  });

  it("answers 404 for another client's mapping", async () => {
    for (const [method, url, body] of [
      ['GET', `${BASE}/${id}`],
      ['PUT', `${BASE}/${id}`, { name: 'stolen' }],
      ['DELETE', `${BASE}/${id}`],
      ['GET', `${BASE}/by-name/office`],
    ] as [string, string, unknown?][]) {
      expect((await call(method, url, body, b)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call('GET', BASE, undefined, b)).json().total_amount).toBe(0);
  });

  it('deletes a mapping', async () => {
    expect((await call('DELETE', `${BASE}/${id}`)).json()).toEqual({});
    expect((await call('GET', `${BASE}/${id}`)).statusCode).toBe(404);
  });
});
