// Network mappings: named lists of IPv4 and IPv6 networks, each entry with tags. Names are unique per
// client; networks are checked as CIDR blocks. An import takes YAML documents (one mapping each) and
// creates or replaces mappings by name, all of them or none.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { badRequest } from '../common/http.js';
import { parseJson } from '../common/meta.js';
import { QUOTAS } from '../common/platform.js';
import type { MappingRow } from '../common/tables.js';
import { type MappingEntryOut, type MappingInput, type MappingListFilter, type MappingOut } from './schemas.js';
import type { MappingStore } from './store.js';
import { entries, type MappingImportReading, nameProblem } from './yaml.js';

const MAX_IMPORT_DOCUMENTS = QUOTAS.mappings;

function checkedName(name: unknown): string {
  const problem = nameProblem(name);
  if (problem) throw badRequest(problem);
  return name as string;
}

function checkedEntries(mapping: MappingInput['mapping']): MappingEntryOut[] {
  const result = entries(mapping);
  if ('problem' in result) throw badRequest(result.problem);
  return result;
}

export function mappingView(row: MappingRow): MappingOut {
  return { id: row.id, name: row.name, mapping: parseJson(row.mapping, []) };
}

export class MappingService {
  constructor(
    private readonly store: MappingStore,
    private readonly clock: Clock,
    private readonly reading: MappingImportReading,
  ) {}

  async list(principal: Principal, filter: MappingListFilter): Promise<{ network_mappings: MappingOut[]; total_amount: number }> {
    const field = filter.order_by ?? 'id';
    const sign = filter.order_direction === 'desc' ? -1 : 1;
    const rows = (await this.store.all(principal.clientId)).sort((a, b) => sign * (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0));
    const offset = filter.offset ?? 0;
    const page = rows.slice(offset, filter.limit ? offset + filter.limit : undefined);
    return { network_mappings: page.map(mappingView), total_amount: rows.length };
  }

  async get(principal: Principal, id: number): Promise<MappingOut> {
    return mappingView(await this.owned(principal, id));
  }

  async getByName(principal: Principal, name: string): Promise<MappingOut> {
    const row = await this.store.findByName(principal.clientId, name);
    if (!row) throw notFound(`Network mapping ${name}`);
    return mappingView(row);
  }

  async create(principal: Principal, input: MappingInput): Promise<{ id: number }> {
    const name = checkedName(input.name);
    const mapping = checkedEntries(input.mapping);
    if ((await this.store.count(principal.clientId)) >= QUOTAS.mappings) throw badRequest(`The quota of ${QUOTAS.mappings} network mappings is used up`);
    const id = await this.store.insert(principal.clientId, name, JSON.stringify(mapping), this.clock.now());
    if (id === undefined) throw badRequest(`A network mapping named ${name} already exists`);
    return { id };
  }

  /** PUT: the name and the mapping sent replace the stored ones; what is left out is kept. */
  async update(principal: Principal, id: number, input: MappingInput): Promise<Record<string, never>> {
    const row = await this.owned(principal, id);
    const name = input.name === undefined ? row.name : checkedName(input.name);
    const mapping = input.mapping === undefined ? row.mapping : JSON.stringify(checkedEntries(input.mapping));
    if (!(await this.store.update(principal.clientId, id, name, mapping, this.clock.now()))) throw badRequest(`A network mapping named ${name} already exists`);
    return {};
  }

  async delete(principal: Principal, id: number): Promise<Record<string, never>> {
    await this.owned(principal, id);
    await this.store.delete(principal.clientId, id);
    return {};
  }

  async import(principal: Principal, text: string | undefined): Promise<{ success: boolean }> {
    const read = await this.reading.read(text ?? '', MAX_IMPORT_DOCUMENTS);
    if ('problem' in read) throw badRequest(read.problem);
    const { mappings } = read;
    const existing = new Set((await this.store.all(principal.clientId)).map((row) => row.name));
    const added = mappings.filter((m) => !existing.has(m.name)).length;
    if (existing.size + added > QUOTAS.mappings)
      throw badRequest(`The import would make ${existing.size + added} network mappings; the quota is ${QUOTAS.mappings}`);
    await this.store.upsertMany(
      principal.clientId,
      mappings.map((m) => ({ name: m.name, mapping: JSON.stringify(m.mapping) })),
      this.clock.now(),
    );
    return { success: true };
  }

  private async owned(principal: Principal, id: number): Promise<MappingRow> {
    const row = await this.store.find(principal.clientId, id);
    if (!row) throw notFound(`Network mapping ${id}`);
    return row;
  }
}
