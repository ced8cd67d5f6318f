// SSL certificates (/cdn/sslData) and trusted CA certificates (/cdn/sslCertificates) over HTTP:
// uploads really parsed (malformed PEM, a key of another certificate, an expired certificate refused),
// the facts read from the certificate, deletion refused while in use, tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { createResource, EXPIRED_CERT, LEAF_CERT, LEAF_KEY, OTHER_KEY, TEST_CA, uniqueHost } from '../../../tests/support/cdn.js';

const SSL = '/cdn/sslData';
const CA = '/cdn/sslCertificates';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  b = await t.account();
});
afterAll(async () => t.close());

const call = (method: string, url: string, body?: unknown, account = a) => t.request(method, url, { headers: account.headers, body });
const upload = (body: Record<string, unknown> = {}, account = a) =>
  call('POST', SSL, { name: uniqueHost('cert'), sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY, ...body }, account);

describe('uploaded certificates', () => {
  it('are parsed: issuer, subject, alternative names and validity come from the certificate', async () => {
    const res = await upload({ sslCertificate: `${LEAF_CERT}${TEST_CA}` });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      deleted: false,
      automated: false,
      hasRelatedResources: false,
      cert_issuer: 'Edgeplane Test Root CA',
      cert_subject_cn: 'cdn.example.com',
      cert_subject_alt: 'cdn.example.com,www.example.com',
      validity_not_before: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      validity_not_after: expect.stringMatching(/^21\d\d-/),
    });
    const got = await call('GET', `${SSL}/${res.json().id}`);
    expectConforms('GET', `${SSL}/{ssl_id}`, got);
    expect(got.json()).toEqual(res.json());
  });

  const refusals: [string, Record<string, unknown>, string, RegExp][] = [
    ['text that is not PEM', { sslCertificate: 'hello' }, 'sslCertificate', /Not a PEM certificate/],
    ['a damaged certificate', { sslCertificate: LEAF_CERT.replace(/[A-Za-z]{20}/, 'A'.repeat(20)) }, 'sslCertificate', /cannot be read/],
    ['a key that is not PEM', { sslPrivateKey: 'secret' }, 'sslPrivateKey', /Not a PEM private key/],
    ['an encrypted key', { sslPrivateKey: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n' }, 'sslPrivateKey', /encrypted/],
    ['the key of another certificate', { sslPrivateKey: OTHER_KEY }, 'sslPrivateKey', /does not belong/],
    ['an expired certificate', { sslCertificate: EXPIRED_CERT, sslPrivateKey: OTHER_KEY }, 'sslCertificate', /expired on 2021-01-01/],
    ['a chain in the wrong order', { sslCertificate: `${TEST_CA}${LEAF_CERT}` }, 'sslCertificate', /followed by the one that signed it/],
    [
      'a chain to an untrusted root when asked to check',
      { sslCertificate: `${LEAF_CERT}${TEST_CA}`, validate_root_ca: true },
      'sslCertificate',
      /trusted certificate authority/,
    ],
    ['no key', { sslPrivateKey: undefined }, 'sslPrivateKey', /required/],
  ];
  it.each(refusals)('refuses %s with a 400 naming the field, storing nothing', async (_name, body, field, message) => {
    const before = (await call('GET', SSL)).json().length;
    const res = await upload(body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[field].join(' ')).toMatch(message);
    expect((await call('GET', SSL)).json().length).toBe(before);
  });

  it('expiry follows the server clock', async () => {
    const notAfter = Date.parse((await upload()).json().validity_not_after);
    const saved = t.clock.now();
    t.clock.set(notAfter + 1000);
    try {
      const res = await upload();
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.sslCertificate[0]).toMatch(/expired/);
    } finally {
      t.clock.set(saved);
    }
  });

  it('names are unique in the account; PUT replaces certificate, key and name', async () => {
    const first = (await upload({ name: 'shared-name' })).json();
    expect((await upload({ name: 'shared-name' })).json().errors.name[0]).toMatch(/name/);
    expect((await upload({ name: 'shared-name' }, b)).statusCode).toBe(201);
    const put = await call('PUT', `${SSL}/${first.id}`, { name: 'renamed', sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY });
    expect(put.statusCode, put.body).toBe(200);
    expectConforms('PUT', `${SSL}/{ssl_id}`, put);
    expect(put.json().name).toBe('renamed');
    expect((await call('PUT', `${SSL}/${first.id}`, { name: 'renamed', sslCertificate: EXPIRED_CERT, sslPrivateKey: OTHER_KEY })).statusCode).toBe(400);
  });

  it('lists as an array or a page, with filters; a certificate in use cannot be deleted', async () => {
    const c = await t.account();
    const cert = (await upload({}, c)).json();
    const spare = (await upload({}, c)).json();
    const resource = await createResource(t, c, { sslEnabled: true, sslData: cert.id });
    expect(resource.sslData).toBe(cert.id);
    const list = await call('GET', SSL, undefined, c);
    expectConforms('GET', SSL, list);
    expect(list.json().map((x: { id: number; hasRelatedResources: boolean }) => [x.id, x.hasRelatedResources])).toEqual([
      [cert.id, true],
      [spare.id, false],
    ]);
    const page = await t.request('GET', SSL, { headers: c.headers, query: { limit: '1', resource_id: String(resource.id) } });
    expect(page.json()).toMatchObject({ count: 1, results: [{ id: cert.id }] });
    expect((await t.request('GET', SSL, { headers: c.headers, query: { automated: 'true' } })).json()).toEqual([]);
    expect((await t.request('GET', SSL, { headers: c.headers, query: { validity_not_after_lte: '2030-01-01T00:00:00Z' } })).json()).toEqual([]);
    const usage = await call('GET', `${SSL}/${cert.id}/usage`, undefined, c);
    expectConforms('GET', `${SSL}/{cert_id}/usage`, usage);
    expect(usage.json()).toEqual({ resources: [{ id: resource.id, cname: resource.cname, status: 'processed' }] });
    const refused = await call('DELETE', `${SSL}/${cert.id}`, undefined, c);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0]).toMatch(/used by CDN resource/);
    expect((await call('DELETE', `${SSL}/${spare.id}`, undefined, c)).statusCode).toBe(204);
  });

  it('a resource refuses a certificate without sslEnabled, or one of another account', async () => {
    const cert = (await upload({}, b)).json();
    const mine = (await upload()).json();
    expect((await call('POST', '/cdn/resources', { cname: uniqueHost(), origin: 'origin.example.com', sslData: mine.id })).json().errors.sslData[0]).toMatch(
      /sslEnabled/,
    );
    expect(
      (await call('POST', '/cdn/resources', { cname: uniqueHost(), origin: 'origin.example.com', sslEnabled: true, sslData: cert.id })).json().errors
        .sslData[0],
    ).toMatch(/No SSL certificate/);
  });
});

