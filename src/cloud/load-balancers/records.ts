// How load balancers and what they hold are stored: one row each in cloud_resources (status is the
// provisioning status), linked by parent_id (listener and pool -> balancer, member and monitor -> pool,
// L7 policy -> listener, L7 rule -> policy) and owner_id (a pool -> the listener it is the default
// pool of). The row builders turn validated input into rows held by the task that makes them.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { newRow, ResourceStore, type ResourceKind, type ResourceRow, type Scope } from '../common/resource-store.js';
import { canonicalCidrs } from './checks.js';
import type { ListenerProtocol, MonitorType, PoolProtocol } from './enums.js';
import { ListenerInput } from './listener-schemas.js';
import type { MemberInput, MonitorInput, PersistenceInput } from './pool-schemas.js';

export interface Logging {
  enabled: boolean;
  destination_region_id: number | null;
  topic_name: string | null;
  retention_policy: { period: number | null } | null;
}

export interface LbAttrs {
  flavor_id: string;
  vip_address: string;
  vip_port_id: string | null;
  vip_network_id: string | null;
  vip_subnet_id: string | null;
  /** The VIP was a reserved fixed IP given at create: it is released, not deleted, with the balancer. */
  vip_reserved: boolean;
  admin_state_up: boolean;
  preferred_connectivity: 'L2' | 'L3';
  logging: Logging | null;
  tags: Record<string, string>;
}

export interface ListenerAttrs {
  protocol: ListenerProtocol;
  protocol_port: number;
  admin_state_up: boolean;
  allowed_cidrs: string[] | null;
  connection_limit: number;
  insert_x_forwarded: boolean;
  secret_id: string | null;
  sni_secret_id: string[] | null;
  timeout_client_data: number | null;
  timeout_member_connect: number | null;
  timeout_member_data: number | null;
  user_list: { username: string; encrypted_password: string }[];
}

export interface PoolAttrs {
  protocol: PoolProtocol;
  lb_algorithm: string;
  admin_state_up: boolean;
  session_persistence: Static<typeof PersistenceInput> | null;
  timeout_client_data: number | null;
  timeout_member_connect: number | null;
  timeout_member_data: number | null;
  secret_id: string | null;
  ca_secret_id: string | null;
  crl_secret_id: string | null;
}

export interface MemberAttrs {
  address: string;
  protocol_port: number;
  subnet_id: string | null;
  instance_id: string | null;
  weight: number;
  admin_state_up: boolean;
  backup: boolean;
  monitor_address: string | null;
  monitor_port: number | null;
}

export interface MonitorAttrs {
  type: MonitorType;
  delay: number;
  timeout: number;
  max_retries: number;
  max_retries_down: number;
  admin_state_up: boolean;
  domain_name: string | null;
  expected_codes: string | null;
  http_method: string | null;
  http_version: string | null;
  url_path: string | null;
}

/** The connection limit the provider stores for -1 ("the default"). */
const DEFAULT_CONNECTION_LIMIT = 100_000;

export function listenerAttrs(l: Static<typeof ListenerInput>): ListenerAttrs {
  return {
    protocol: l.protocol,
    protocol_port: l.protocol_port,
    admin_state_up: true,
    allowed_cidrs: canonicalCidrs(l.allowed_cidrs),
    connection_limit: l.connection_limit === undefined || l.connection_limit === -1 ? DEFAULT_CONNECTION_LIMIT : l.connection_limit,
    insert_x_forwarded: l.insert_x_forwarded ?? false,
    secret_id: l.secret_id || null,
    sni_secret_id: l.sni_secret_id ?? null,
    timeout_client_data: l.timeout_client_data ?? null,
    timeout_member_connect: l.timeout_member_connect ?? null,
    timeout_member_data: l.timeout_member_data ?? null,
    user_list: l.user_list ?? [],
  };
}

interface PoolInputFields {
  protocol: PoolProtocol;
  lb_algorithm: string;
  session_persistence?: Static<typeof PersistenceInput> | null;
  timeout_client_data?: number | null;
  timeout_member_connect?: number | null;
  timeout_member_data?: number | null;
  secret_id?: string | null;
  ca_secret_id?: string | null;
  crl_secret_id?: string | null;
}

export function poolAttrs(p: PoolInputFields): PoolAttrs {
  return {
    protocol: p.protocol,
    lb_algorithm: p.lb_algorithm,
    admin_state_up: true,
    session_persistence: p.session_persistence ?? null,
    timeout_client_data: p.timeout_client_data ?? null,
    timeout_member_connect: p.timeout_member_connect ?? null,
    timeout_member_data: p.timeout_member_data ?? null,
    secret_id: p.secret_id ?? null,
    ca_secret_id: p.ca_secret_id ?? null,
    crl_secret_id: p.crl_secret_id ?? null,
  };
}

export function memberAttrs(m: Static<typeof MemberInput>, subnetId: string | null): MemberAttrs {
  return {
    address: m.address,
    protocol_port: m.protocol_port,
    subnet_id: subnetId,
    instance_id: m.instance_id ?? null,
    weight: m.weight ?? 1,
    admin_state_up: m.admin_state_up ?? true,
    backup: m.backup ?? false,
    monitor_address: m.monitor_address ?? null,
    monitor_port: m.monitor_port ?? null,
  };
}

export function monitorAttrs(m: Static<typeof MonitorInput>): MonitorAttrs {
  return {
    type: m.type,
    delay: m.delay,
    timeout: m.timeout,
    max_retries: m.max_retries,
    max_retries_down: m.max_retries_down ?? 3,
    admin_state_up: m.admin_state_up ?? true,
    domain_name: m.domain_name ?? null,
    expected_codes: m.expected_codes ?? null,
    http_method: m.http_method ?? null,
    http_version: m.http_version ?? null,
    url_path: m.url_path ?? null,
  };
}

/** A new child row, waiting for its task (`PENDING_CREATE`, not ready); the task ID is filled in when it is written. */
export function pendingChild(scope: Scope, kind: ResourceKind, name: string, attrs: unknown, now: number, links: Partial<ResourceRow>): ResourceRow {
  return newRow(scope, kind, randomUUID(), name, 'PENDING_CREATE', '', attrs, now, links);
}

/** Every row below a balancer: listeners, pools, members, monitors, L7 policies and rules. */
export async function descendants(store: ResourceStore, lbId: string): Promise<ResourceRow[]> {
  const listeners = await store.children(lbId, 'lb_listener');
  const pools = await store.children(lbId, 'lb_pool');
  const policies = (await Promise.all(listeners.map((l) => store.children(l.id, 'l7policy')))).flat();
  return [...listeners, ...pools, ...policies, ...(await below(store, [...pools, ...policies]))];
}

/** The members and monitors of pools, the rules of policies. */
export async function below(store: ResourceStore, rows: ResourceRow[]): Promise<ResourceRow[]> {
  return (await Promise.all(rows.map((r) => store.children(r.id)))).flat();
}
