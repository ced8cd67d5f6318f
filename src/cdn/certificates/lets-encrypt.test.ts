// Let's Encrypt certificates: asked for with automated: true, issued on the server clock once attached
// to a resource (the reference's PATCH of sslData and sslEnabled), renewed, retried after a failure,
// cancelled when detached; one resource per certificate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../../../tests/support/app.js';
import { expectConforms } from '../../../tests/support/conformance.js';
import { DURATIONS_MS } from '../limits.js';
import { createResource, LEAF_CERT, LEAF_KEY, uniqueHost } from '../../../tests/support/cdn.js';

const SSL = '/cdn/sslData';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await createTestApp();
  a = await t.account();
});
afterAll(async () => t.close());

const call = (method: string, url: string, body?: unknown) => t.request(method, url, { headers: a.headers, body });
const automated = async () => (await call('POST', SSL, { name: uniqueHost('le'), automated: true })).json();
const status = (id: number) => call('GET', `${SSL}/${id}/status`);

describe("Let's Encrypt issuing", () => {
  it('starts when attached to a resource, and issues for its host names after the attempt', async () => {
    const cert = await automated();
    expect(cert).toMatchObject({ automated: true, cert_issuer: '', cert_subject_cn: '', validity_not_after: '' });
    expect((await status(cert.id)).json().errors.certificate[0]).toMatch(/not attached/);
    const www = uniqueHost('www');
    const resource = await createResource(t, a, { secondaryHostnames: [www] });
    const attach = await call('PATCH', `/cdn/resources/${resource.id}`, { sslData: cert.id, sslEnabled: true });
    expect(attach.statusCode, attach.body).toBe(200);
    expectConforms('PATCH', '/cdn/resources/{id}', attach);
    const running = await status(cert.id);
    expect(running.statusCode).toBe(200);
    expectConforms('GET', `${SSL}/{cert_id}/status`, running);
    expect(running.json()).toMatchObject({ active: true, attempts_count: 1, statuses: [], resource: resource.id });
    expect(running.json()).not.toHaveProperty('finished');
    expect((await call('POST', `${SSL}/${cert.id}/renew`)).statusCode).toBe(400);

    await t.clock.advance(DURATIONS_MS.letsEncryptIssue);
    const finished = await status(cert.id);
    expectConforms('GET', `${SSL}/{cert_id}/status`, finished);
    const done = finished.json();
    expect(done).toMatchObject({ active: false, attempts_count: 1, latest_status: { status: 'Done', error: '' } });
    const issued = (await call('GET', `${SSL}/${cert.id}`)).json();
    expect(issued).toMatchObject({ cert_subject_cn: resource.cname, cert_subject_alt: `${resource.cname},${www}`, hasRelatedResources: true });
    expect(Date.parse(issued.validity_not_after) - Date.parse(issued.validity_not_before)).toBe(DURATIONS_MS.letsEncryptValidity);

    const retry = await call('POST', `${SSL}/${cert.id}/force-retry`);
    expect(retry.json().errors.certificate[0]).toMatch(/nothing to retry/);
    const renew = await call('POST', `${SSL}/${cert.id}/renew`);
    expect(renew.statusCode).toBe(201);
    expect((await status(cert.id)).json()).toMatchObject({ active: true, attempts_count: 2 });
    const trimmed = await t.request('GET', `${SSL}/${cert.id}/status`, { headers: a.headers, query: { exclude: ['statuses', 'resource'] } });
    expect(trimmed.json()).not.toHaveProperty('statuses');
    expect(trimmed.json()).not.toHaveProperty('resource');
  });

  it('serves one resource only', async () => {
    const cert = await automated();
    await createResource(t, a, { sslEnabled: true, sslData: cert.id });
    const res = await call('POST', '/cdn/resources', { cname: uniqueHost(), origin: 'origin.example.com', sslEnabled: true, sslData: cert.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.sslData[0]).toMatch(/one resource/);
  });

  it('cannot cover a wildcard host name', async () => {
    const cert = await automated();
    const res = await call('POST', '/cdn/resources', {
      cname: uniqueHost(),
      origin: 'origin.example.com',
      secondaryHostnames: [`*.${uniqueHost('w')}`],
      sslEnabled: true,
      sslData: cert.id,
    });
    expect(res.json().errors.sslData[0]).toMatch(/wildcard/);
  });

  it('fails for an inactive resource; a forced retry after activation issues it', async () => {
    const cert = await automated();
    const resource = await createResource(t, a, { active: false, sslEnabled: true, sslData: cert.id });
    await t.clock.advance(DURATIONS_MS.letsEncryptIssue);
    expect((await status(cert.id)).json()).toMatchObject({ active: false, latest_status: { status: 'Failed', error: 'ResourceNotActive' } });
    expect((await call('GET', `${SSL}/${cert.id}`)).json().cert_subject_cn).toBe('');
    await call('PATCH', `/cdn/resources/${resource.id}`, { active: true });
    expect((await call('POST', `${SSL}/${cert.id}/force-retry`)).statusCode).toBe(201);
    await t.clock.advance(DURATIONS_MS.letsEncryptIssue);
    expect((await status(cert.id)).json()).toMatchObject({ attempts_count: 2, latest_status: { status: 'Done' } });
  });

  it('detaching (the revoke PATCH) cancels a running attempt', async () => {
    const cert = await automated();
    const resource = await createResource(t, a, { sslEnabled: true, sslData: cert.id });
    const revoke = await call('PATCH', `/cdn/resources/${resource.id}`, { sslData: null, sslEnabled: false });
    expect(revoke.statusCode).toBe(200);
    expectConforms('PATCH', '/cdn/resources/{res_id}', revoke);
    expect((await status(cert.id)).json().errors.certificate[0]).toMatch(/not attached/);
    const row = await t.db.kysely.selectFrom('cdn_ssl_certificates').select('le_attempts').where('id', '=', cert.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.le_attempts)[0].cancelled_at).toBeTypeOf('number');
  });

  it("renew, retry and status are for Let's Encrypt certificates only", async () => {
    const own = (await call('POST', SSL, { name: uniqueHost('own'), sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY })).json();
    for (const [method, path] of [
      ['GET', 'status'],
      ['POST', 'renew'],
      ['POST', 'force-retry'],
    ]) {
      const res = await call(method, `${SSL}/${own.id}/${path}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.certificate[0]).toMatch(/Not a Let's Encrypt certificate/);
    }
    const le = await automated();
    expect((await call('PUT', `${SSL}/${le.id}`, { name: 'x', sslCertificate: LEAF_CERT, sslPrivateKey: LEAF_KEY })).statusCode).toBe(400);
  });
});
