// Reserved fixed IPs: ports with an address the project keeps. Made through a task that takes the
// address (the subnet's first free one, or the one asked for: a subnet with none left fails the task),
// from the public network, or by reserving an instance's port. An instance takes one as an interface and
// lets go of it when it goes; a balancer takes one as its VIP. A VIP reserved IP is shared instead: its
// connected devices are instance ports on its network. In use, it cannot be deleted.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound, type FieldError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { PortAttrs } from '../instances/builder.js';
import { publicNetwork } from '../instances/interfaces.js';
import { publicAddress, publicSubnetId } from '../instances/public-network.js';
import type { NetworkService } from '../networks/service.js';
import { isHostAddress, parseCidr } from '../networks/subnets/cidr.js';
import type { SubnetAttrs, SubnetService } from '../networks/subnets/service.js';
import type { DevicePortSchema, ReservedIpCreateBody, ReservedIpListQuery, ReservedIpSchema, ReserveType } from './schemas.js';

type Body = Static<typeof ReservedIpCreateBody>;
type ReservedIp = Static<typeof ReservedIpSchema>;
type DevicePort = Static<typeof DevicePortSchema>;

/** What each type needs, and what it does not take. */
const FIELDS: Record<ReserveType, { needs: (keyof Body)[]; takes: (keyof Body)[] }> = {
  external: { needs: [], takes: ['ip_family', 'is_vip'] },
  subnet: { needs: ['subnet_id'], takes: ['is_vip'] },
  any_subnet: { needs: ['network_id'], takes: ['ip_family', 'is_vip'] },
  ip_address: { needs: ['network_id', 'ip_address'], takes: ['is_vip'] },
  port: { needs: ['port_id'], takes: [] },
};
const SPECIFIC: (keyof Body)[] = ['subnet_id', 'network_id', 'ip_address', 'port_id', 'ip_family', 'is_vip'];

/** The row a create writes, and what its task must do to finish it. */
interface Reservation {
  row: ResourceRow | null;
  data: Record<string, unknown>;
}

