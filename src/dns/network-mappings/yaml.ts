// Reading a network-mapping import: YAML documents, one mapping each, checked as the API checks a mapping.
// The YAML library parses about 1 MB a second here: a 1 MiB body held the main thread over a second, and
// every other client waited. So a body of a few kilobytes or more is read in a thread of its own
// (yaml-thread.ts), with a time limit; smaller ones, which take a few milliseconds, where they arrive.
// The reading itself (readMappings) imports no platform code: the thread's bundle stays small.
import { isIPv4, isIPv6 } from 'node:net';
import { parseAllDocuments } from 'yaml';
import { moduleWorker, WorkerPool, WorkerTimeout } from '../../platform/workers.js';
import { MAPPING_LIMITS } from './limits.js';
import type { MappingEntryOut, MappingInput } from './schemas.js';

export interface ImportedMapping {
  name: string;
  mapping: MappingEntryOut[];
}

/** The mappings of an import, or the first problem, which refuses them all. */
export type MappingsRead = { mappings: ImportedMapping[] } | { problem: string };

/** A problem of the import, unwound to readMappings. */
class Refusal extends Error {}

function cidrProblem(text: string, family: 4 | 6): string | undefined {
  const [address, prefix, ...rest] = text.split('/');
  const ok = family === 4 ? isIPv4(address) : isIPv6(address) && !address.includes('%');
  const max = family === 4 ? 32 : 128;
  if (!ok || rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    return `"${text}" is not an IPv${family} network in CIDR form (address/0..${max})`;
  return undefined;
}

/** The mapping's entries with every list present, or the first problem. */
export function entries(mapping: MappingInput['mapping']): MappingEntryOut[] | { problem: string } {
  const out: MappingEntryOut[] = [];
  if ((mapping?.length ?? 0) > MAPPING_LIMITS.entries) return { problem: `mapping: at most ${MAPPING_LIMITS.entries} entries` };
  for (const [index, entry] of (mapping ?? []).entries()) {
    const normal = { tags: entry.tags ?? [], cidr4: entry.cidr4 ?? [], cidr6: entry.cidr6 ?? [] };
    const problem = boundsProblem(normal) ?? [...normal.cidr4.map((c) => cidrProblem(c, 4)), ...normal.cidr6.map((c) => cidrProblem(c, 6))].find(Boolean);
    if (problem) return { problem: `mapping[${index}]: ${problem}` };
    if (normal.tags.some((tag) => tag.trim() === '')) return { problem: `mapping[${index}]: tags must not be empty` };
    out.push(normal);
  }
  return out;
}

/** An entry past the bounds the API's schema sets (an import is checked by no schema). */
function boundsProblem(entry: MappingEntryOut): string | undefined {
  if (entry.tags.length > MAPPING_LIMITS.tags) return `at most ${MAPPING_LIMITS.tags} tags`;
  for (const key of ['cidr4', 'cidr6'] as const) if (entry[key].length > MAPPING_LIMITS.networks) return `${key}: at most ${MAPPING_LIMITS.networks} networks`;
  const long = [...entry.tags, ...entry.cidr4, ...entry.cidr6].find((text) => text.length > MAPPING_LIMITS.text);
  return long === undefined ? undefined : `"${long.slice(0, 40)}…" is longer than ${MAPPING_LIMITS.text} characters`;
}

/** Why a mapping's name cannot be taken, if it cannot. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.trim() === '') return 'name is required (a non-empty text)';
  if (name.length > MAPPING_LIMITS.text) return `name must be at most ${MAPPING_LIMITS.text} characters`;
  return undefined;
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

/** YAML documents (`---` between them) as mapping inputs; the first problem refuses them all (thrown as a Refusal). */
function yamlMappings(text: string, maxDocuments: number): ImportedMapping[] {
  if (text.trim() === '') throw new Refusal('The request body must hold YAML documents, each with a name and a mapping');
  const tooDeep = yamlNestingProblem(text);
  if (tooDeep) throw new Refusal(`The body is not an import: ${tooDeep}`);
  // uniqueKeys off: checking every key against every other is quadratic in a map's size (names are
  // checked for uniqueness below).
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  if (!Array.isArray(docs)) throw new Refusal('The body is not YAML documents');
  if (docs.length > maxDocuments) throw new Refusal(`At most ${maxDocuments} mappings per import`);
  const names = new Set<string>();
  return docs.map((doc, index) => {
    if (doc.errors.length > 0) throw new Refusal(`YAML document ${index + 1}: ${doc.errors[0].message}`);
    let value: { name?: unknown; mapping?: unknown } | null;
    try {
      // No aliases: a document cannot expand itself (the "billion laughs").
      value = doc.toJS({ maxAliasCount: 0 }) as typeof value;
    } catch (error) {
      throw new Refusal(`YAML document ${index + 1}: ${(error as Error).message}`);
    }
    if (!value || typeof value !== 'object') throw new Refusal(`YAML document ${index + 1} must be a mapping with name and mapping`);
    const problem = nameProblem(value.name);
    if (problem) throw new Refusal(problem);
    const name = value.name as string;
    if (names.has(name)) throw new Refusal(`YAML document ${index + 1}: the name ${name} appears twice`);
    names.add(name);
    if (value.mapping !== undefined && !Array.isArray(value.mapping)) throw new Refusal(`YAML document ${index + 1}: mapping must be a list`);
    const shaped = ((value.mapping as unknown[] | undefined) ?? []).map((entry) => {
      const e = (entry ?? {}) as Record<string, unknown>;
      const list = (key: string) => (Array.isArray(e[key]) ? (e[key] as unknown[]).map(String) : undefined);
      return { tags: list('tags'), cidr4: list('cidr4'), cidr6: list('cidr6') };
    });
    const mapping = entries(shaped);
    if ('problem' in mapping) throw new Refusal(mapping.problem);
    return { name, mapping };
  });
}

export function readMappings(text: string, maxDocuments: number): MappingsRead {
  try {
    return { mappings: yamlMappings(text, maxDocuments) };
  } catch (error) {
    if (error instanceof Refusal) return { problem: error.message };
    throw error;
  }
}

/** Imports of this many characters or more are read in the thread; smaller ones take a few milliseconds here. */
const THREAD_FROM_CHARACTERS = 4 * 1024;
/** How long the thread may read one import (a 1 MiB body takes about a second); past it, it is replaced. */
const READ_TIMEOUT_MS = 10_000;

export class MappingImportReading {
  private pool: WorkerPool | undefined;

  constructor(
    private readonly threadFrom = THREAD_FROM_CHARACTERS,
    private readonly timeoutMs = READ_TIMEOUT_MS,
  ) {}

  async read(text: string, maxDocuments: number): Promise<MappingsRead> {
    if (text.length < this.threadFrom) return readMappings(text, maxDocuments);
    this.pool ??= new WorkerPool(() => moduleWorker(import.meta.url, './yaml-thread.ts', 'dns-mappings-worker.cjs', null), 1);
    try {
      return await this.pool.call<MappingsRead>({ text, maxDocuments }, { timeoutMs: this.timeoutMs });
    } catch (error) {
      // The import's own doing (too long to read, or memory the thread ran out of): refused like any other problem.
      const why = error instanceof WorkerTimeout ? `it took more than ${this.timeoutMs / 1000} s to read` : (error as Error).message;
      return { problem: `The import could not be read (${why}); send it in smaller parts` };
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
