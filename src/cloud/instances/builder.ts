// The rows an instance create writes besides the instance: its new volumes (empty, from an image, from
// a snapshot), the existing volumes it takes, its ports and their floating IPs. Every reference is
// checked here, before anything is written: images must exist in the region and fit the flavor and
// disk, snapshots be available, networks and subnets finished, security groups and floating IPs be the
// project's.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import type { Operations } from '../common/operations.js';
import { attrsOf, newRow, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { FloatingIpService } from '../floating-ips/service.js';
import { instanceMisfit, type BootImage } from '../images/fit.js';
import type { ImageService } from '../images/service.js';
import type { NetworkService } from '../networks/service.js';
import { freeAddress, isHostAddress, parseCidr } from '../networks/subnets/cidr.js';
import type { SubnetAttrs } from '../networks/subnets/service.js';
import type { RegionDefinition } from '../regions/catalogue.js';
import type { SecurityGroupService } from '../security-groups/service.js';
import type { SnapshotService } from '../snapshots/service.js';
import type { VolumeAttrs } from '../volumes/attrs.js';
import type { Flavor } from './flavors.js';
import { publicAddress, publicSubnetId } from './public-network.js';
import type { InstanceCreateBody, NewInterface } from './schemas.js';

type Body = Static<typeof InstanceCreateBody>;
type InterfaceInput = Static<typeof NewInterface>;

export interface PortAttrs {
  subnet_id: string;
  subnet_name: string;
  network_name: string;
  ip_address: string;
  external: boolean;
  interface_name: string | null;
  security_group_ids: string[];
  port_security_enabled: boolean;
  /** A reserved fixed IP: it outlives the instance or balancer it is attached to. */
  reserved?: boolean;
  /** A reserved fixed IP shared by instance ports (`connected`) as an allowed address pair. */
  is_vip?: boolean;
  connected?: string[];
}

/** Everything a create writes besides the instance row, and what its task must do with it. */
export interface Plan {
  rows: ResourceRow[];
  /** Existing volumes the instance takes. */
  attach: string[];
  /** Existing floating IPs assigned to its ports: [floating IP, port]. */
  assign: [string, string][];
  /** Reserved fixed IPs its interfaces take, with the security groups of each. */
  reserve: { port_id: string; groups: string[] }[];
  /** The image of the boot volume, when it has one. */
  bootImage: BootImage | null;
  /** The first fixed address (for name templates). */
  firstAddress: string | null;
}

export class InstanceBuilder {
  constructor(
    private readonly ops: Operations,
    private readonly networks: NetworkService,
    private readonly images: ImageService,
    private readonly snapshots: SnapshotService,
    private readonly groups: SecurityGroupService,
    private readonly floatingIps: FloatingIpService,
  ) {}

  async plan(scope: Scope, region: RegionDefinition, flavor: Flavor, body: Body, instanceId: string, now: number): Promise<Plan> {
    const plan: Plan = { rows: [], attach: [], assign: [], reserve: [], bootImage: null, firstAddress: null };
    const bootAt = Math.max(
      0,
      body.volumes.findIndex((v) => 'boot_index' in v && v.boot_index === 0),
    );
    const used = new Set<number>();
    for (const [i, volume] of body.volumes.entries()) {
      const boot = 'boot_index' in volume ? volume.boot_index : undefined;
      if (boot !== undefined && boot >= 0 && used.has(boot))
        throw badInput([bodyField(['volumes', i, 'boot_index'], `boot_index ${boot} is used by another volume`)]);
      if (boot !== undefined && boot >= 0) used.add(boot);
      await this.volume(scope, region, flavor, body, plan, i, i === bootAt, instanceId, now);
    }
    const groups = await this.securityGroups(scope, body);
    for (const [i, itf] of body.interfaces.entries()) await this.port(scope, plan, i, itf, groups[i], instanceId, now);
    // Rows made together keep the order of the request (volumes, then interfaces) when listed.
    plan.rows.forEach((row, i) => Object.assign(row, { created_at: now + i, updated_at: now + i }));
    return plan;
  }

  private async volume(
    scope: Scope,
    region: RegionDefinition,
    flavor: Flavor,
    body: Body,
    plan: Plan,
    i: number,
    root: boolean,
    instanceId: string,
    now: number,
  ): Promise<void> {
    const v = body.volumes[i];
    const at = (field: string) => ['volumes', i, field];
    if (v.source === 'existing-volume') {
      const vol = await this.ops.resources.get('volume', scope, v.volume_id);
      if (!vol || !vol.ready || vol.owner_id || vol.task_id)
        throw badInput([bodyField(at('volume_id'), `volume ${v.volume_id} is not an available volume of this project and region`)]);
      plan.attach.push(v.volume_id);
      return;
    }
    if (v.source === 'apptemplate')
      throw badInput([bodyField(at('apptemplate_id'), `application template ${v.apptemplate_id} is not offered in region ${region.id}`)]);
    let size: number;
    let bootable = false;
    let imageId: string | null = null;
    let type: string = v.type_name ?? 'standard';
    if (v.source === 'image') {
      const image = await this.images.boot(scope, region, v.image_id);
      if (!image) throw badInput([bodyField(at('image_id'), `image ${v.image_id} does not exist in region ${region.id} for project ${scope.projectId}`)]);
      size = v.size ?? Math.max(1, image.min_disk);
      const misfit = root ? instanceMisfit(image, flavor, size) : null;
      if (misfit) throw badInput([bodyField(at(misfit.includes('GiB') ? 'size' : 'image_id'), misfit)]);
      if (root) plan.bootImage = image;
      [bootable, imageId] = [true, image.id];
    } else if (v.source === 'snapshot') {
      const { row, attrs } = await this.snapshots.source(scope, v.snapshot_id, at('snapshot_id'));
      if (v.size !== Number(row.size_gb)) throw badInput([bodyField(at('size'), `must equal the size of snapshot ${row.id} (${row.size_gb} GiB)`)]);
      [size, bootable, imageId, type] = [v.size, attrs.bootable, attrs.image_id, v.type_name ?? attrs.volume_type];
    } else {
      size = v.size;
    }
    if (!region.available_volume_types.includes(type))
      throw badInput([bodyField(at('type_name'), `volume type ${type} is not available in region ${region.id}`)]);
    const attrs: VolumeAttrs = {
      volume_type: type,
      bootable,
      is_root_volume: root,
      delete_on_termination: v.delete_on_termination ?? false,
      tags: v.tags ?? {},
      attached_at: now,
      attachment_tag: v.attachment_tag ?? null,
      image_id: imageId,
    };
    plan.rows.push(
      newRow(scope, 'volume', randomUUID(), v.name ?? `${body.name ?? 'instance'}-volume-${i}`, 'creating', '', attrs, now, {
        owner_id: instanceId,
        size_gb: size,
      }),
    );
  }

  /** The groups of each interface: its own, else the top-level list, else the project's default group. */
  private async securityGroups(scope: Scope, body: Body): Promise<string[][]> {
    const own = body.interfaces.map((itf) => itf.security_groups?.map((g) => g.id));
    if (body.security_groups && own.some((g) => g !== undefined)) {
      throw badInput([bodyField(['security_groups'], 'cannot be combined with security_groups of the interfaces; set them per interface')]);
    }
    const fallback = body.security_groups?.map((g) => g.id) ?? [this.groups.groups.defaultId(scope)];
    const chosen = own.map((g) => g ?? fallback);
    for (const [i, ids] of chosen.entries()) {
      await this.groups.require(scope, ids, own[i] ? ['interfaces', i, 'security_groups'] : ['security_groups']);
    }
    return chosen;
  }

  /** A port with the next free address of its subnet, and the floating IP the interface asks for. */
  private async port(scope: Scope, plan: Plan, i: number, itf: InterfaceInput, groups: string[], instanceId: string, now: number): Promise<void> {
    let port: ResourceRow;
    if (itf.type === 'reserved_fixed_ip') {
      port = await this.reservedPort(scope, itf.port_id, ['interfaces', i, 'port_id']);
      if (plan.reserve.some((r) => r.port_id === port.id))
        throw badInput([bodyField(['interfaces', i, 'port_id'], `reserved fixed IP ${port.id} is taken by an earlier interface`)]);
      plan.reserve.push({ port_id: port.id, groups });
    } else {
      port = await this.portRow(scope, plan.rows, i, itf, groups, instanceId, now);
      plan.rows.push(port);
    }
    plan.firstAddress ??= attrsOf<PortAttrs>(port).ip_address;
    if (!('floating_ip' in itf) || !itf.floating_ip) return;
    if (itf.floating_ip.source === 'new') {
      const address = this.floatingIps.newAddress(now);
      plan.rows.push(
        newRow(scope, 'floatingip', randomUUID(), address, 'ACTIVE', '', { address, tags: {} }, now, { parent_id: port.id, owner_id: instanceId }),
      );
      return;
    }
    const fip = await this.ops.resources.get('floatingip', scope, itf.floating_ip.existing_floating_id);
    if (!fip || !fip.ready)
      throw badInput([
        bodyField(
          ['interfaces', i, 'floating_ip', 'existing_floating_id'],
          `floating IP ${itf.floating_ip.existing_floating_id} does not exist in project ${scope.projectId}, region ${scope.regionId}`,
        ),
      ]);
    if (fip.owner_id || fip.task_id) throw new AppError('conflict', `Floating IP ${fip.id} is already assigned (or busy); unassign it first`);
    plan.assign.push([fip.id, port.id]);
  }

  /** A reserved fixed IP an interface may take: the caller's, finished, free, and not a VIP (VIPs are shared, not attached). */
  async reservedPort(scope: Scope, portId: string, path: (string | number)[]): Promise<ResourceRow> {
    const port = await this.ops.resources.get('port', scope, portId);
    const attrs = port ? attrsOf<PortAttrs>(port) : undefined;
    if (!port || !port.ready || !attrs?.reserved)
      throw badInput([bodyField(path, `${portId} is not a reserved fixed IP of project ${scope.projectId}, region ${scope.regionId}`)]);
    if (attrs.is_vip) throw badInput([bodyField(path, `reserved fixed IP ${portId} is a VIP: connect instance ports to it instead (connected_devices)`)]);
    if (port.owner_id || port.task_id) throw new AppError('conflict', `Reserved fixed IP ${portId} is in use (or busy): free it first`);
    return port;
  }

  /** A port on a finished network and subnet, or on the provider's public network. */
  async portRow(
    scope: Scope,
    pending: ResourceRow[],
    i: number,
    itf: Exclude<InterfaceInput, { type: 'reserved_fixed_ip' }>,
    groups: string[],
    instanceId: string,
    now: number,
    path: (string | number)[] = ['interfaces', i],
  ): Promise<ResourceRow> {
    const base = { interface_name: itf.interface_name ?? null, security_group_ids: groups, port_security_enabled: true };
    if (itf.type === 'external') {
      const attrs: PortAttrs = {
        ...base,
        subnet_id: publicSubnetId(scope.regionId),
        subnet_name: 'external',
        network_name: 'external',
        ip_address: publicAddress(now, i),
        external: true,
      };
      return newRow(scope, 'port', randomUUID(), `port-${i}`, 'ACTIVE', '', attrs, now, { owner_id: instanceId });
    }
    const network = await this.networks.usable(scope, itf.network_id);
    const subnets = (await this.ops.resources.children(network.id, 'subnet')).filter((s) => s.ready && (itf.type === 'any_subnet' || s.id === itf.subnet_id));
    const subnet = subnets[0];
    if (!subnet)
      throw badInput([
        bodyField(
          [...path, itf.type === 'subnet' ? 'subnet_id' : 'network_id'],
          itf.type === 'subnet'
            ? `subnet ${itf.subnet_id} is not a finished subnet of network ${itf.network_id}`
            : `network ${itf.network_id} has no finished subnet`,
        ),
      ]);
    const cidr = parseCidr(attrsOf<SubnetAttrs>(subnet).cidr)!;
    const taken = await this.networks.addressesInUse(network.id);
    for (const p of pending) if (p.kind === 'port' && p.parent_id === network.id) taken.add(attrsOf<PortAttrs>(p).ip_address);
    const wanted = itf.type === 'any_subnet' ? itf.ip_address : undefined;
    const address = wanted ?? freeAddress(cidr, taken);
    if (!address) throw new AppError('conflict', `Subnet ${subnet.id} has no free address left`);
    if (wanted && (taken.has(wanted) || !isHostAddress(cidr, wanted)))
      throw badInput([bodyField([...path, 'ip_address'], `${wanted} is not a free address of subnet ${subnet.id} (${attrsOf<SubnetAttrs>(subnet).cidr})`)]);
    const attrs: PortAttrs = { ...base, subnet_id: subnet.id, subnet_name: subnet.name, network_name: network.name, ip_address: address, external: false };
    return newRow(scope, 'port', randomUUID(), `port-${i}`, 'ACTIVE', '', attrs, now, { parent_id: network.id, owner_id: instanceId });
  }
}
