// The security groups of an instance's ports: added and removed by name, for every port or port by
// port, at once (the reference answers these calls with no task).
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { attrsOf, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import { groupsOf, joinGroup, leaveGroup, type SecurityGroupService } from '../security-groups/service.js';
import type { PortAttrs } from './builder.js';
import type { SecurityGroupNamesBody } from './schemas.js';

type Body = Static<typeof SecurityGroupNamesBody>;

export class InstanceGroups {
  constructor(
    private readonly ops: Operations,
    private readonly groups: SecurityGroupService,
  ) {}

  async list(caller: Caller, projectId: number, regionId: number, instanceId: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const ports = await this.ports(scope, instanceId);
    const ids = [...new Set(ports.flatMap(groupsOf))];
    const rows = (await Promise.all(ids.map((id) => this.ops.resources.byId(id)))).filter((r): r is ResourceRow => r !== undefined);
    return { count: rows.length, results: rows.map((r) => ({ id: r.id, name: r.name })) };
  }

  async add(caller: Caller, projectId: number, regionId: number, instanceId: string, body: Body): Promise<void> {
    await this.change(caller, projectId, regionId, instanceId, body, 'add');
  }

  async remove(caller: Caller, projectId: number, regionId: number, instanceId: string, body: Body): Promise<void> {
    await this.change(caller, projectId, regionId, instanceId, body, 'remove');
  }

  private async change(caller: Caller, projectId: number, regionId: number, instanceId: string, body: Body, how: 'add' | 'remove'): Promise<void> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const ports = await this.ports(scope, instanceId);
    const instance = (await this.ops.resources.get('instance', scope, instanceId))!;
    if (instance.task_id) throw new AppError('conflict', `Instance ${instanceId} is busy with task ${instance.task_id}; wait for it to finish`);
    const changes = await this.changes(scope, ports, body);
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      const store = new ResourceStore(trx);
      for (const { port, group } of changes) {
        const fresh = (await store.byId(port.id))!;
        if (how === 'add') {
          if (attrsOf<PortAttrs>(fresh).port_security_enabled === false)
            throw new AppError('conflict', `Port ${port.id} has port security disabled; enable it before adding security groups`);
          await joinGroup(store, fresh, group.id, now);
        } else {
          if (!groupsOf(fresh).includes(group.id)) throw badInput([bodyField([], `port ${port.id} is not in security group ${group.name}`)]);
          await leaveGroup(store, fresh, group.id, now);
        }
      }
    });
  }

  /** Which group goes to (or from) which port: `name` means every port; a null port_id too. */
  private async changes(scope: Scope, ports: ResourceRow[], body: Body): Promise<{ port: ResourceRow; group: ResourceRow }[]> {
    if (body.name === undefined && body.ports_security_group_names === undefined)
      throw badInput([bodyField(['name'], 'name or ports_security_group_names is required', 'missing')]);
    const out: { port: ResourceRow; group: ResourceRow }[] = [];
    if (body.name !== undefined) {
      const [group] = await this.groups.byNames(scope, [body.name], ['name']);
      out.push(...ports.map((port) => ({ port, group })));
    }
    for (const [i, entry] of (body.ports_security_group_names ?? []).entries()) {
      const targets = entry.port_id === null ? ports : ports.filter((p) => p.id === entry.port_id);
      if (targets.length === 0)
        throw badInput([bodyField(['ports_security_group_names', i, 'port_id'], `port ${entry.port_id} is not an interface of the instance`)]);
      const groups = await this.groups.byNames(scope, entry.security_group_names, ['ports_security_group_names', i, 'security_group_names']);
      for (const port of targets) out.push(...groups.map((group) => ({ port, group })));
    }
    return out;
  }

  private async ports(scope: Scope, instanceId: string): Promise<ResourceRow[]> {
    if (!(await this.ops.resources.get('instance', scope, instanceId))) throw notFound(`Instance ${instanceId}`);
    return (await this.ops.resources.attachedTo(instanceId, 'port')).filter((p) => p.ready);
  }
}
