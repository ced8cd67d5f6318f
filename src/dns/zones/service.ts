// Zones: a client's domains. Names are validated and normalised and unique per client; the SOA fields
// take the platform's defaults when left out; every change bumps the serial; a disabled zone is kept but
// not answered. No SQL (store.ts) and no HTTP (routes.ts).
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../common/http.js';
import { metaProblem, parseJson } from '../common/meta.js';
import { hostName, isWithin, zoneName } from '../common/names.js';
import { PLATFORM_CONTACT, PLATFORM_NAME_SERVERS, QUOTAS, SOA_DEFAULTS, zoneStatus } from '../common/platform.js';
import type { ZoneRow } from '../common/tables.js';
import { DEFAULT_NS, soaText } from '../common/zone-records.js';
import type { DnssecService } from '../dnssec/service.js';
import { presentation, type RRsetType } from '../rrsets/content.js';
import type { RRsetStore } from '../rrsets/store.js';
import type { ZoneFinder } from './finder.js';
import { filterZones, type ListedZone } from './list.js';
import type { ShortRecordOut, Zone, ZoneInput, ZoneListFilter } from './schemas.js';
import type { ZoneCounts, ZoneFields, ZoneStore } from './store.js';

const NO_COUNTS: ZoneCounts = { total: 0, dynamic: 0, healthcheck: 0 };

/** An email address, or an SOA mailbox name (hostmaster.example.com). */
function contactProblem(contact: string): string | undefined {
  const at = contact.lastIndexOf('@');
  if (at < 0) return 'problem' in hostName(contact) ? 'must be an email address' : undefined;
  const local = contact.slice(0, at);
  if (local.length === 0 || local.length > 64 || /[\s@\\]/.test(local)) return 'must be an email address';
  return 'problem' in hostName(contact.slice(at + 1)) ? 'must be an email address with a valid domain' : undefined;
}

/** Field problems shared by create and update (the schema has checked types and bounds). */
function fieldProblem(input: Partial<ZoneInput>): string | undefined {
  if (input.contact !== undefined) {
    const problem = contactProblem(input.contact);
    if (problem) return `contact ${problem}`;
  }
  if (input.primary_server !== undefined) {
    const check = hostName(input.primary_server);
    if ('problem' in check || check.name === '.') return `primary_server must be a host name`;
  }
  if (input.meta !== undefined) {
    const problem = metaProblem(input.meta);
    if (problem) return `meta ${problem}`;
  }
  return undefined;
}

function checkedName(text: string): string {
  const check = zoneName(text);
  if ('problem' in check) throw badRequest(`name "${text}" ${check.problem}`);
  return check.name;
}

export function zoneView(zone: ZoneRow, counts: ZoneCounts): Zone {
  return {
    id: zone.id,
    client_id: zone.client_id,
    name: zone.name,
    contact: zone.contact,
    primary_server: zone.primary_server,
    refresh: zone.refresh,
    retry: zone.retry,
    expiry: zone.expiry,
    nx_ttl: zone.nx_ttl,
    serial: zone.serial,
    enabled: zone.enabled === 1,
    status: zoneStatus(zone.enabled === 1),
    meta: parseJson(zone.meta, {}),
    dnssec_enabled: zone.dnssec_enabled === 1,
    dnssec_status: zone.dnssec_status,
    dnssec_status_modified_on: zone.dnssec_status_modified_at === null ? '' : new Date(zone.dnssec_status_modified_at).toISOString(),
    rrsets_amount: { total: counts.total, static: counts.total - counts.dynamic, dynamic: { total: counts.dynamic, healthcheck: counts.healthcheck } },
  };
}

export class ZoneService {
  constructor(
    private readonly store: ZoneStore,
    private readonly rrsets: RRsetStore,
    private readonly finder: ZoneFinder,
    private readonly dnssec: DnssecService,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, input: ZoneInput): Promise<{ id: number; warnings: string[] }> {
    const name = checkedName(input.name);
    const problem = fieldProblem(input);
    if (problem) throw badRequest(problem);
    if ((await this.store.count(principal.clientId)) >= QUOTAS.zones) throw badRequest(`The quota of ${QUOTAS.zones} zones is used up`);
    const now = this.clock.now();
    const fields: ZoneFields = {
      name,
      contact: input.contact ?? PLATFORM_CONTACT,
      primary_server: input.primary_server ?? PLATFORM_NAME_SERVERS[0],
      refresh: input.refresh ?? SOA_DEFAULTS.refresh,
      retry: input.retry ?? SOA_DEFAULTS.retry,
      expiry: input.expiry ?? SOA_DEFAULTS.expiry,
      nx_ttl: input.nx_ttl ?? SOA_DEFAULTS.nx_ttl,
      serial: input.serial ?? Math.floor(now / 1000),
      enabled: input.enabled === false ? 0 : 1,
      meta: JSON.stringify(input.meta ?? {}),
    };
    const id = await this.store.insert(principal.clientId, fields, now);
    if (id === undefined) throw badRequest(`Zone ${name} already exists`);
    return { id, warnings: await this.nestingWarnings(principal, name) };
  }

