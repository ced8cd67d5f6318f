// The rule-matching control call: which of a client's templates applies to a request URI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';

const BASE = '/cdn/resources/rule_templates';
const MATCH = '/_edgeplane/cdn/rule-templates/match';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
const ids: Record<string, number> = {};
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
  const templates: [string, Record<string, unknown>][] = [
    ['images', { rule: '/images/', ruleType: 0, weight: 50 }],
    ['png', { rule: '/.*\\.png$', ruleType: 0, weight: 5 }],
    ['legacy', { rule: 'legacy/.*', ruleType: 1, weight: 1 }],
    ['anchored', { rule: '^/exact$', ruleType: 0, weight: 2 }],
  ];
  for (const [name, body] of templates) {
    const res = await t.request('POST', BASE, { headers: a.headers, body: { name, ...body } });
    ids[name] = res.json().id;
  }
  await t.request('POST', BASE, { headers: b.headers, body: { name: 'other', rule: '/', ruleType: 0, weight: 1 } });
});
afterAll(async () => t.close());

const match = (uri: string, clientId = a.clientId) => t.request('POST', MATCH, { headers: t.operator, body: { client_id: clientId, uri } });

describe('POST /_edgeplane/cdn/rule-templates/match', () => {
  it('applies the matching template earliest in the order (lowest weight)', async () => {
    const res = await match('/images/cat.png');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.path).toBe('/images/cat.png');
    expect(body.template).toMatchObject({ id: ids.png, name: 'png', weight: 5 });
    // The system "Images: WebP conversion" template (weight 15) matches too, between the two.
    expect(body.matching.map((m: { weight: number }) => m.weight)).toEqual([5, 15, 50]);
  });

  it('follows a weight change', async () => {
    await t.request('PATCH', `${BASE}/${ids.images}`, { headers: a.headers, body: { weight: 1 } });
    expect((await match('/images/cat.png')).json().template.id).toBe(ids.images);
    await t.request('PATCH', `${BASE}/${ids.images}`, { headers: a.headers, body: { weight: 50 } });
  });

  it('puts "/" before a ruleType 1 pattern', async () => {
    expect((await match('/legacy/file.txt')).json().template.id).toBe(ids.legacy);
    expect((await match('/old/legacy/file.txt')).json().template.id).toBe(ids.legacy);
    expect((await match('/xlegacy/file.txt')).json().template).toBeNull();
  });

  it('matches the path only: query strings and full URLs', async () => {
    expect((await match('/exact?x=1')).json().template.id).toBe(ids.anchored);
    expect((await match('https://cdn.example.com/exact')).json().template.id).toBe(ids.anchored);
    expect((await match('/exact/more')).json().template).toBeNull();
  });

  it("includes the system templates, and never another client's", async () => {
    const res = (await match('/api/v1/users')).json();
    expect(res.template).toMatchObject({ default: true, name: 'No cache for API paths' });
    expect(res.matching[0].id).toBe(res.template.id);
    const mine = (await match('/nothing/here.txt')).json();
    expect(mine.template).toBeNull();
    expect(mine.matching).toEqual([]);
    expect((await match('/nothing/here.txt', b.clientId)).json().template.name).toBe('other');
  });

  it('forgets deleted templates', async () => {
    const created = (await t.request('POST', BASE, { headers: a.headers, body: { rule: '/gone/', ruleType: 0 } })).json();
    expect((await match('/gone/x')).json().template.id).toBe(created.id);
    await t.request('DELETE', `${BASE}/${created.id}`, { headers: a.headers });
    expect((await match('/gone/x')).json().template).toBeNull();
  });

  it('is for the operator only', async () => {
    const res = await t.request('POST', MATCH, { headers: a.headers, body: { client_id: a.clientId, uri: '/x' } });
    expect(res.statusCode).toBe(403);
    expect((await t.request('POST', MATCH, { body: { client_id: a.clientId, uri: '/x' } })).statusCode).toBe(401);
  });

  it('validates its body', async () => {
    const res = await t.request('POST', MATCH, { headers: t.operator, body: { uri: '' } });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { loc: string[] }) => e.loc.join('.'))
        .sort(),
    ).toEqual(['body.client_id', 'body.uri']);
  });
});
