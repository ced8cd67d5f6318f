// The effective options of a request, worked by hand from the seed: "Rules inherit all option values
// from the related CDN resource"; each option of a rule is inherit (null or absent: the resource's
// value), ON (overrides the resource value) or OFF (turned off); "when a URI matches several rules, the
// one earlier in the order is applied" (lowest weight); ruleType 1 puts "/" before the pattern;
// overrideOriginProtocol null inherits the resource's originProtocol.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { createGroup, createResource, createRule } from '../../../tests/support/cdn.js';

const EFFECTIVE = '/_edgeplane/cdn/resources/effective-options';

let t: TestApp;
let a: TestAccount;
let resource: { id: number; originGroup: number };
const rules: Record<string, number> = {};
let imagesGroup: number;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  imagesGroup = (await createGroup(t, a)).id;
  // The resource: gzip ON, browser cache 1h, CORS for everyone, HTTP toward the origin.
  resource = await createResource(t, a, {
    originProtocol: 'HTTP',
    options: { gzipOn: { enabled: true, value: true }, browser_cache_settings: { enabled: true, value: '1h' }, cors: { enabled: true, value: ['*'] } },
  });
  const made = async (name: string, body: Record<string, unknown>) => (rules[name] = (await createRule(t, a, resource.id, { name, ...body })).id);
  // /images/: gzip OFF, browser cache 7d ON, CORS inherited; its own origin group, over HTTPS.
  await made('images', {
    rule: '^/images/',
    weight: 20,
    overrideOriginProtocol: 'HTTPS',
    originGroup: imagesGroup,
    options: { gzipOn: { enabled: false, value: true }, browser_cache_settings: { enabled: true, value: '7d' } },
  });
  // Any PNG: earlier in the order than /images/.
  await made('png', { rule: '/.*\\.png$', weight: 10, options: { image_stack: { enabled: true, webp_enabled: true } } });
  // Two rules with the same weight: the older applies.
  await made('older', { rule: '^/tie/', weight: 5, options: { waap: { enabled: true, value: true } } });
  await made('newer', { rule: '^/tie/.*', weight: 5 });
  // Legacy ruleType 1: "/" is put before the pattern.
  await made('legacy', { rule: 'legacy/.*', ruleType: 1, weight: 1, options: { cors: { enabled: false, value: ['*'] } } });
  // An inactive rule is not applied, whatever its weight.
  await made('inactive', { rule: '^/', weight: 1, active: false });
});
afterAll(async () => t.close());

const effective = async (uri: string) => {
  const res = await t.request('POST', EFFECTIVE, { headers: t.operator, body: { client_id: a.clientId, resource_id: resource.id, uri } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('effective options (control API)', () => {
  it('no rule matches: the resource options, its origin group and protocol', async () => {
    const body = await effective('/index.html');
    expect(body).toMatchObject({ path: '/index.html', rule: null, matching: [], originGroup: resource.originGroup, originProtocol: 'HTTP' });
    expect(body.options).toEqual({
      gzipOn: { enabled: true, value: true },
      browser_cache_settings: { enabled: true, value: '1h' },
      cors: { enabled: true, value: ['*'], always: false },
    });
    expect(body.sources).toEqual({ gzipOn: 'resource', browser_cache_settings: 'resource', cors: 'resource' });
  });

  it('a rule: ON overrides, OFF turns off, inherit keeps the resource value; its group and protocol apply', async () => {
    const body = await effective('https://cdn.example.com/images/cat.jpg?w=100');
    expect(body.path).toBe('/images/cat.jpg');
    expect(body.rule).toMatchObject({ id: rules.images, name: 'images', originProtocol: 'HTTPS' });
    expect(body.options.gzipOn).toEqual({ enabled: false, value: true });
    expect(body.options.browser_cache_settings).toEqual({ enabled: true, value: '7d' });
    expect(body.options.cors).toEqual({ enabled: true, value: ['*'], always: false });
    expect(body.sources).toEqual({ gzipOn: 'rule', browser_cache_settings: 'rule', cors: 'resource' });
    expect(body).toMatchObject({ originGroup: imagesGroup, originProtocol: 'HTTPS' });
  });

  it('several rules match: the lowest weight applies; the others are listed in order', async () => {
    const body = await effective('/images/cat.png');
    expect(body.rule.id).toBe(rules.png);
    expect(body.matching.map((m: { id: number }) => m.id)).toEqual([rules.png, rules.images]);
    // Only the applied rule counts: gzip comes from the resource again, the /images/ group does not apply.
    expect(body.options.gzipOn).toEqual({ enabled: true, value: true });
    expect(body.options.image_stack).toMatchObject({ enabled: true, webp_enabled: true, quality: 95 });
    expect(body).toMatchObject({ originGroup: resource.originGroup, originProtocol: 'HTTP' });
  });

  it('equal weights: the older rule applies', async () => {
    const body = await effective('/tie/x');
    expect(body.matching.map((m: { id: number }) => m.id)).toEqual([rules.older, rules.newer]);
    expect(body.rule.id).toBe(rules.older);
    expect(body.options.waap).toEqual({ enabled: true, value: true });
  });

  it('ruleType 1 matches with "/" put before its pattern; OFF turns a resource option off', async () => {
    const body = await effective('/legacy/file.txt');
    expect(body.rule.id).toBe(rules.legacy);
    expect(body.options.cors).toEqual({ enabled: false, value: ['*'], always: false });
    expect((await effective('/xlegacy/file.txt')).rule).toBeNull();
  });

  it('follows changes: a rule turned inactive stops applying', async () => {
    await t.request('PATCH', `/cdn/resources/${resource.id}/rules/${rules.png}`, { headers: a.headers, body: { active: false } });
    expect((await effective('/images/cat.png')).rule.id).toBe(rules.images);
    await t.request('PATCH', `/cdn/resources/${resource.id}/rules/${rules.png}`, { headers: a.headers, body: { active: true } });
  });

  it("is for the operator; another client's resource is not found", async () => {
    expect((await t.request('POST', EFFECTIVE, { headers: a.headers, body: { client_id: a.clientId, resource_id: resource.id, uri: '/' } })).statusCode).toBe(
      403,
    );
    const other = await t.account();
    expect(
      (await t.request('POST', EFFECTIVE, { headers: t.operator, body: { client_id: other.clientId, resource_id: resource.id, uri: '/' } })).statusCode,
    ).toBe(404);
  });
});
