// The engine-neutral description of which events a call selects, built by the service from the query
// and answered by the block queries.

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