export class ReservedIpService {
  readonly records: RegionalRecords;

  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly subnets: SubnetService,
  ) {
    this.records = new RegionalRecords(ops, 'port', 'Reserved fixed IP');
  }

  async create(caller: Caller, projectId: number, regionId: number, body: Body): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    checkFields(body);
    const id = randomUUID();
    const now = this.ops.clock.now();
    const { row, data } = await this.reservation(scope, body, id, now);
    const portId = row?.id ?? body.port_id!;
    const task = await this.ops.submit(caller, scope, 'create_reserved_fixed_ip', { port_id: portId, ...data }, async (trx, taskId) => {
      const store = new ResourceStore(trx);
      if (row) await store.insert({ ...row, creator_task_id: taskId, task_id: taskId });
      else await store.update(portId, { task_id: taskId });
    });
    return { tasks: [task], id: portId };
  }

  /** The new port (its address left to the task, unless asked for), or the instance port to reserve. */
  private async reservation(scope: Scope, body: Body, id: string, now: number): Promise<Reservation> {
    const base = {
      interface_name: null,
      security_group_ids: [] as string[],
      port_security_enabled: true,
      reserved: true,
      is_vip: body.is_vip ?? false,
      connected: [] as string[],
    };
    const row = (attrs: PortAttrs, networkId: string | null) =>
      newRow(scope, 'port', id, `reserved-${id.slice(0, 8)}`, 'ACTIVE', '', attrs, now, { parent_id: networkId });
    if (body.type === 'port') return { row: null, data: { convert: true, ...(await this.instancePort(scope, body.port_id!)) } };
    if (body.type === 'external') {
      const attrs = {
        ...base,
        subnet_id: publicSubnetId(scope.regionId),
        subnet_name: 'external',
        network_name: 'external',
        ip_address: publicAddress(now, 0),
        external: true,
      };
      return { row: row(attrs, null), data: { external: true } };
    }
    if (body.type === 'subnet') {
      const subnet = await this.ops.resources.get('subnet', scope, body.subnet_id!);
      if (!subnet || !subnet.ready || subnet.status === 'deleting')
        throw badInput([bodyField(['subnet_id'], `subnet ${body.subnet_id} is not a finished subnet of project ${scope.projectId}, region ${scope.regionId}`)]);
      const network = await this.networks.usable(scope, subnet.parent_id!);
      return {
        row: row({ ...base, subnet_id: subnet.id, subnet_name: subnet.name, network_name: network.name, ip_address: '', external: false }, network.id),
        data: { subnet_ids: [subnet.id] },
      };
    }
    const network = await this.networks.usable(scope, body.network_id!, undefined, ['network_id']);
    const subnets = (await this.ops.resources.children(network.id, 'subnet')).filter((s) => s.ready && s.status !== 'deleting');
    if (subnets.length === 0) throw badInput([bodyField(['network_id'], `network ${network.id} has no finished subnet`)]);
    if (body.type === 'any_subnet') {
      return {
        row: row({ ...base, subnet_id: subnets[0].id, subnet_name: subnets[0].name, network_name: network.name, ip_address: '', external: false }, network.id),
        data: { subnet_ids: subnets.map((s) => s.id) },
      };
    }
    const home = subnets.find((s) => isHostAddress(parseCidr(attrsOf<SubnetAttrs>(s).cidr)!, body.ip_address!));
    if (!home) throw badInput([bodyField(['ip_address'], `${body.ip_address} is not a host address of a subnet of network ${network.id}`)]);
    if ((await this.networks.addressesInUse(network.id)).has(body.ip_address!))
      throw new AppError('conflict', `${body.ip_address} is taken on network ${network.id}`);
    return {
      row: row({ ...base, subnet_id: home.id, subnet_name: home.name, network_name: network.name, ip_address: body.ip_address!, external: false }, network.id),
      data: { ip_address: body.ip_address },
    };
  }

  /** An instance port to reserve: the caller's, finished, free of tasks, not reserved yet. */
  private async instancePort(scope: Scope, portId: string): Promise<Record<string, unknown>> {
    const port = await this.ops.resources.get('port', scope, portId);
    const owner = port?.owner_id ? await this.ops.resources.byId(port.owner_id) : undefined;
    if (!port || !port.ready || owner?.kind !== 'instance')
      throw badInput([bodyField(['port_id'], `${portId} is not an instance port of project ${scope.projectId}, region ${scope.regionId}`)]);
    if (attrsOf<PortAttrs>(port).reserved) throw new AppError('conflict', `Port ${portId} is a reserved fixed IP already`);
    this.records.requireIdle(port);
    return {};
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof ReservedIpListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = (await this.ops.resources.all('port', scope)).filter((r) => {
      const a = attrsOf<PortAttrs>(r);
      return (
        a.reserved &&
        (!query.available_only || !r.owner_id) &&
        (query.device_id === undefined || r.owner_id === query.device_id) &&
        (!query.external_only || a.external) &&
        (!query.internal_only || !a.external) &&
        (!query.vip_only || a.is_vip) &&
        (query.ip_address === undefined || a.ip_address === query.ip_address)
      );
    });
    const shown = await Promise.all(rows.map((r) => this.present(r)));
    sortReserved(shown, query.order_by ?? 'created_at.asc');
    return pageOf(shown, query);
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string): Promise<ReservedIp> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.present(await this.row(scope, id));
  }

  /** Makes the address a VIP or not, at once: a VIP is shared, so not while an instance has it; back to plain, not while shared. */
  async update(caller: Caller, projectId: number, regionId: number, id: string, body: { is_vip: boolean }): Promise<ReservedIp> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.row(scope, id);
    this.records.requireIdle(row);
    const a = attrsOf<PortAttrs>(row);
    const owner = row.owner_id ? await this.ops.resources.byId(row.owner_id) : undefined;
    if (body.is_vip && owner?.kind === 'instance')
      throw new AppError('conflict', `Reserved fixed IP ${id} is an interface of instance ${owner.id}; detach it before making it a VIP`);
    if (!body.is_vip && (await this.connectedPorts(scope, a)).length > 0)
      throw new AppError('conflict', `Reserved fixed IP ${id} is shared with ${a.connected!.length} port(s); disconnect them first`);
    await this.ops.resources.update(id, {
      attrs: JSON.stringify({ ...a, is_vip: body.is_vip, connected: body.is_vip ? (a.connected ?? []) : [] }),
      updated_at: this.ops.clock.now(),
    });
    return this.present(await this.row(scope, id));
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const row = await this.row(scope, id);
    this.records.requireIdle(row);
    if (row.owner_id) {
      const owner = await this.ops.resources.byId(row.owner_id);
      throw new AppError(
        'conflict',
        `Reserved fixed IP ${id} is in use by ${owner?.kind === 'loadbalancer' ? 'load balancer' : 'instance'} ${row.owner_id}; free it first`,
      );
    }
    const shared = await this.connectedPorts(scope, attrsOf<PortAttrs>(row));
    if (shared.length > 0)
      throw new AppError('conflict', `Reserved fixed IP ${id} is shared with port(s) ${shared.map((p) => p.id).join(', ')}; disconnect them first`);
    return this.records.startTask(caller, scope, row, 'delete_reserved_fixed_ip', { port_id: id });
  }

  /** Instance ports on the VIP's network it is not shared with yet. */
  async candidates(caller: Caller, projectId: number, regionId: number, id: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const vip = await this.vip(scope, id);
    const connected = new Set(attrsOf<PortAttrs>(vip).connected ?? []);
    const ports = (await this.instancePorts(scope, vip.parent_id)).filter((p) => !connected.has(p.id));
    return this.devices(ports);
  }

  async connected(caller: Caller, projectId: number, regionId: number, id: string) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.devices(await this.connectedPorts(scope, attrsOf<PortAttrs>(await this.vip(scope, id))));
  }

  /** Shares the VIP with more ports (`add`), or with exactly these: instance ports on its network. */
  async connect(caller: Caller, projectId: number, regionId: number, id: string, portIds: string[], add: boolean) {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const vip = await this.vip(scope, id);
    this.records.requireIdle(vip);
    const eligible = new Set((await this.instancePorts(scope, vip.parent_id)).map((p) => p.id));
    const wrong: FieldError[] = portIds.flatMap((p, i) =>
      eligible.has(p) ? [] : [bodyField(['port_ids', i], `${p} is not an instance port on network ${vip.parent_id} of the VIP`)],
    );
    if (wrong.length > 0) throw badInput(wrong);
    const a = attrsOf<PortAttrs>(vip);
    const current = (await this.connectedPorts(scope, a)).map((p) => p.id);
    const connected = [...new Set([...(add ? current : []), ...portIds])];
    await this.ops.resources.update(id, { attrs: JSON.stringify({ ...a, connected }), updated_at: this.ops.clock.now() });
    return this.connected(caller, projectId, regionId, id);
  }

  /** The caller's reserved fixed IP, or a 404 (a port that is not reserved is not one). */
  private async row(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.records.row(scope, id);
    if (!attrsOf<PortAttrs>(row).reserved) throw notFound(`Reserved fixed IP ${id}`);
    return row;
  }

  private async vip(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.row(scope, id);
    if (!attrsOf<PortAttrs>(row).is_vip) throw new AppError('conflict', `Reserved fixed IP ${id} is not a VIP; make it one first (is_vip)`);
    return row;
  }

  /** Finished instance ports on a network (the public one when `networkId` is null). */
  private async instancePorts(scope: Scope, networkId: string | null): Promise<ResourceRow[]> {
    const instances = new Set((await this.ops.resources.all('instance', scope)).map((i) => i.id));
    return (await this.ops.resources.all('port', scope)).filter(
      (p) => p.ready && p.parent_id === networkId && p.owner_id !== null && instances.has(p.owner_id),
    );
  }

  /** The ports a VIP is shared with that still exist (an instance's delete takes its ports). */
  private async connectedPorts(scope: Scope, a: PortAttrs): Promise<ResourceRow[]> {
    const rows = await Promise.all((a.connected ?? []).map((p) => this.ops.resources.get('port', scope, p)));
    return rows.filter((r): r is ResourceRow => r !== undefined);
  }

  private async devices(ports: ResourceRow[]): Promise<{ count: number; results: DevicePort[] }> {
    const results = await Promise.all(
      ports.map(async (port) => {
        const a = attrsOf<PortAttrs>(port);
        const [instance, network, subnet] = await Promise.all([port.owner_id!, port.parent_id!, a.subnet_id].map((id) => this.ops.resources.byId(id)));
        return {
          port_id: port.id,
          instance_id: instance!.id,
          instance_name: instance!.name,
          ip_assignments: [{ ip_address: a.ip_address, subnet_id: a.subnet_id, subnet: await this.subnets.present(subnet!) }],
          network: await this.networks.present(network!),
        };
      }),
    );
    return { count: results.length, results };
  }

  async present(row: ResourceRow): Promise<ReservedIp> {
    const a = attrsOf<PortAttrs>(row);
    const owner = row.owner_id ? await this.ops.resources.byId(row.owner_id) : undefined;
    const network = row.parent_id
      ? await this.networks.present((await this.ops.resources.byId(row.parent_id))!)
      : { ...publicNetwork(Number(row.region_id), this.ops.regions.name(Number(row.region_id)), row.created_at), subnets: [] };
    const device = owner ? { resource_id: owner.id, resource_type: owner.kind } : null;
    return {
      port_id: row.id,
      name: row.name,
      network_id: network.id,
      subnet_id: a.external ? null : a.subnet_id,
      subnet_v6_id: null,
      fixed_ip_address: a.ip_address || null,
      fixed_ipv6_address: null,
      is_external: a.external,
      is_vip: a.is_vip ?? false,
      status: !row.ready ? 'BUILD' : owner ? 'ACTIVE' : 'DOWN',
      attachments: device ? [device] : [],
      reservation: { resource_id: device?.resource_id ?? null, resource_type: device?.resource_type ?? null, status: device ? 'attached' : 'available' },
      allowed_address_pairs: [],
      network,
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }
}

