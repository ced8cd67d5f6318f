// What the cloud tests share: an app with an account and its default project, requests as that account,
// polling, and the records most tests build on (a network with a subnet, an SSH key, an instance).
import { generateKeyPairSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import sshpk from 'sshpk';
import { expect } from 'vitest';
import { DEFAULT_PUBLIC_IMAGE } from '../../src/cloud/images/catalogue.js';
import { createTestApp, type TestAccount, type TestApp } from '../support/app.js';

/** The public Ubuntu 22.04 image every region with virtual machines offers (a fixed ID). */
export const UBUNTU = DEFAULT_PUBLIC_IMAGE.id;

/** A real OpenSSH public key line of the given type. */
export function publicKey(type: 'ed25519' | 'rsa' | 'ecdsa' = 'ed25519', comment = 'test@example'): string {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : type === 'ecdsa'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  const key = sshpk.parseKey(pair.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem');
  return `${key.toString('ssh').split(' ').slice(0, 2).join(' ')} ${comment}`;
}

export interface CloudFixture {
  t: TestApp;
  me: TestAccount;
  project: number;
  req(method: string, url: string, body?: unknown, who?: TestAccount): Promise<LightMyRequestResponse>;
  /** The task of a response that started one, checked FINISHED. */
  finished(res: LightMyRequestResponse): Promise<any>;
  task(id: string, who?: TestAccount): Promise<any>;
  networkWithSubnet(name: string, cidr: string, region?: number): Promise<{ networkId: string; subnetId: string }>;
  sshKey(name: string): Promise<string>;
  instance(name: string, body?: Record<string, unknown>, region?: number): Promise<string>;
  setMode(mode: 'instant' | 'manual', taskType?: string): Promise<void>;
  close(): Promise<void>;
}

export async function cloudFixture(): Promise<CloudFixture> {
  const t = await createTestApp();
  const me = await t.account();
  const project = (await t.request('GET', '/cloud/v1/projects', { headers: me.headers })).json().results[0].id as number;
  const req: CloudFixture['req'] = (method, url, body, who = me) => t.request(method, url, { headers: who.headers, body });
  const task: CloudFixture['task'] = async (id, who = me) => (await req('GET', `/cloud/v1/tasks/${id}`, undefined, who)).json();
  const finished: CloudFixture['finished'] = async (res) => {
    expect(res.statusCode, res.body).toBe(200);
    const done = await task(res.json().tasks[0]);
    expect(done.state, done.error).toBe('FINISHED');
    return done;
  };
  const fixture: CloudFixture = {
    t,
    me,
    project,
    req,
    finished,
    task,
    async networkWithSubnet(name, cidr, region = 76) {
      const net = await finished(await req('POST', `/cloud/v1/networks/${project}/${region}`, { name }));
      const networkId = net.created_resources.networks[0];
      const sub = await finished(await req('POST', `/cloud/v1/subnets/${project}/${region}`, { name: `${name}-subnet`, network_id: networkId, cidr }));
      return { networkId, subnetId: sub.created_resources.subnets[0] };
    },
    async sshKey(name) {
      const res = await req('POST', `/cloud/v1/ssh_keys/${project}`, { name, public_key: publicKey() });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id;
    },
    async instance(name, body = {}, region = 76) {
      const done = await finished(
        await req('POST', `/cloud/v2/instances/${project}/${region}`, {
          name,
          flavor: 'g1-standard-1-2',
          volumes: [{ source: 'image', image_id: UBUNTU, size: 10, boot_index: 0 }],
          interfaces: [{ type: 'external' }],
          ...body,
        }),
      );
      return done.created_resources.instances[0];
    },
    async setMode(mode, taskType) {
      const res = await t.request('PUT', '/_edgeplane/tasks/mode', { headers: t.operator, body: { mode, ...(taskType ? { task_type: taskType } : {}) } });
      expect(res.statusCode, res.body).toBe(200);
    },
    close: () => t.close(),
  };
  return fixture;
}
