// Network mappings: named lists of IPv4 and IPv6 networks, each entry with tags. Names are unique per
// client; networks are checked as CIDR blocks. An import takes YAML documents (one mapping each) and
// creates or replaces mappings by name, all of them or none.
import { isIPv4, isIPv6 } from 'node:net';
import { parseAllDocuments } from 'yaml';
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import { badRequest } from '../common/http.js';
import { parseJson } from '../common/meta.js';
import { QUOTAS } from '../common/platform.js';
import type { MappingRow } from '../common/tables.js';
import { type MappingEntryOut, type MappingInput, type MappingListFilter, type MappingOut } from './schemas.js';
import type { MappingStore } from './store.js';

const MAX_IMPORT_DOCUMENTS = QUOTAS.mappings;

function cidrProblem(text: string, family: 4 | 6): string | undefined {
  const [address, prefix, ...rest] = text.split('/');
  const ok = family === 4 ? isIPv4(address) : isIPv6(address) && !address.includes('%');
  const max = family === 4 ? 32 : 128;
  if (!ok || rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    return `"${text}" is not an IPv${family} network in CIDR form (address/0..${max})`;
  return undefined;
}

/** The mapping's entries with every list present, or the first problem. */
function entries(mapping: MappingInput['mapping']): MappingEntryOut[] | { problem: string } {
  const out: MappingEntryOut[] = [];
  for (const [index, entry] of (mapping ?? []).entries()) {
    const normal = { tags: entry.tags ?? [], cidr4: entry.cidr4 ?? [], cidr6: entry.cidr6 ?? [] };
    const problem = [...normal.cidr4.map((c) => cidrProblem(c, 4)), ...normal.cidr6.map((c) => cidrProblem(c, 6))].find(Boolean);
    if (problem) return { problem: `mapping[${index}]: ${problem}` };
    if (normal.tags.some((tag) => tag.trim() === '')) return { problem: `mapping[${index}]: tags must not be empty` };
    out.push(normal);
  }
  return out;
}

function checkedName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw badRequest('name is required (a non-empty text)');
  if (name.length > 255) throw badRequest('name must be at most 255 characters');
  return name;
}

function checkedEntries(mapping: MappingInput['mapping']): MappingEntryOut[] {
  const result = entries(mapping);
  if ('problem' in result) throw badRequest(result.problem);
  return result;
}

export function mappingView(row: MappingRow): MappingOut {
  return { id: row.id, name: row.name, mapping: parseJson(row.mapping, []) };
}

// How deep an import may nest. A mapping document nests four levels; the YAML library composes nested
// collections by recursion and, a few thousand levels down, a regular expression compiled near the end
// of the stack aborts the whole process (V8's "RegExpCompiler Allocation failed"), so depth is bounded
// before the text reaches it.
const MAX_FLOW_DEPTH = 32;
const MAX_BLOCK_PREFIX = 128;

/** Why the text nests too deeply for an import, if it does: flow brackets, or a line's indentation and block indicators. */
function yamlNestingProblem(text: string): string | undefined {
  let depth = 0;
  let lineStart = true;
  let prefix = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      prefix = 0;
      continue;
    }
    if (lineStart && (c === ' ' || c === '-' || c === '?' || c === ':' || c === '\t')) {
      prefix += 1;
      if (prefix > MAX_BLOCK_PREFIX) return `a line is indented or nested more than ${MAX_BLOCK_PREFIX} characters deep`;
      continue;
    }
    lineStart = false;
    // Brackets inside quoted text count too: over-counting is safe, and no mapping nests 32 deep.
    if (c === '[' || c === '{') {
      depth += 1;
      if (depth > MAX_FLOW_DEPTH) return `collections are nested more than ${MAX_FLOW_DEPTH} levels deep`;
    } else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return undefined;
}

/** YAML documents (`---` between them) as mapping inputs; the first problem refuses them all. */
function yamlMappings(text: string): { name: string; mapping: MappingEntryOut[] }[] {
  if (text.trim() === '') throw badRequest('The request body must hold YAML documents, each with a name and a mapping');
  const tooDeep = yamlNestingProblem(text);
  if (tooDeep) throw badRequest(`The body is not an import: ${tooDeep}`);
  // uniqueKeys off: checking every key against every other is quadratic in a map's size (names are
  // checked for uniqueness below).
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  if (!Array.isArray(docs)) throw badRequest('The body is not YAML documents');
  if (docs.length > MAX_IMPORT_DOCUMENTS) throw badRequest(`At most ${MAX_IMPORT_DOCUMENTS} mappings per import`);
  const names = new Set<string>();
  return docs.map((doc, index) => {
    if (doc.errors.length > 0) throw badRequest(`YAML document ${index + 1}: ${doc.errors[0].message}`);
    let value: { name?: unknown; mapping?: unknown } | null;
    try {
      // No aliases: a document cannot expand itself (the "billion laughs").
      value = doc.toJS({ maxAliasCount: 0 }) as typeof value;
    } catch (error) {
      throw badRequest(`YAML document ${index + 1}: ${(error as Error).message}`);
    }
    if (!value || typeof value !== 'object') throw badRequest(`YAML document ${index + 1} must be a mapping with name and mapping`);
    const name = checkedName(value.name);
    if (names.has(name)) throw badRequest(`YAML document ${index + 1}: the name ${name} appears twice`);
    names.add(name);
    if (value.mapping !== undefined && !Array.isArray(value.mapping)) throw badRequest(`YAML document ${index + 1}: mapping must be a list`);
    const shaped = ((value.mapping as unknown[] | undefined) ?? []).map((entry) => {
      const e = (entry ?? {}) as Record<string, unknown>;
      const list = (key: string) => (Array.isArray(e[key]) ? (e[key] as unknown[]).map(String) : undefined);
      return { tags: list('tags'), cidr4: list('cidr4'), cidr6: list('cidr6') };
    });
    return { name, mapping: checkedEntries(shaped) };
  });
}

export class MappingService {
  constructor(
    private readonly store: MappingStore,
    private readonly clock: Clock,
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
    const mappings = yamlMappings(text ?? '');
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
