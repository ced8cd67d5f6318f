// Security groups through HTTP: the project's default group, groups and rules made through tasks (v2)
// and at once (v1), rule checks and duplicates, copies and reverts, the instance ports that use groups
// (a group in use cannot be deleted), quotas and tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudFixture, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';

let f: CloudFixture;
const R = 76;
const v1 = () => `/cloud/v1/securitygroups/${f.project}/${R}`;
const v2 = () => `/cloud/v2/security_groups/${f.project}/${R}`;
const group = async (id: string) => (await f.req('GET', `${v1()}/${id}`)).json();
const create = async (body: Record<string, unknown>) => (await f.finished(await f.req('POST', v2(), body))).created_resources.security_groups[0] as string;

beforeAll(async () => {
  f = await cloudFixture();
});
afterAll(async () => f.close());

describe('groups', () => {
  it('gives each project a default group per region that cannot be deleted', async () => {
    const list = await f.req('GET', v1());
    expectConforms('GET', '/cloud/v1/securitygroups/{project_id}/{region_id}', list);
    const [def] = list.json().results;
    expect(list.json().count).toBe(1);
    expect(def).toMatchObject({ name: 'default', region_id: R, project_id: f.project });
    expect(def.security_group_rules.map((r: any) => [r.direction, r.ethertype, r.remote_group_id])).toEqual([
      ['egress', 'IPv4', null],
      ['egress', 'IPv6', null],
      ['ingress', 'IPv4', def.id],
      ['ingress', 'IPv6', def.id],
    ]);
    expect((await f.req('GET', `/cloud/v1/securitygroups/${f.project}/38`)).json().results[0].id).not.toBe(def.id);
    const refused = await f.req('DELETE', `${v1()}/${def.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/default group/);
  });

  it('creates a group through a task: the template rules when none are given, none for [], or the ones given', async () => {
    const created = await f.req('POST', v2(), { name: 'web', description: 'front', tags: { env: 'prod' } });
    expectConforms('POST', '/cloud/v2/security_groups/{project_id}/{region_id}', created);
    const task = await f.finished(created);
    expect(task).toMatchObject({ task_type: 'create_security_group', created_resources: { security_groups: [created.json().id] } });
    const got = await f.req('GET', `${v1()}/${created.json().id}`);
    expectConforms('GET', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}', got);
    expect(got.json()).toMatchObject({ name: 'web', description: 'front', revision_number: 1, tags_v2: [{ key: 'env', value: 'prod', read_only: false }] });
    expect(got.json().security_group_rules.map((r: any) => `${r.direction}/${r.ethertype}/${r.protocol}`)).toEqual([
      'egress/IPv4/null',
      'egress/IPv6/null',
      'ingress/IPv4/null',
      'ingress/IPv6/null',
    ]);
    expect((await group(await create({ name: 'empty', rules: [] }))).security_group_rules).toEqual([]);
    const ssh = await group(
      await create({ name: 'ssh', rules: [{ direction: 'ingress', protocol: 'tcp', port_range_min: 22, remote_ip_prefix: '10.1.2.3/16' }] }),
    );
    expect(ssh.security_group_rules).toMatchObject([
      { direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '10.1.0.0/16', ethertype: 'IPv4' },
    ]);
  });

  it('refuses bad rules in a create with the field at fault, storing nothing', async () => {
    const count = (await f.req('GET', v1())).json().count;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ direction: 'ingress', protocol: 'tcp', port_range_min: 443, port_range_max: 80 }, ['rules', 0, 'port_range_max']],
      [{ direction: 'ingress', protocol: 'icmp', port_range_min: 300 }, ['rules', 0, 'port_range_min']],
      [{ direction: 'ingress', port_range_min: 80 }, ['rules', 0, 'port_range_min']],
      [{ direction: 'ingress', ethertype: 'IPv6', remote_ip_prefix: '10.0.0.0/8' }, ['rules', 0, 'remote_ip_prefix']],
      [{ direction: 'sideways' }, ['rules', 0, 'direction']],
      [{ direction: 'ingress', protocol: 'any' }, ['rules', 0, 'protocol']],
    ];
    for (const [rule, loc] of cases) {
      const res = await f.req('POST', v2(), { name: 'bad-rules', rules: [rule] });
      expect(res.statusCode, JSON.stringify(rule)).toBe(400);
      expect(res.json().errors[0].loc, JSON.stringify(rule)).toEqual(['body', ...loc]);
    }
    const dup = await f.req('POST', v2(), { name: 'dup-rules', rules: [{ direction: 'egress' }, { direction: 'egress', remote_ip_prefix: '0.0.0.0/0' }] });
    expect(dup.json().errors[0]).toMatchObject({ loc: ['body', 'rules', 1], msg: expect.stringMatching(/repeats/) });
    const unknownRemote = await f.req('POST', v2(), {
      name: 'remote',
      rules: [{ direction: 'ingress', remote_group_id: '00000000-0000-4000-8000-00000000beef' }],
    });
    expect(unknownRemote.statusCode).toBe(400);
    expect((await f.req('GET', v1())).json().count).toBe(count);
  });

  it('updates through a task, no task when nothing changes, rules as the complete new set', async () => {
    const id = await create({ name: 'update-me', rules: [{ direction: 'ingress', protocol: 'tcp', port_range_min: 80 }, { direction: 'egress' }] });
    const noop = await f.req('PATCH', `${v2()}/${id}`, {
      name: 'update-me',
      rules: [{ direction: 'egress' }, { direction: 'ingress', protocol: 'tcp', port_range_min: 80, port_range_max: 80 }],
    });
    expectConforms('PATCH', '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}', noop);
    expect(noop.json()).toEqual({ tasks: [], id });
    const before = await group(id);
    const changed = await f.req('PATCH', `${v2()}/${id}`, {
      name: 'updated',
      description: 'new',
      tags: { team: 'a' },
      rules: [{ direction: 'egress' }, { direction: 'ingress', protocol: 'udp', port_range_min: 53 }],
    });
    expect((await f.finished(changed)).task_type).toBe('update_security_group');
    const after = await group(id);
    expect(after).toMatchObject({ name: 'updated', description: 'new', revision_number: before.revision_number + 1, tags_v2: [{ key: 'team', value: 'a' }] });
    const egress = before.security_group_rules.find((r: any) => r.direction === 'egress');
    expect(after.security_group_rules.map((r: any) => r.id)).toContain(egress.id);
    expect(after.security_group_rules.map((r: any) => r.protocol).sort()).toEqual([null, 'udp']);
  });

  it('adds and removes rules one by one through tasks, refusing a duplicate', async () => {
    const id = await create({ name: 'rules', rules: [] });
    const added = await f.req('POST', `${v2()}/${id}/rules`, {
      direction: 'ingress',
      protocol: 'tcp',
      port_range_min: 443,
      port_range_max: 443,
      description: 'https',
    });
    expectConforms('POST', '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules', added);
    const ruleId = (await f.finished(added)).created_resources.security_group_rules[0];
    expect((await group(id)).security_group_rules).toMatchObject([{ id: ruleId, security_group_id: id, description: 'https' }]);
    const dup = await f.req('POST', `${v2()}/${id}/rules`, { direction: 'ingress', protocol: 'tcp', port_range_min: 443, remote_ip_prefix: '0.0.0.0/0' });
    expect(dup.statusCode).toBe(409);
    expect((await f.req('POST', `${v2()}/${id}/rules`, { direction: 'ingress', protocol: 'tcp', port_range_min: 70000 })).statusCode).toBe(400);
    const removed = await f.req('DELETE', `${v2()}/${id}/rules/${ruleId}`);
    expectConforms('DELETE', '/cloud/v2/security_groups/{project_id}/{region_id}/{group_id}/rules/{rule_id}', removed);
    await f.finished(removed);
    expect((await group(id)).security_group_rules).toEqual([]);
    expect((await f.req('DELETE', `${v2()}/${id}/rules/${ruleId}`)).statusCode).toBe(404);
  });

  it('serves the deprecated v1 calls at once: create, patch, rules, replace, copy, revert, delete', async () => {
    const created = await f.req('POST', v1(), { security_group: { name: 'legacy', security_group_rules: [{ direction: 'ingress', protocol: 'any' }] } });
    expectConforms('POST', '/cloud/v1/securitygroups/{project_id}/{region_id}', created);
    const id = created.json().id;
    expect(created.json().security_group_rules).toMatchObject([{ direction: 'ingress', protocol: null }]);
    const rule = await f.req('POST', `${v1()}/${id}/rules`, { direction: 'egress', protocol: 'tcp', port_range_min: 25 });
    expectConforms('POST', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}/rules', rule);
    const replaced = await f.req('PUT', `/cloud/v1/securitygrouprules/${f.project}/${R}/${rule.json().id}`, {
      direction: 'egress',
      protocol: 'tcp',
      port_range_min: 587,
    });
    expectConforms('PUT', '/cloud/v1/securitygrouprules/{project_id}/{region_id}/{rule_id}', replaced);
    expect(replaced.json()).toMatchObject({ port_range_min: 587, security_group_id: id });
    expect(replaced.json().id).not.toBe(rule.json().id);
    const patched = await f.req('PATCH', `${v1()}/${id}`, {
      name: 'legacy-2',
      changed_rules: [
        { action: 'delete', security_group_rule_id: replaced.json().id },
        { action: 'create', direction: 'egress', protocol: 'udp' },
      ],
    });
    expectConforms('PATCH', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}', patched);
    expect(patched.json().security_group_rules.map((r: any) => `${r.direction}/${r.protocol}`)).toEqual(['egress/udp', 'ingress/null']);
    const copy = await f.req('POST', `${v1()}/${id}/copy`, { name: 'legacy-copy' });
    expectConforms('POST', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}/copy', copy);
    expect(copy.json().security_group_rules).toHaveLength(2);
    expect(copy.json().id).not.toBe(id);
    const reverted = await f.req('POST', `${v1()}/${id}/revert`);
    expectConforms('POST', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}/revert', reverted);
    expect(reverted.json().security_group_rules).toHaveLength(4);
    const ruleGone = await f.req('DELETE', `/cloud/v1/securitygrouprules/${f.project}/${R}/${reverted.json().security_group_rules[0].id}`);
    expect(ruleGone.statusCode).toBe(204);
    expect((await f.req('DELETE', `${v1()}/${copy.json().id}`)).statusCode).toBe(204);
    expect((await f.req('GET', `${v1()}/${copy.json().id}`)).statusCode).toBe(404);
  });

  it("cannot delete a group another group's rule names as its remote group", async () => {
    const target = await create({ name: 'target', rules: [] });
    await create({ name: 'referrer', rules: [{ direction: 'ingress', remote_group_id: target }] });
    const res = await f.req('DELETE', `${v1()}/${target}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/remote group/);
  });
});

