// DNSSEC through the API: a real P-256 key and its DS record (checked here with an independent
// computation), the status following the parent zone's DS record, turning it off with and without force.
import { createHash, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
  for (const name of ['parent.test', 'child.parent.test', 'lonely.example']) await call('POST', '/dns/v2/zones', { name });
});
afterAll(async () => t?.close());

const call = (method: string, url: string, body?: unknown) => t.request(method, url, { headers: a.headers, body });
const zone = async (name: string) => (await call('GET', `/dns/v2/zones/${name}`)).json();

/** RFC 4034 appendix B, written out again for the test. */
function expectedKeyTag(rdata: Buffer): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; ++i) ac += i & 1 ? rdata[i] : rdata[i] << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

function expectedDigest(name: string, rdata: Buffer): string {
  const wire = Buffer.concat([...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
  return createHash('sha256').update(wire).update(rdata).digest('hex').toUpperCase();
}

describe('DNSSEC', () => {
  it('is off at first: no DS to read', async () => {
    const res = await call('GET', '/dns/v2/zones/child.parent.test/dnssec');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/not enabled/);
  });

  it('turns on with a real key whose DS record checks out', async () => {
    const before = await zone('child.parent.test');
    const res = await call('PATCH', '/dns/v2/zones/child.parent.test/dnssec', { enabled: true });
    expect(res.statusCode, res.body).toBe(200);
    expectConforms('PATCH', '/dns/v2/zones/{name}/dnssec', res);
    const ds = res.json();
    expect(ds).toMatchObject({
      algorithm: '13',
      key_type: 'ECDSAP256SHA256',
      flags: 257,
      digest_type: '2',
      digest_algorithm: 'SHA256',
      message: expect.stringMatching(/add the DS record/),
    });
    const key = Buffer.from(ds.public_key, 'base64');
    expect(key).toHaveLength(64);
    // The key is a point of P-256.
    createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: key.subarray(0, 32).toString('base64url'), y: key.subarray(32).toString('base64url') },
      format: 'jwk',
    });
    const rdata = Buffer.concat([Buffer.from([1, 1, 3, 13]), key]);
    expect(ds.key_tag).toBe(expectedKeyTag(rdata));
    expect(ds.digest).toBe(expectedDigest('child.parent.test', rdata));
    expect(ds.ds).toBe(`child.parent.test. 3600 IN DS ${ds.key_tag} 13 2 ${ds.digest}`);
    const read = await call('GET', '/dns/v2/zones/child.parent.test/dnssec');
    expectConforms('GET', '/dns/v2/zones/{name}/dnssec', read);
    const { message: _message, ...fields } = ds;
    expect(read.json()).toEqual(fields);
    const after = await zone('child.parent.test');
    expect(after).toMatchObject({ dnssec_enabled: true, dnssec_status: 'pending' });
    expect(after.serial).toBeGreaterThan(before.serial);
    expect(Date.parse(after.dnssec_status_modified_on)).toBeGreaterThan(0);
  });

  it('becomes active once the parent zone holds the DS record', async () => {
    const parentDs = await call('GET', '/dns/v2/zones/child.parent.test/dnssec/parent-ds');
    expectConforms('GET', '/dns/v2/zones/{name}/dnssec/parent-ds', parentDs);
    expect(parentDs.json()).toMatchObject({ has_valid_parent_ds: false, parent_zone: 'parent.test' });
    const ds = (await call('GET', '/dns/v2/zones/child.parent.test/dnssec')).json();
    await call('POST', '/dns/v2/zones/parent.test/child.parent.test/NS', {
      resource_records: [{ content: ['ns1.edgeplane.test.'] }, { content: ['ns2.edgeplane.test.'] }],
    });
    const added = await call('POST', '/dns/v2/zones/parent.test/child.parent.test/DS', {
      resource_records: [{ content: [ds.key_tag, 13, 2, ds.digest.toLowerCase()] }],
    });
    expect(added.statusCode, added.body).toBe(200);
    expect((await call('GET', '/dns/v2/zones/child.parent.test/dnssec/parent-ds')).json()).toMatchObject({
      has_valid_parent_ds: true,
      parent_zone: 'parent.test',
    });
    expect(await zone('child.parent.test')).toMatchObject({ dnssec_enabled: true, dnssec_status: 'active' });
    expect((await call('GET', '/dns/v2/zones?name=child.parent.test&exact_match=true')).json().zones[0].dnssec_status).toBe('active');
  });

  it('keeps the key published while the parent still points at it, then withdraws it', async () => {
    const off = await call('PATCH', '/dns/v2/zones/child.parent.test/dnssec', { enabled: false });
    expect(off.json().message).toMatch(/remove the DS record/);
    expect(await zone('child.parent.test')).toMatchObject({ dnssec_enabled: false, dnssec_status: 'pending-disabled' });
    expect((await call('GET', '/dns/v2/zones/child.parent.test/dnssec')).statusCode).toBe(200);
    await call('DELETE', '/dns/v2/zones/parent.test/child.parent.test/DS');
    expect(await zone('child.parent.test')).toMatchObject({ dnssec_enabled: false, dnssec_status: 'disabled' });
    expect((await call('GET', '/dns/v2/zones/child.parent.test/dnssec')).statusCode).toBe(400);
  });

  it('makes a new key when turned on again, and force_disable withdraws it at once', async () => {
    const on = (await call('PATCH', '/dns/v2/zones/lonely.example/dnssec', { enabled: true })).json();
    expect((await call('GET', '/dns/v2/zones/lonely.example/dnssec/parent-ds')).json()).toMatchObject({ has_valid_parent_ds: false, parent_zone: 'example' });
    const again = (await call('PATCH', '/dns/v2/zones/lonely.example/dnssec', { enabled: true })).json();
    expect(again.public_key).toBe(on.public_key);
    const forced = await call('PATCH', '/dns/v2/zones/lonely.example/dnssec', { enabled: false, force_disable: true });
    expect(forced.json()).toEqual({ message: expect.stringMatching(/off/) });
    expect(await zone('lonely.example')).toMatchObject({ dnssec_enabled: false, dnssec_status: 'disabled' });
    const renewed = (await call('PATCH', '/dns/v2/zones/lonely.example/dnssec', { enabled: true })).json();
    expect(renewed.public_key).not.toBe(on.public_key);
  });

  it('refuses a toggle without enabled', async () => {
    for (const body of [{}, { enabled: 'yes' }, { force_disable: true }]) {
      const res = await call('PATCH', '/dns/v2/zones/lonely.example/dnssec', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatch(/enabled/);
    }
  });
});
