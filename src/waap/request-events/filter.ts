// The engine-neutral description of which events a call selects, built by the service from the query
// and turned into SQL by the store.
import { type Dimension, globPrefix } from './rollups.js';

export type Condition =
  | { kind: 'in'; column: string; values: (string | number)[]; negate: boolean }
  /** `*` is the only wildcard; every other character matches itself. */
  | { kind: 'glob'; patterns: string[]; negate: boolean }
  /** Case-insensitive substring of the raw user agent. */
  | { kind: 'substring'; values: string[]; negate: boolean }
  /** Exact threat-tag membership. */
  | { kind: 'tag'; values: string[]; negate: boolean };

export interface EventFilter {
  clientId: number;
  /** Inclusive lower bound, epoch ms. */
  from: number;
  /** Exclusive upper bound, epoch ms. */
  toExcl: number;
  conditions: Condition[];
}

const DIMENSIONS = new Set<string>(['domain_id', 'decision', 'optional_action', 'country', 'method', 'status_code']);

/**
 * The filter in terms of counter dimensions, or undefined when some condition cannot be answered by
 * counters (IPs, ids, user agents, tags, globs not of the form `/segment/*`).
 */
export function asDimensions(filter: EventFilter): { dims: Set<Dimension>; conditions: Condition[] } | undefined {
  const dims = new Set<Dimension>();
  const conditions: Condition[] = [];
  for (const c of filter.conditions) {
    if (c.kind === 'in' && DIMENSIONS.has(c.column)) {
      dims.add(c.column as Dimension);
      conditions.push(c);
    } else if (c.kind === 'glob') {
      const prefixes = c.patterns.map(globPrefix);
      if (prefixes.some((p) => p === undefined)) return undefined;
      dims.add('path_prefix');
      conditions.push({ kind: 'in', column: 'path_prefix', values: prefixes as string[], negate: c.negate });
    } else {
      return undefined;
    }
  }
  return { dims, conditions };
}

/** A glob as a SQLite GLOB pattern: `*` stays the wildcard, `?` and `[` are made literal. */
export function globForSqlite(glob: string): string {
  return glob.replace(/[[?]/g, (ch) => `[${ch}]`);
}

/** A glob as a LIKE pattern with `\` as escape. */
export function globForLike(glob: string): string {
  return glob.replace(/[\\%_]/g, (ch) => `\\${ch}`).replace(/\*/g, '%');
}

export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