/** Each type's fields: the ones it needs given, the others absent. */
function checkFields(body: Body): void {
  const rule = FIELDS[body.type];
  const missing = rule.needs.filter((f) => body[f] === undefined).map((f) => bodyField([f], `a ${body.type} reservation needs ${f}`, 'missing'));
  const extra = SPECIFIC.filter(
    (f) => body[f] !== undefined && body[f] !== null && body[f] !== false && !rule.needs.includes(f) && !rule.takes.includes(f),
  ).map((f) => bodyField([f], `a ${body.type} reservation takes no ${f}`));
  const family = body.ip_family === 'ipv6' || body.ip_family === 'dual' ? [bodyField(['ip_family'], 'subnets here are IPv4 only: use ipv4')] : [];
  const fields = [...missing, ...extra, ...family];
  if (fields.length > 0) throw badInput(fields);
}

function sortReserved(items: ReservedIp[], orderBy: string): void {
  const [field, dir] = orderBy.split('.');
  const sign = dir === 'desc' ? -1 : 1;
  const address = (x: string | null) => (x ?? '').split('.').reduce((acc, o) => acc * 256 + Number(o || 0), 0);
  items.sort(
    (a, b) =>
      (field === 'fixed_ip_address'
        ? address(a.fixed_ip_address) - address(b.fixed_ip_address)
        : String(a[field as keyof ReservedIp]).localeCompare(String(b[field as keyof ReservedIp]))) * sign || a.port_id.localeCompare(b.port_id),
  );
}