describe('trusted CA certificates', () => {
  it('are parsed, renamed with PUT, and not deleted while a resource verifies its origin with them', async () => {
    const res = await call('POST', CA, { name: 'root', sslCertificate: TEST_CA });
    expect(res.statusCode, res.body).toBe(201);
    expectConforms('POST', CA, res);
    expect(res.json()).toMatchObject({
      name: 'root',
      cert_subject_cn: 'Edgeplane Test Root CA',
      cert_issuer: 'Edgeplane Test Root CA',
      hasRelatedResources: false,
    });
    const renamed = await call('PUT', `${CA}/${res.json().id}`, { name: 'root-2' });
    expectConforms('PUT', `${CA}/{id}`, renamed);
    expect(renamed.json().name).toBe('root-2');
    const resource = await createResource(t, a, { proxy_ssl_enabled: true, proxy_ssl_ca: res.json().id });
    expect(resource.proxy_ssl_ca).toBe(res.json().id);
    expect((await call('GET', `${CA}/${res.json().id}`)).json().hasRelatedResources).toBe(true);
    const refused = await call('DELETE', `${CA}/${res.json().id}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0]).toMatch(/verify its origin/);
    const list = await call('GET', CA);
    expectConforms('GET', CA, list);
  });

  it('refuses malformed and expired certificates', async () => {
    expect((await call('POST', CA, { name: 'bad', sslCertificate: 'nope' })).json().errors.sslCertificate[0]).toMatch(/PEM/);
    expect((await call('POST', CA, { name: 'old', sslCertificate: EXPIRED_CERT })).json().errors.sslCertificate[0]).toMatch(/expired/);
  });
});

describe('tenancy and access', () => {
  it("another client's certificates are 404 for every operation", async () => {
    const cert = (await upload()).json();
    const ca = (await call('POST', CA, { name: uniqueHost('ca'), sslCertificate: TEST_CA })).json();
    for (const [method, url, body] of [
      ['GET', `${SSL}/${cert.id}`, undefined],
      ['PUT', `${SSL}/${cert.id}`, { name: 'x', sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY }],
      ['DELETE', `${SSL}/${cert.id}`, undefined],
      ['GET', `${SSL}/${cert.id}/usage`, undefined],
      ['GET', `${CA}/${ca.id}`, undefined],
      ['PUT', `${CA}/${ca.id}`, { name: 'x' }],
      ['DELETE', `${CA}/${ca.id}`, undefined],
    ] as const) {
      expect((await call(method, url, body, b)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await t.request('GET', SSL)).statusCode).toBe(401);
  });
});
