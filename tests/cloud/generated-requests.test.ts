// Every cloud operation, called on records that exist (an instance with its ports, a volume, a snapshot,
// a group, an image, a floating IP, a cluster) with schema-valid bodies generated from the published
// OpenAPI document: no answer is a 5xx, and every refusal is in the cloud envelope.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { operationsOf } from '../reliability/support/operations.js';
import { envelopeProblem } from '../reliability/support/envelopes.js';
import { validValue } from '../reliability/support/schema-arb.js';
import { engineName } from '../support/app.js';
import { cloudFixture, UBUNTU, type CloudFixture } from './fixture.js';
describe(`generated requests to every cloud operation (${engineName})`, () => {
  it('never answer a 5xx, and refuse in the cloud envelope', async () => {
    const f = await cloudFixture();
    const net = await f.networkWithSubnet('fz-net', '10.60.0.0/24');
    await f.sshKey('fz-key');
    const vm = await f.instance('fz-vm', { ssh_key_name: 'fz-key', interfaces: [{ type: 'subnet', network_id: net.networkId, subnet_id: net.subnetId }] });
    const vol = (await f.finished(await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'image', name: 'fz-vol', size: 10, image_id: UBUNTU })))
      .created_resources.volumes[0];
    const snap = (await f.finished(await f.req('POST', `/cloud/v1/snapshots/${f.project}/76`, { name: 'fz-snap', volume_id: vol }))).created_resources
      .snapshots[0];
    const sg = (await f.finished(await f.req('POST', `/cloud/v2/security_groups/${f.project}/76`, { name: 'fz-sg' }))).created_resources.security_groups[0];
    await f.finished(
      await f.req('POST', `/cloud/v2/k8s/clusters/${f.project}/76`, {
        name: 'fz-k8s',
        keypair: 'fz-key',
        version: 'v1.30.8',
        pools: [{ name: 'pool-1', flavor_id: 'g1-standard-1-2', min_node_count: 1 }],
      }),
    );
    const fip = (await f.finished(await f.req('POST', `/cloud/v1/floatingips/${f.project}/76`, {}))).created_resources.floatingips[0];
    const img = (await f.finished(await f.req('POST', `/cloud/v1/images/${f.project}/76`, { name: 'fz-img', volume_id: vol }))).created_resources.images[0];
    const port = (await f.req('GET', `/cloud/v1/instances/${f.project}/76/${vm}/interfaces`)).json().results[0].port_id;
    const rule = (await f.req('GET', `/cloud/v1/securitygroups/${f.project}/76/${sg}`)).json().security_group_rules[0].id;
    const lb = await loadBalancer(f, net, vm);
    const network = await networkResources(f, net);
    const ids: Record<string, unknown> = {
      project_id: f.project,
      region_id: 76,
      instance_id: vm,
      volume_id: vol,
      snapshot_id: snap,
      group_id: sg,
      cluster_name: 'fz-k8s',
      pool_name: 'pool-1',
      floating_ip_id: fip,
      image_id: img,
      port_id: port,
      rule_id: rule,
      network_id: net.networkId,
      subnet_id: net.subnetId,
      client_id: f.me.clientId,
      ...lb,
      ...network,
    };
    const ops = operationsOf((await f.t.request('GET', '/openapi.json')).json()).filter((o) => o.operationId.startsWith('cloud.'));
    const bad: string[] = [];
    let n = 0;
    for (const op of ops) {
      const url = op.path.replace(/\{(\w+)\}/g, (_m, name) =>
        encodeURIComponent(String(ids[name] ?? fc.sample(validValue(op.pathParams.find((p) => p.name === name)?.schema ?? {}), { numRuns: 1, seed: 3 })[0])),
      );
      const bodies = op.body ? fc.sample(validValue(op.body), { numRuns: 25, seed: 11 }) : [undefined];
      for (const body of bodies) {
        const res = await f.req(op.method, url, body);
        n += 1;
        const problem =
          res.statusCode >= 500
            ? 'server error'
            : res.statusCode >= 400
              ? envelopeProblem(url, res.statusCode, res.json(), String(res.headers['x-request-id']))
              : null;
        if (problem) bad.push(`${op.operationId} ${res.statusCode} ${problem}: ${JSON.stringify(body).slice(0, 300)} ${res.body.slice(0, 300)}`);
      }
    }
    expect(bad).toEqual([]);
    expect(n).toBeGreaterThan(1000);
    await f.close();
  }, 600_000);
});

/** A balancer with a listener, a pool with a member and a monitor, an L7 policy with a rule: their IDs by path parameter. */
async function loadBalancer(f: CloudFixture, net: { networkId: string; subnetId: string }, vm: string): Promise<Record<string, string>> {
  const address = (await f.req('GET', `/cloud/v1/instances/${f.project}/76/${vm}`)).json().addresses['fz-net'][0].addr;
  const members = [{ address, protocol_port: 80, instance_id: vm }];
  const healthmonitor = { type: 'HTTP', delay: 5, timeout: 3, max_retries: 2 };
  const listeners = [
    {
      name: 'fz-http',
      protocol: 'HTTP',
      protocol_port: 80,
      pools: [{ name: 'fz-pool', protocol: 'HTTP', lb_algorithm: 'ROUND_ROBIN', healthmonitor, members }],
    },
  ];
  const made = (await f.finished(await f.req('POST', `/cloud/v1/loadbalancers/${f.project}/76`, { name: 'fz-lb', vip_network_id: net.networkId, listeners })))
    .created_resources;
  const policy = (await f.finished(await f.req('POST', `/cloud/v1/l7policies/${f.project}/76`, { listener_id: made.listeners[0], action: 'REJECT' })))
    .created_resources.l7polices[0];
  const rule = (
    await f.finished(
      await f.req('POST', `/cloud/v1/l7policies/${f.project}/76/${policy}/rules`, { type: 'PATH', compare_type: 'STARTS_WITH', value: '/admin' }),
    )
  ).created_resources.l7rules[0];
  return {
    load_balancer_id: made.loadbalancers[0],
    listener_id: made.listeners[0],
    pool_id: made.pools[0],
    member_id: made.members[0],
    l7policy_id: policy,
    l7rule_id: rule,
  };
}

/** A router on the subnet, a file share with an access rule: their IDs by path parameter. */
async function networkResources(f: CloudFixture, net: { networkId: string; subnetId: string }): Promise<Record<string, string>> {
  const router = (await f.finished(await f.req('POST', `/cloud/v1/routers/${f.project}/76`, { name: 'fz-router', interfaces: [{ subnet_id: net.subnetId }] })))
    .created_resources.routers[0];
  const share = (
    await f.finished(
      await f.req('POST', `/cloud/v1/file_shares/${f.project}/76`, { name: 'fz-share', protocol: 'NFS', size: 5, network: { network_id: net.networkId } }),
    )
  ).created_resources.file_shares[0];
  const rule = (await f.req('POST', `/cloud/v1/file_shares/${f.project}/76/${share}/access_rule`, { access_mode: 'ro', ip_address: '10.60.0.0/24' })).json().id;
  return { router_id: router, file_share_id: share, access_rule_id: rule };
}
