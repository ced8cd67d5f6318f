// A stored CDN resource as the API answers it, and the status it is in on the server clock.
import { DURATIONS_MS } from '../limits.js';
import { RESOURCE_OPTION_NAMES } from '../options/catalogue.js';
import { allOptions, parseOptions } from '../options/states.js';
import type { ResourceRule } from '../resource-rules/schemas.js';
import type { Resource } from './schemas.js';
import { shieldingLocation } from './shielding.js';
import type { ResourceRow } from './store.js';

/**
 * `processed` while a new resource propagates (DURATIONS_MS.resourcePropagation on the server clock),
 * then `active`; `suspended` while `active` is false.
 */
export function statusOf(row: Pick<ResourceRow, 'active' | 'created_at'>, now: number): Resource['status'] {
  if (row.active !== 1) return 'suspended';
  return now < row.created_at + DURATIONS_MS.resourcePropagation ? 'processed' : 'active';
}

export interface Related {
  groupName: string;
  rules: ResourceRule[];
  /** Whether another resource names this one as its primary. */
  hasReserves: boolean;
  now: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toResource(row: ResourceRow, related: Related): Resource {
  const shield = row.shielding_pop === null ? undefined : shieldingLocation(row.shielding_pop);
  return {
    id: row.id,
    cname: row.cname,
    active: row.active === 1,
    enabled: true,
    status: statusOf(row, related.now),
    deleted: false,
    client: row.client_id,
    name: row.name,
    description: row.description,
    created: iso(row.created_at),
    updated: iso(row.updated_at),
    originGroup: row.origin_group_id,
    originGroup_name: related.groupName,
    originProtocol: row.origin_protocol as Resource['originProtocol'],
    secondaryHostnames: JSON.parse(row.secondary_hostnames) as string[],
    shielded: shield !== undefined,
    shield_dc: shield?.datacenter ?? null,
    shield_enabled: shield !== undefined,
    shield_routing_map: null,
    sslEnabled: row.ssl_enabled === 1,
    sslData: row.ssl_data,
    proxy_ssl_enabled: row.proxy_ssl_enabled === 1,
    proxy_ssl_ca: row.proxy_ssl_ca,
    proxy_ssl_data: row.proxy_ssl_data,
    preset_applied: false,
    vp_enabled: false,
    full_custom_enabled: false,
    can_purge_by_urls: true,
    suspend_date: null,
    suspended: false,
    primary_resource: row.primary_resource,
    is_primary: related.hasReserves ? true : row.primary_resource !== null ? false : null,
    waap_domain_id: null,
    rules: related.rules,
    options: allOptions(RESOURCE_OPTION_NAMES, parseOptions(row.options)) as Resource['options'],
  };
}