  async list(principal: Principal, filter: ZoneListFilter): Promise<{ zones: Zone[]; total_amount: number }> {
    const rows = await this.store.all(principal.clientId);
    const counts = await this.store.counts(principal.clientId);
    const listed: ListedZone[] = [];
    for (const row of rows) listed.push({ zone: await this.dnssec.refresh(row), counts: counts.get(row.id) ?? NO_COUNTS });
    const page = filterZones(listed, filter, principal.clientId);
    return { zones: page.items.map(({ zone, counts: c }) => zoneView(zone, c)), total_amount: page.total };
  }

  async get(principal: Principal, name: string): Promise<Zone> {
    const zone = await this.dnssec.refresh(await this.finder.owned(principal, name));
    const counts = (await this.store.counts(principal.clientId, [zone.id])).get(zone.id) ?? NO_COUNTS;
    return { ...zoneView(zone, counts), records: await this.records(zone) };
  }

  /** PUT: the SOA fields, meta and enabled flag sent replace the stored ones; fields left out are kept. */
  async update(principal: Principal, name: string, input: ZoneInput): Promise<Record<string, never>> {
    const zone = await this.finder.owned(principal, name);
    const sentName = zoneName(input.name);
    if ('problem' in sentName || sentName.name !== zone.name) throw badRequest(`name must be the zone's own name (${zone.name}): a zone cannot be renamed`);
    const problem = fieldProblem(input);
    if (problem) throw badRequest(problem);
    const fields: Partial<ZoneFields> = {};
    for (const key of ['contact', 'primary_server', 'refresh', 'retry', 'expiry', 'nx_ttl'] as const) {
      if (input[key] !== undefined) (fields as Record<string, unknown>)[key] = input[key];
    }
    if (input.enabled !== undefined) fields.enabled = input.enabled ? 1 : 0;
    if (input.meta !== undefined) fields.meta = JSON.stringify(input.meta);
    await this.store.update(zone, fields, input.serial ?? 0, this.clock.now());
    return {};
  }

  async setEnabled(principal: Principal, name: string, enabled: boolean): Promise<Record<string, never>> {
    const zone = await this.finder.owned(principal, name);
    await this.store.update(zone, { enabled: enabled ? 1 : 0 }, 0, this.clock.now());
    return {};
  }

  async delete(principal: Principal, name: string): Promise<Record<string, never>> {
    await this.store.delete(await this.finder.owned(principal, name));
    return {};
  }

  /** The zone's records in short form: its SOA, the apex NS (the platform's unless set), then every RRset. */
  private async records(zone: ZoneRow): Promise<ShortRecordOut[]> {
    const sets = await this.rrsets.all(zone.id);
    const out: ShortRecordOut[] = [{ name: zone.name, type: 'SOA', ttl: zone.nx_ttl, short_answers: [soaText(zone)] }];
    if (!sets.some(({ row }) => row.name === zone.name && row.type === 'NS'))
      out.push({ name: zone.name, type: 'NS', ttl: DEFAULT_NS.ttl, short_answers: [...DEFAULT_NS.hosts] });
    for (const { row, records } of sets) {
      const answers = records.filter((r) => r.enabled === 1).map((r) => presentation(row.type as RRsetType, parseJson(r.content, [])));
      out.push({ name: row.name, type: row.type, ttl: row.ttl, short_answers: answers });
    }
    return out;
  }

  /** A zone inside another zone of the same client answers for its names only once delegated there. */
  private async nestingWarnings(principal: Principal, name: string): Promise<string[]> {
    const zones = await this.store.all(principal.clientId);
    return zones
      .filter((other) => other.name !== name && isWithin(name, other.name))
      .map((parent) => `Zone ${name} is inside zone ${parent.name}: add NS records for ${name} to ${parent.name} to delegate it`);
  }
}
