// Lookups and delegation checks. Edgeplane works offline: whatever resolver a lookup names, the answer
// comes from the zones hosted here (the same answers the DNS listener gives), and a name outside them
// has no records. The registry a delegation check asks is the parent zone when it is hosted here;
// otherwise a zone counts as delegated to its own apex NS records.
import { isIP } from 'node:net';
import type { Principal } from '../../platform/auth/principal.js';
import { badRequest } from '../common/http.js';
import { parentOf, recordName, selfAndAncestors } from '../common/names.js';
import { PLATFORM_NAME_SERVERS } from '../common/platform.js';
import { presentation } from '../rrsets/content.js';
import type { Resolver, Rr } from '../resolver/resolve.js';
import type { AuthorityStore } from '../resolver/store.js';
import type { ZoneStore } from '../zones/store.js';

export interface LookupRecord {
  name: string;
  type: string;
  ttl: number;
  content: string[];
}

export interface NameServer {
  name: string;
  ipv4Addresses: string[];
  ipv6Addresses: string[];
}

/** The reverse-lookup name of an address (in-addr.arpa or ip6.arpa). */
export function reverseName(address: string): string {
  if (isIP(address) === 4) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  const full = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head, tail = ''] = full.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  const missing = 8 - groups(head).length - groups(tail).length;
  const hex = [...groups(head), ...Array(full.includes('::') ? missing : 0).fill('0'), ...groups(tail)].map((g) => g.padStart(4, '0')).join('');
  return `${hex.split('').reverse().join('.')}.ip6.arpa`;
}

function rrText(rr: Rr): string {
  if (rr.type === 'SOA') return `${rr.soa.mname} ${rr.soa.rname} ${rr.soa.serial} ${rr.soa.refresh} ${rr.soa.retry} ${rr.soa.expire} ${rr.soa.minimum}`;
  if (rr.type === 'DNSKEY') return `${rr.key.flags} 3 ${rr.key.algorithm} ${rr.key.publicKey.toString('base64')}`;
  return presentation(rr.type, rr.parts);
}

function lookupName(text: string | undefined): string {
  if (!text) throw badRequest('name is required: a domain name or an IP address');
  if (isIP(text) && !text.includes('%')) return reverseName(text);
  const check = recordName(text);
  if ('problem' in check) throw badRequest(`name "${text}" ${check.problem}`);
  return check.name;
}

export class LookupService {
  constructor(
    private readonly resolver: Resolver,
    private readonly authority: AuthorityStore,
    private readonly zones: ZoneStore,
  ) {}

  /** Every RRset at the name, one entry per set with each record's data as a zone file writes it. */
  async lookup(name: string | undefined): Promise<LookupRecord[]> {
    const { rrs } = await this.resolver.recordsAt(lookupName(name));
    const sets = new Map<string, LookupRecord>();
    for (const rr of rrs) {
      const key = `${rr.name} ${rr.type}`;
      let set = sets.get(key);
      if (!set) sets.set(key, (set = { name: rr.name, type: rr.type, ttl: rr.ttl, content: [] }));
      set.content.push(rrText(rr));
    }
    return [...sets.values()];
  }

  async delegation(
    principal: Principal,
    name: string,
  ): Promise<{
    zone_exists: boolean;
    authoritative_name_servers: NameServer[];
    gcore_authorized_count: number;
    non_gcore_authorized_count: number;
    is_whitelabel_delegation: boolean;
  }> {
    const check = recordName(name);
    if ('problem' in check) throw badRequest(`name "${name}" ${check.problem}`);
    const zoneName = check.name;
    const zoneExists = (await this.zones.find(principal.clientId, zoneName)) !== undefined;
    const hosts = await this.delegatedTo(zoneName);
    const servers = await Promise.all(hosts.map((host) => this.nameServer(host)));
    const platform = servers.filter((s) => (PLATFORM_NAME_SERVERS as readonly string[]).includes(s.name)).length;
    return {
      zone_exists: zoneExists,
      authoritative_name_servers: servers,
      gcore_authorized_count: platform,
      non_gcore_authorized_count: servers.length - platform,
      is_whitelabel_delegation: false,
    };
  }

  /** The name servers the name is delegated to: the parent's NS records for it, or its own apex NS. */
  private async delegatedTo(name: string): Promise<string[]> {
    const parent = await this.authority.zoneFor(selfAndAncestors(parentOf(name)).filter(Boolean));
    const source = parent && parent.enabled === 1 ? (await this.authority.rrsetsAt(parent.id, [name])).find((s) => s.type === 'NS') : undefined;
    if (source) return source.records.map((r) => String(r.content[0]).toLowerCase().replace(/\.$/, ''));
    if (parent?.enabled === 1) return [];
    const own = await this.resolver.resolve(name, 'NS');
    return own.answers
      .filter((rr) => rr.type === 'NS' && rr.name === name)
      .map((rr) =>
        String((rr as { parts: unknown[] }).parts[0])
          .toLowerCase()
          .replace(/\.$/, ''),
      );
  }

  private async nameServer(host: string): Promise<NameServer> {
    const addresses = async (type: 'A' | 'AAAA') =>
      (await this.resolver.resolve(host, type)).answers.filter((rr) => rr.type === type).map((rr) => String((rr as { parts: unknown[] }).parts[0]));
    return { name: host, ipv4Addresses: await addresses('A'), ipv6Addresses: await addresses('AAAA') };
  }
}
