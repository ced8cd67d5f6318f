// Which CDN rules match a request URI, answered by a thread of its own. Each match is linear in the path
// (RE2), but a pattern RE2 must simulate without its DFA takes about 13 ms against 2,000 characters,
// and a client's hundred of them held the event loop in pieces of that size for a second: every other
// client's requests waited behind them (bench/noisy, `cdn-effective`).
import { AppError } from '../../platform/errors.js';
import { moduleWorker, WorkerPool, WorkerTimeout } from '../../platform/workers.js';
import type { MatchCall } from './match-thread.js';
import type { Matchable } from './pattern.js';

/** Longest a match may take: far above a hundred of the slowest patterns against a 16 KiB URI's path. */
const MATCH_BUDGET_MS = 10_000;

export interface RuleMatch<T> {
  /** The rule that applies, if any. */
  rule: T | null;
  /** Every rule that matches, the one that applies first. */
  matching: T[];
}

export class RuleMatcher {
  constructor(private readonly budgetMs = MATCH_BUDGET_MS) {}

  // One thread, started on first use: it holds the compiled patterns (memory-bounded, see pattern.ts).
  private readonly pool = new WorkerPool(() => moduleWorker(import.meta.url, './match-thread.ts', 'cdn-match-worker.cjs', null), 1);

  async match<T extends Matchable>(rules: readonly T[], uri: string): Promise<RuleMatch<T>> {
    if (rules.length === 0) return { rule: null, matching: [] };
    const call: MatchCall = { rules: rules.map(({ id, rule, ruleType, weight }) => ({ id, rule, ruleType, weight })), uri };
    let positions: number[];
    try {
      positions = await this.pool.call<number[]>({ ...call }, { timeoutMs: this.budgetMs });
    } catch (error) {
      if (error instanceof WorkerTimeout) {
        throw new AppError(
          'bad_request',
          `Matching the rules took longer than ${this.budgetMs / 1000} s and was stopped; shorten the URI or simplify the rules.`,
        );
      }
      throw error;
    }
    const matching = positions.map((position) => rules[position]);
    return { rule: matching[0] ?? null, matching };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
