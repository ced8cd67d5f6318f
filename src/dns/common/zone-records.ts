// The records every zone has without anyone creating them: its SOA, made from the zone's own fields, and
// the platform's name servers at the apex (until the client sets an NS RRset there). The API's zone
// view, the zone file export and the DNS listener all show these same records.
import { absolute } from './names.js';
import { mailboxName, NS_TTL, PLATFORM_NAME_SERVERS } from './platform.js';

export interface SoaFields {
  name: string;
  primary_server: string;
  contact: string;
  serial: number;
  refresh: number;
  retry: number;
  expiry: number;
  nx_ttl: number;
}

export interface SoaData {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** The SOA's data; its TTL is the zone's nx_ttl, so negative answers are cached for nx_ttl (RFC 2308). */
export function soaData(zone: SoaFields): SoaData {
  return {
    mname: absolute(zone.primary_server),
    rname: absolute(mailboxName(zone.contact)),
    serial: zone.serial,
    refresh: zone.refresh,
    retry: zone.retry,
    expire: zone.expiry,
    minimum: zone.nx_ttl,
  };
}

export function soaText(zone: SoaFields): string {
  const soa = soaData(zone);
  return `${soa.mname} ${soa.rname} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
}

/** The platform's NS records, as content parts, with their TTL. */
export const DEFAULT_NS = { ttl: NS_TTL, hosts: PLATFORM_NAME_SERVERS.map((host) => `${host}.`) };
