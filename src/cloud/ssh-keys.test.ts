// SSH keys through HTTP: supplied keys parsed and fingerprinted, generated pairs, unique names, sharing
// within a project, the keypair quota, the instances and clusters that name a key, and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, publicKey, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';
import type { TestAccount } from '../../tests/support/app.js';

let f: CloudFixture;
let colleague: TestAccount;
let stranger: TestAccount;
let keys: string;

beforeAll(async () => {
  f = await cloudFixture();
  keys = `/cloud/v1/ssh_keys/${f.project}`;
  const userId = await f.t.iam.accounts.addUser(f.me.clientId, { email: `colleague-${f.me.clientId}@example.test`, name: 'Colleague', groupId: 1 });
  const { token } = await f.t.iam.tokens.issue({ clientId: f.me.clientId, userId, role: 'Administrators', name: 'colleague' });
  colleague = { clientId: f.me.clientId, userId, token, headers: { authorization: `APIKey ${token}` } };
  stranger = await f.t.account();
});
afterAll(async () => f.close());

describe('SSH keys', () => {
  it('adds a supplied public key with its MD5 fingerprint, and lists, gets and deletes it', async () => {
    const line = publicKey('rsa', 'me@laptop');
    const created = await f.req('POST', keys, { name: 'laptop', public_key: line });
    expect(created.statusCode).toBe(201);
    expectConforms('POST', '/cloud/v1/ssh_keys/{project_id}', created);
    expect(created.json()).toMatchObject({
      name: 'laptop',
      public_key: line,
      private_key: null,
      shared_in_project: true,
      state: 'ACTIVE',
      project_id: f.project,
    });
    expect(created.json().fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    const id = created.json().id;
    const got = await f.req('GET', `${keys}/${id}`);
    expectConforms('GET', '/cloud/v1/ssh_keys/{project_id}/{ssh_key_id}', got);
    expect(got.json()).toEqual({ ...created.json(), private_key: undefined, created_at: got.json().created_at });
    const list = await f.req('GET', `${keys}?name=lapt`);
    expectConforms('GET', '/cloud/v1/ssh_keys/{project_id}', list);
    expect(list.json()).toMatchObject({ count: 1, results: [{ id }] });
    const gone = await f.req('DELETE', `${keys}/${id}`);
    expect(gone.statusCode).toBe(204);
    expect((await f.req('GET', `${keys}/${id}`)).statusCode).toBe(404);
  });

  it('generates an Ed25519 key pair and shows its private key only once', async () => {
    const created = await f.req('POST', keys, { name: 'generated' });
    expectConforms('POST', '/cloud/v1/ssh_keys/{project_id}', created);
    expect(created.json().private_key).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(created.json().public_key).toMatch(/^ssh-ed25519 \S+ generated$/);
    const got = await f.req('GET', `${keys}/${created.json().id}`);
    expect(got.json()).not.toHaveProperty('private_key');
  });

  it('refuses malformed keys, a taken name and a bad name, storing nothing', async () => {
    const before = (await f.req('GET', keys)).json().count;
    const bad = await f.req('POST', keys, { name: 'broken', public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9v me' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, exception_class: 'BadRequestError', errors: [{ loc: ['body', 'public_key'] }] });
    expect((await f.req('POST', keys, { name: 'dsa-like', public_key: 'ssh-dss AAAAB3NzaC1kc3MAAACBAP me' })).statusCode).toBe(400);
    expect((await f.req('POST', keys, { name: 'x' })).statusCode).toBe(400);
    expect((await f.req('POST', keys, { name: 'dup-name' })).statusCode).toBe(201);
    const dup = await f.req('POST', keys, { name: 'dup-name', public_key: publicKey() });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toMatch(/already exists/);
    expect((await f.req('GET', keys)).json().count).toBe(before + 1);
  });

  it('shows a key not shared in the project to the user who made it only, until it is shared', async () => {
    const mine = await f.req('POST', keys, { name: 'private-one', public_key: publicKey(), shared_in_project: false });
    const id = mine.json().id;
    expect((await f.req('GET', `${keys}/${id}`, undefined, colleague)).statusCode).toBe(404);
    expect((await f.req('GET', keys, undefined, colleague)).json().results.map((k: { id: string }) => k.id)).not.toContain(id);
    const shared = await f.req('PATCH', `${keys}/${id}`, { shared_in_project: true });
    expectConforms('PATCH', '/cloud/v1/ssh_keys/{project_id}/{ssh_key_id}', shared);
    expect(shared.json().shared_in_project).toBe(true);
    expect((await f.req('GET', `${keys}/${id}`, undefined, colleague)).statusCode).toBe(200);
  });

  it('counts keys in the global quota and refuses one over it', async () => {
    const global = (await f.req('GET', `/cloud/v2/global_quotas/${f.me.clientId}`)).json();
    expect(global.keypair_count_usage).toBeGreaterThan(0);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { keypair_count_limit: global.keypair_count_usage } });
    const over = await f.req('POST', keys, { name: 'one-too-many' });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toMatch(/Quota exceeded \(SSH keys: requested 1, in use \d+, limit \d+\)/);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { keypair_count_limit: 100 } });
  });

  it('is what instances and clusters name: an unknown key is refused', async () => {
    const vm = await f.req('POST', `/cloud/v2/instances/${f.project}/76`, {
      name: 'keyed',
      flavor: 'g1-standard-1-2',
      ssh_key_name: 'no-such-key',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'external' }],
    });
    expect(vm.statusCode).toBe(400);
    expect(vm.json().errors).toEqual([{ loc: ['body', 'ssh_key_name'], msg: expect.stringMatching(/no SSH key named no-such-key/), type: 'value_error' }]);
    const cluster = await f.req('POST', `/cloud/v2/k8s/clusters/${f.project}/76`, {
      name: 'keyless',
      keypair: 'no-such-key',
      version: 'v1.30.8',
      pools: [{ name: 'pool-1', flavor_id: 'g1-standard-2-4', min_node_count: 1 }],
    });
    expect(cluster.statusCode).toBe(400);
    expect(cluster.json().errors[0].loc).toEqual(['body', 'keypair']);
    await f.sshKey('real-key');
    const id = await f.instance('keyed', { ssh_key_name: 'real-key' });
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/76/${id}`)).json().ssh_key_name).toBe('real-key');
  });

  it('hides keys of another client (404) and needs a token (401) and a writing role (403)', async () => {
    const id = await f.sshKey('tenant-key');
    expect((await f.req('GET', `${keys}/${id}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('DELETE', `${keys}/${id}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('GET', keys, undefined, stranger)).statusCode).toBe(404);
    expect((await f.t.request('GET', keys)).statusCode).toBe(401);
    const reader = await f.t.account({ role: 'Users' });
    expect(
      (
        await f.t.request('POST', `/cloud/v1/ssh_keys/${(await f.t.request('GET', '/cloud/v1/projects', { headers: reader.headers })).json().results[0].id}`, {
          headers: reader.headers,
          body: { name: 'nope-key' },
        })
      ).statusCode,
    ).toBe(403);
    expect((await f.req('GET', `${keys}/${id}`)).statusCode).toBe(200);
  });
});
