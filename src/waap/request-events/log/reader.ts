// Runs block queries (queries.ts) against a database: answers what a query asks for, keeping decoded
// parts and parsed summaries in a bounded cache. Blocks never change once written (a rewrite is a new
// block), so a cached part stays right for as long as its block exists; entries are keyed by block id and
// the block's random stamp, so a block replaced under the same id (a state import) is never mistaken.
import { type BlockHeader, type Summary } from './format.js';
import { type DecodedPart, decodePart, parseSummary } from './decode.js';
import type { Fetch, Query } from './queries.js';
import { LruCache } from '../../../platform/lru.js';

/** The reads queries need, as rows (see reads.ts for the SQL of each engine). */
export interface BlockReads<Async extends boolean> {
  blocks(clientId: number, fromHour: number, toHour: number): Result<Async, BlockHeader[]>;
  summaries(blockIds: readonly number[]): Result<Async, { block_id: number; summary: string }[]>;
  parts(blockIds: readonly number[], parts: readonly number[]): Result<Async, { block_id: number; part: number; data: Buffer | Uint8Array }[]>;
  idHours(clientId: number, ids: readonly string[]): Result<Async, { id: string; hour: number }[]>;
}
type Result<Async extends boolean, T> = Async extends true ? Promise<T> : T;

const blockKey = (h: BlockHeader) => `${h.blockId}:${h.stamp}`;

/** Decoded blocks kept between queries, shared by every query of one reader. */
export class BlockCache {
  private readonly parts: LruCache<DecodedPart>;
  private readonly summaries: LruCache<Summary>;

  constructor(budgetBytes: number) {
    // Summaries are small and read by most counts; parts take the rest.
    this.summaries = new LruCache(Math.floor(budgetBytes / 8));
    this.parts = new LruCache(budgetBytes - Math.floor(budgetBytes / 8));
  }

  /** What a `summaries` fetch still has to read, and how to finish it with the rows read. */
  summariesOf(blocks: readonly BlockHeader[]): { missing: number[]; finish(rows: { block_id: number; summary: string }[]): Summary[] } {
    const found = blocks.map((h) => this.summaries.get(blockKey(h)));
    const missing = blocks.filter((_, i) => !found[i]).map((h) => h.blockId);
    return {
      missing,
      finish: (rows) => {
        const byId = new Map(rows.map((r) => [Number(r.block_id), r.summary]));
        return blocks.map((h, i) => {
          if (found[i]) return found[i];
          const text = byId.get(h.blockId);
          if (text === undefined) throw new Error(`block ${h.blockId} vanished during a read`);
          const summary = parseSummary(text);
          this.summaries.set(blockKey(h), summary, text.length * 2);
          return summary;
        });
      },
    };
  }

  /** What a `parts` fetch still has to read, and how to finish it with the rows read. */
  partsOf(
    blocks: readonly BlockHeader[],
    parts: readonly number[],
    keep = true,
  ): { missing: number[]; finish(rows: { block_id: number; part: number; data: Buffer | Uint8Array }[]): DecodedPart[][] } {
    const found = blocks.map((h) => parts.map((p) => this.parts.get(`${blockKey(h)}:${p}`)));
    const missing = blocks.filter((_, i) => found[i].some((d) => !d)).map((h) => h.blockId);
    return {
      missing,
      finish: (rows) => {
        const byKey = new Map(rows.map((r) => [`${Number(r.block_id)}:${r.part}`, r.data]));
        return blocks.map((h, i) =>
          parts.map((p, j) => {
            const cached = found[i][j];
            if (cached) return cached;
            const data = byKey.get(`${h.blockId}:${p}`);
            if (!data) throw new Error(`block ${h.blockId} vanished during a read`);
            if (!keep) return decodePart(data);
            const key = `${blockKey(h)}:${p}`;
            const decoded = decodePart(data, (bytes) => this.parts.grow(key, bytes));
            this.parts.set(key, decoded, decoded.bytes);
            return decoded;
          }),
        );
      },
    };
  }
}

/** Applies `next` to a read's rows: at once for synchronous reads, when they arrive for asynchronous ones. */
type Chain = <T, U>(rows: T | Promise<T>, next: (rows: T) => U) => U | Promise<U>;

function answer(fetch: Fetch, reads: BlockReads<boolean>, cache: BlockCache, chain: Chain): unknown {
  switch (fetch.kind) {
    case 'blocks':
      return reads.blocks(fetch.clientId, fetch.fromHour, fetch.toHour);
    case 'summaries': {
      const plan = cache.summariesOf(fetch.blocks);
      return plan.missing.length ? chain(reads.summaries(plan.missing), plan.finish) : plan.finish([]);
    }
    case 'parts': {
      const plan = cache.partsOf(fetch.blocks, fetch.parts, fetch.keep);
      return plan.missing.length ? chain(reads.parts(plan.missing, fetch.parts), plan.finish) : plan.finish([]);
    }
    case 'idHours':
      return chain(reads.idHours(fetch.clientId, fetch.ids), (rows) => new Map(rows.map((r) => [r.id, Number(r.hour)])));
  }
}

/** A query that ran past its time budget, stopped between two of its reads. */
export class QueryTimeout extends Error {
  readonly code = 'query_timeout';
}

/** Stops a query whose deadline (epoch milliseconds: threads share no other clock) has passed. */
function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) throw new QueryTimeout('the query ran past its time budget');
}

/** Runs a query to its end against synchronous reads (SQLite): no other code runs in between. */
export function runSync<R>(query: Query<R>, reads: BlockReads<false>, cache: BlockCache, deadline?: number): R {
  const chain: Chain = (rows, next) => next(rows as never);
  let step = query.next();
  while (!step.done) {
    checkDeadline(deadline);
    step = query.next(answer(step.value, reads, cache, chain));
  }
  return step.value;
}

/** Runs a query to its end against asynchronous reads (PostgreSQL). */
export async function runAsync<R>(query: Query<R>, reads: BlockReads<true>, cache: BlockCache, deadline?: number): Promise<R> {
  const chain: Chain = (rows, next) => Promise.resolve(rows).then(next);
  let step = query.next();
  while (!step.done) {
    checkDeadline(deadline);
    step = query.next(await answer(step.value, reads, cache, chain));
  }
  return step.value;
}
