// Authoritative answers from the hosted zones (RFC 1034 4.3.2, RFC 4592 for wildcards): the zone with
// the longest name holding the query name answers; a disabled zone, or a name in no zone, is REFUSED.
// Inside the zone: a delegation below the apex is a referral; the records of the name, a CNAME chain
// within the zone, NODATA or NXDOMAIN with the zone's SOA. The apex always has its SOA, the platform's
// NS unless the client set its own, and a DNSKEY while a DNSSEC key is published.
import { parentOf, selfAndAncestors } from '../common/names.js';
import { DEFAULT_NS, type SoaData, soaData } from '../common/zone-records.js';
import type { RRsetType } from '../rrsets/content.js';
import { applyPickers, type Client, type PickerSpec } from './pickers.js';
import type { AuthorityRRset, AuthorityStore, AuthorityZone } from './store.js';

export const DNSKEY_TTL = 3600;
const MAX_CHAIN = 8;

export type Rr =
  | { name: string; ttl: number; type: Exclude<RRsetType, 'SOA'>; parts: unknown[] }
  | { name: string; ttl: number; type: 'SOA'; soa: SoaData }
  | { name: string; ttl: number; type: 'DNSKEY'; key: { flags: number; algorithm: number; publicKey: Buffer } };

export interface Resolution {
  rcode: 'NOERROR' | 'NXDOMAIN' | 'REFUSED';
  authoritative: boolean;
  answers: Rr[];
  authorities: Rr[];
  additionals: Rr[];
  /** The zone that answered (counted in its statistics). */
  zone?: AuthorityZone;
}

const refused = (): Resolution => ({ rcode: 'REFUSED', authoritative: false, answers: [], authorities: [], additionals: [] });

function soaRr(zone: AuthorityZone): Rr {
  return { name: zone.name, ttl: zone.nx_ttl, type: 'SOA', soa: soaData(zone) };
}

/** The records of one RRset as answer entries, owned by `owner` (the query name for a wildcard). */
function rrsOf(set: AuthorityRRset, owner: string, client: Client): Rr[] {
  const records = set.pickers.length > 0 ? applyPickers(set.pickers as PickerSpec[], set.records, client) : set.records;
  return records.map((r) => ({ name: owner, ttl: set.ttl, type: set.type as Exclude<RRsetType, 'SOA'>, parts: r.content }));
}

/** Names strictly between the apex and `name`, nearest the apex first. */
function namesBelowApex(name: string, apex: string): string[] {
  return selfAndAncestors(name)
    .filter((n) => n !== apex && n.endsWith(`.${apex}`))
    .reverse();
}

export class Resolver {
  constructor(private readonly store: AuthorityStore) {}

  async resolve(qname: string, qtype: string, client: Client = {}): Promise<Resolution> {
    const name = qname.toLowerCase().replace(/\.$/, '');
    const zone = await this.store.zoneFor(selfAndAncestors(name));
    if (!zone || zone.enabled !== 1) return refused();
    const result: Resolution = { rcode: 'NOERROR', authoritative: true, answers: [], authorities: [], additionals: [], zone };
    let current = name;
    for (let hop = 0; hop < MAX_CHAIN; hop++) {
      const next = await this.step(zone, current, qtype, client, result);
      if (!next) return result;
      current = next;
    }
    return result;
  }

  /** The RRsets a name has (what a lookup lists): the apex's own records included, wildcards applied. */
  async recordsAt(qname: string): Promise<{ zone?: AuthorityZone; rrs: Rr[] }> {
    const resolution = await this.resolve(qname, 'ANY');
    return { zone: resolution.zone, rrs: resolution.answers };
  }

  /** Answers one name of a chain; returns the next name when a CNAME leads elsewhere in the zone. */
  private async step(zone: AuthorityZone, name: string, qtype: string, client: Client, result: Resolution): Promise<string | undefined> {
    const below = namesBelowApex(name, zone.name);
    const wildcards = [zone.name, ...below.slice(0, -1)].map((n) => `*.${n}`);
    const sets = await this.store.rrsetsAt(zone.id, [name, zone.name, ...below, ...wildcards]);
    const cut = below.find((n) => sets.some((s) => s.name === n && s.type === 'NS'));
    if (cut && !(cut === name && qtype === 'DS')) return this.referral(zone, cut, sets, result);
    let owned = sets.filter((s) => s.name === name);
    if (owned.length === 0 && name !== zone.name) {
      if (await this.store.hasNamesBelow(zone.id, name)) return this.noData(zone, result);
      const wildcard = await this.wildcardFor(zone, name, sets);
      if (!wildcard) {
        // The last name of a CNAME chain decides the code (RFC 6604).
        result.rcode = 'NXDOMAIN';
        result.authorities.push(soaRr(zone));
        return undefined;
      }
      owned = wildcard;
    }
    const available = name === zone.name ? await this.withApexRecords(zone, owned) : owned;
    return this.answer(zone, name, qtype, available, client, result);
  }

