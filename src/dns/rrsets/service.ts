// RRsets: the records of a zone, one set per owner name and type. Creating, replacing and deleting a set
// changes the zone (serial bumped in the same transaction); the rules live in rules.ts and content.ts.
// No SQL (store.ts) and no HTTP (routes.ts).
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { badRequest } from '../common/http.js';
import { hasHealthCheck, parseJson } from '../common/meta.js';
import { ownerName } from '../common/names.js';
import { DEFAULT_TTL, QUOTAS } from '../common/platform.js';
import { isUniqueViolation, type ZoneRow } from '../common/tables.js';
import type { ZoneFinder } from '../zones/finder.js';
import { RRSET_TYPES, type RRsetType } from './content.js';
import { bodyProblem, placeProblem, type Warning, warningsFor } from './rules.js';
import { type RRsetInput, type RRsetListFilter, type RRsetOut, type RRsetPath } from './schemas.js';
import type { RRsetOrder, RRsetStore, RRsetWrite, StoredRRset } from './store.js';

export function rrsetView({ row, records }: StoredRRset, warnings: Warning[] = []): RRsetOut {
  return {
    name: row.name,
    type: row.type,
    ttl: row.ttl,
    resource_records: records.map((r) => ({ id: r.id, content: parseJson(r.content, []), enabled: r.enabled === 1, meta: parseJson(r.meta, {}) })),
    pickers: parseJson(row.pickers, []),
    meta: parseJson(row.meta, {}),
    updated_at: new Date(row.updated_at).toISOString(),
    warnings,
  };
}

/** A type from a path, any case; undefined when the API has no such type. */
export function typeOf(text: string): RRsetType | undefined {
  const upper = text.toUpperCase();
  return (RRSET_TYPES as readonly string[]).includes(upper) ? (upper as RRsetType) : undefined;
}

interface Target {
  zone: ZoneRow;
  name: string;
  type: RRsetType;
}

export class RRsetService {
  constructor(
    private readonly store: RRsetStore,
    private readonly finder: ZoneFinder,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, zoneName: string, filter: RRsetListFilter): Promise<{ rrsets: RRsetOut[]; total_amount: number }> {
    const zone = await this.finder.owned(principal, zoneName);
    const order: RRsetOrder = { field: filter.order_by ?? 'name', direction: filter.order_direction ?? 'asc' };
    const [total, sets] = await Promise.all([this.store.count(zone.id), this.store.page(zone.id, order, filter.offset ?? 0, filter.limit || undefined)]);
    return { rrsets: sets.map((set) => rrsetView(set)), total_amount: total };
  }

  async get(principal: Principal, path: RRsetPath): Promise<RRsetOut> {
    return rrsetView(await this.existing(await this.found(principal, path)));
  }

  async create(principal: Principal, path: RRsetPath, input: RRsetInput): Promise<RRsetOut> {
    const target = await this.writable(principal, path);
    if (await this.store.find(target.zone.id, target.name, target.type))
      throw badRequest(`The ${target.type} RRset ${target.name} already exists: change it with PUT`);
    const others = await this.store.typesAt(target.zone.id, target.name);
    this.check(target, input, others);
    if ((await this.store.count(target.zone.id)) >= QUOTAS.rrsets) throw badRequest(`The quota of ${QUOTAS.rrsets} RRsets per zone is used up`);
    try {
      await this.store.insert(target.zone.id, target.zone.client_id, this.write(target, input), this.clock.now());
    } catch (error) {
      if (isUniqueViolation(error)) throw badRequest(`The ${target.type} RRset ${target.name} already exists: change it with PUT`);
      throw error;
    }
    return rrsetView(await this.existing(target), warningsFor(target.zone.name, target.name, target.type, input, others));
  }

  /** PUT: the records are replaced; ttl, pickers and meta change when sent and are kept otherwise. */
  async replace(principal: Principal, path: RRsetPath, input: RRsetInput): Promise<RRsetOut> {
    const target = await this.writable(principal, path);
    const current = await this.existing(target);
    const others = (await this.store.typesAt(target.zone.id, target.name)).filter((t) => t !== target.type);
    this.check(target, input, others);
    const merged: RRsetInput = {
      ...input,
      ttl: input.ttl ?? current.row.ttl,
      pickers: input.pickers ?? parseJson(current.row.pickers, []),
      meta: input.meta ?? parseJson(current.row.meta, {}),
    };
    await this.store.replace(target.zone.id, current.row, this.write(target, merged), this.clock.now());
    return rrsetView(await this.existing(target), warningsFor(target.zone.name, target.name, target.type, input, others));
  }

  async delete(principal: Principal, path: RRsetPath): Promise<Record<string, never>> {
    const target = await this.found(principal, path);
    const current = await this.existing(target);
    await this.store.delete(target.zone.id, target.zone.client_id, current.row.id, this.clock.now());
    return {};
  }

  /** Edgeplane runs no health checks, so no record ever fails over: an existing set's log is empty. */
  async failoverLog(principal: Principal, path: RRsetPath): Promise<{ log: never[]; total_amount: number }> {
    await this.existing(await this.found(principal, path));
    return { log: [], total_amount: 0 };
  }

  /** The zone, name and type of a path that reads: anything that cannot name a set is not found. */
  private async found(principal: Principal, path: RRsetPath): Promise<Target> {
    const zone = await this.finder.owned(principal, path.zoneName);
    const name = ownerName(path.rrsetName, zone.name);
    const type = typeOf(path.rrsetType);
    if ('problem' in name || !type) throw notFound(`RRset ${path.rrsetName}/${path.rrsetType}`);
    return { zone, name: name.name, type };
  }

  /** The zone, name and type of a path that writes: a bad name or type is refused with the reason. */
  private async writable(principal: Principal, path: RRsetPath): Promise<Target> {
    const zone = await this.finder.owned(principal, path.zoneName);
    const type = typeOf(path.rrsetType);
    if (!type) throw badRequest(`Unknown RRset type ${path.rrsetType}: one of ${RRSET_TYPES.filter((t) => t !== 'SOA').join(', ')}`);
    if (type === 'SOA') throw badRequest(`The SOA record is the zone's own: change it with PUT /dns/v2/zones/${zone.name}`);
    const name = ownerName(path.rrsetName, zone.name);
    if ('problem' in name) throw badRequest(`RRset name "${path.rrsetName}" ${name.problem}`);
    return { zone, name: name.name, type };
  }

  private async existing(target: Target): Promise<StoredRRset> {
    const set = await this.store.find(target.zone.id, target.name, target.type);
    if (!set) throw notFound(`RRset ${target.name}/${target.type}`);
    return set;
  }

  private check(target: Target, input: RRsetInput, otherTypes: string[]): void {
    const problem = bodyProblem(target.type, input) ?? placeProblem(target.zone.name, target.name, target.type, otherTypes);
    if (problem) throw badRequest(problem);
  }

  private write(target: Target, input: RRsetInput): RRsetWrite {
    const meta = (input.meta ?? {}) as Record<string, unknown>;
    const pickers = input.pickers ?? [];
    return {
      fields: {
        name: target.name,
        type: target.type,
        ttl: input.ttl ?? DEFAULT_TTL,
        meta: JSON.stringify(meta),
        pickers: JSON.stringify(pickers),
        dynamic: pickers.length > 0 ? 1 : 0,
        health_check: hasHealthCheck(meta) ? 1 : 0,
      },
      records: input.resource_records.map((r) => ({
        content: JSON.stringify(r.content),
        enabled: r.enabled === false ? 0 : 1,
        meta: JSON.stringify(r.meta ?? {}),
      })),
    };
  }
}