describe('groups of instance ports', () => {
  it('puts new ports in the default group, or the groups named; a group in use cannot be deleted', async () => {
    const web = await create({ name: 'ports-web' });
    const def = (await f.req('GET', v1())).json().results.find((g: any) => g.name === 'default');
    const plain = await f.instance('plain-vm');
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${plain}`)).json().security_groups).toEqual([{ name: 'default' }]);
    const named = await f.instance('named-vm', { interfaces: [{ type: 'external', security_groups: [{ id: web }] }] });
    const groups = await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${named}/securitygroups`);
    expectConforms('GET', '/cloud/v1/instances/{project_id}/{region_id}/{instance_id}/securitygroups', groups);
    expect(groups.json()).toEqual({ count: 1, results: [{ id: web, name: 'ports-web' }] });
    const members = await f.req('GET', `${v1()}/${web}/instances`);
    expectConforms('GET', '/cloud/v1/securitygroups/{project_id}/{region_id}/{group_id}/instances', members);
    expect(members.json().results.map((i: any) => i.id)).toEqual([named]);
    const refused = await f.req('DELETE', `${v1()}/${web}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/in use by 1 instance port/);
    const both = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'both-vm',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      security_groups: [{ id: def.id }],
      interfaces: [{ type: 'external', security_groups: [{ id: web }] }],
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors[0].loc).toEqual(['body', 'security_groups']);
    const unknown = await f.req('POST', `/cloud/v2/instances/${f.project}/${R}`, {
      name: 'unknown-vm',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'new-volume', size: 10 }],
      interfaces: [{ type: 'external', security_groups: [{ id: '00000000-0000-4000-8000-00000000cafe' }] }],
    });
    expect(unknown.json().errors[0].loc).toEqual(['body', 'interfaces', 0, 'security_groups']);
  });

  it('adds and removes groups of an instance by name, for every port or one port', async () => {
    await create({ name: 'extra' });
    const id = await f.instance('groups-vm');
    const add = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/addsecuritygroup`, { name: 'extra' });
    expect(add.statusCode).toBe(204);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${id}`)).json().security_groups).toEqual([{ name: 'default' }, { name: 'extra' }]);
    const port = (await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${id}/interfaces`)).json().results[0].port_id;
    const del = await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/delsecuritygroup`, {
      ports_security_group_names: [{ port_id: port, security_group_names: ['default'] }],
    });
    expect(del.statusCode).toBe(204);
    expect((await f.req('GET', `/cloud/v1/instances/${f.project}/${R}/${id}`)).json().security_groups).toEqual([{ name: 'extra' }]);
    expect((await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/addsecuritygroup`, { name: 'no-such-group' })).statusCode).toBe(400);
    expect((await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/delsecuritygroup`, { name: 'default' })).statusCode).toBe(400);
    // Port security cannot be switched off while the port is in a group.
    const off = await f.req('POST', `/cloud/v1/ports/${f.project}/${R}/${port}/disable_port_security`);
    expect(off.statusCode).toBe(409);
    await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/delsecuritygroup`, { name: 'extra' });
    const disabled = await f.req('POST', `/cloud/v1/ports/${f.project}/${R}/${port}/disable_port_security`);
    expectConforms('POST', '/cloud/v1/ports/{project_id}/{region_id}/{port_id}/disable_port_security', disabled);
    expect(disabled.json()).toMatchObject({ port_id: port, port_security_enabled: false });
    expect((await f.req('POST', `/cloud/v1/instances/${f.project}/${R}/${id}/addsecuritygroup`, { name: 'extra' })).statusCode).toBe(409);
    const enabled = await f.req('POST', `/cloud/v1/ports/${f.project}/${R}/${port}/enable_port_security`);
    expect(enabled.json().port_security_enabled).toBe(true);
  });
});

describe('quotas and tenancy', () => {
  it('fails a group over the firewall quota, and hides groups from another client', async () => {
    const usage = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/${R}`)).json().firewall_count_usage;
    expect(usage).toBeGreaterThan(1);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { firewall_count_limit: usage } });
    const over = await f.req('POST', v2(), { name: 'over' });
    const task = await f.task(over.json().tasks[0]);
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(task.error).toMatch(/security groups: requested 1/);
    expect((await f.req('GET', `${v1()}/${over.json().id}`)).statusCode).toBe(404);
    expect((await f.req('POST', v1(), { security_group: { name: 'over-v1' } })).statusCode).toBe(400);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { firewall_count_limit: 50 } });
    const stranger = await f.t.account();
    const mine = (await f.req('GET', v1())).json().results[0].id;
    expect((await f.req('GET', `${v1()}/${mine}`, undefined, stranger)).statusCode).toBe(404);
    expect((await f.req('POST', v2(), { name: 'theirs' }, stranger)).statusCode).toBe(404);
  });
});