  private async answer(
    zone: AuthorityZone,
    name: string,
    qtype: string,
    sets: (AuthorityRRset | Rr)[],
    client: Client,
    result: Resolution,
  ): Promise<string | undefined> {
    const toRrs = (set: AuthorityRRset | Rr): Rr[] => ('records' in set ? rrsOf(set, name, client) : [{ ...set, name }]);
    if (qtype === 'ANY') {
      result.answers.push(...sets.flatMap(toRrs));
      return undefined;
    }
    const exact = sets.filter((s) => s.type === qtype);
    if (exact.length > 0) {
      result.answers.push(...exact.flatMap(toRrs));
      if (result.answers.length === 0) result.authorities.push(soaRr(zone));
      return undefined;
    }
    const cname = sets.find((s) => s.type === 'CNAME');
    if (!cname) return this.noData(zone, result);
    const [rr] = toRrs(cname);
    result.answers.push(rr);
    const target = String((rr as { parts: unknown[] }).parts[0])
      .toLowerCase()
      .replace(/\.$/, '');
    const inZone = target === zone.name || target.endsWith(`.${zone.name}`);
    return inZone && !result.answers.some((a) => a.type === 'CNAME' && a.name === target) ? target : undefined;
  }

  private noData(zone: AuthorityZone, result: Resolution): undefined {
    result.authorities.push(soaRr(zone));
    return undefined;
  }

  /** A referral to the delegated child `cut`: its NS records and the addresses of those inside this zone. */
  private async referral(zone: AuthorityZone, cut: string, sets: AuthorityRRset[], result: Resolution): Promise<undefined> {
    const ns = sets.find((s) => s.name === cut && s.type === 'NS')!;
    result.authoritative = result.answers.length > 0;
    result.authorities.push(...rrsOf(ns, cut, {}));
    const hosts = ns.records.map((r) => String(r.content[0]).toLowerCase().replace(/\.$/, '')).filter((h) => h === zone.name || h.endsWith(`.${zone.name}`));
    const glue = await this.store.rrsetsAt(zone.id, hosts);
    result.additionals.push(...glue.filter((s) => s.type === 'A' || s.type === 'AAAA').flatMap((s) => rrsOf(s, s.name, {})));
    return undefined;
  }

  /** The wildcard RRsets that answer for a name that does not exist: `*.` the closest existing ancestor. */
  private async wildcardFor(zone: AuthorityZone, name: string, sets: AuthorityRRset[]): Promise<AuthorityRRset[] | undefined> {
    for (let ancestor = parentOf(name); ancestor.length >= zone.name.length; ancestor = parentOf(ancestor)) {
      const exists = ancestor === zone.name || sets.some((s) => s.name === ancestor) || (await this.store.hasNamesBelow(zone.id, ancestor));
      if (!exists) continue;
      const found = sets.filter((s) => s.name === `*.${ancestor}`);
      return found.length > 0 ? found : undefined;
    }
    return undefined;
  }

  private async withApexRecords(zone: AuthorityZone, sets: AuthorityRRset[]): Promise<(AuthorityRRset | Rr)[]> {
    const out: (AuthorityRRset | Rr)[] = [soaRr(zone), ...sets];
    if (!sets.some((s) => s.type === 'NS'))
      out.push(...DEFAULT_NS.hosts.map((host): Rr => ({ name: zone.name, ttl: DEFAULT_NS.ttl, type: 'NS', parts: [host] })));
    // A key is published from the moment DNSSEC is turned on until it is withdrawn (see dnssec/service.ts).
    const key = await this.store.key(zone.id);
    if (key)
      out.push({
        name: zone.name,
        ttl: DNSKEY_TTL,
        type: 'DNSKEY',
        key: { flags: key.flags, algorithm: key.algorithm, publicKey: Buffer.from(key.public_key, 'base64') },
      });
    return out;
  }
}
