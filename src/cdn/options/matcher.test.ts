import { afterAll, describe, expect, it } from 'vitest';
import { turnsDuring } from '../../../tests/support/event-loop.js';
import { AppError } from '../../platform/errors.js';
import { RuleMatcher } from './matcher.js';

const t = (id: number, rule: string, weight: number, ruleType = 0) => ({ id, rule, ruleType, weight, name: `rule ${id}` });

describe('RuleMatcher', () => {
  const matcher = new RuleMatcher();
  afterAll(() => matcher.close());

  it('answers the matching rules, the one that applies first, as the caller gave them', async () => {
    const rules = [t(1, '/img/.*', 5), t(2, '\\.png$', 1), t(3, '^/js/', 1), t(4, '/img/', 5)];
    const { rule, matching } = await matcher.match(rules, 'https://cdn.example.com/img/a.png?x=1');
    expect(rule).toBe(rules[1]);
    expect(matching).toEqual([rules[1], rules[0], rules[3]]);
    expect(await matcher.match(rules, '/css/a.css')).toEqual({ rule: null, matching: [] });
    expect(await matcher.match([], '/img/a.png')).toEqual({ rule: null, matching: [] });
  });

  it('matches in its own thread: the event loop keeps turning through rules that take half a second', async () => {
    // Each of these patterns takes RE2 about 13 ms against this path once its DFA is capped (pattern.ts).
    const rules = Array.from({ length: 40 }, (_, i) => t(i + 1, `^/(?:a?){500}a{500}(?:x${i})?$`, i + 1));
    const started = performance.now();
    const { result, turns } = await turnsDuring(() => matcher.match(rules, `/${'a'.repeat(2000)}`));
    const elapsed = performance.now() - started;
    expect(result.rule).toBeNull();
    // A turn at least every few milliseconds on average; on the event loop it would be one turn in all.
    expect(turns).toBeGreaterThan(Math.min(20, elapsed / 20));
  });

  it('stops a match past its budget with its thread, answers a 400 that says so, and matches again after', async () => {
    const hurried = new RuleMatcher(2500);
    try {
      const rules = Array.from({ length: 300 }, (_, i) => t(i + 1, `^/(?:a?){500}a{500}(?:z${i})?$`, i + 1));
      const error = await hurried.match(rules, `/${'a'.repeat(2000)}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('bad_request');
      expect((error as AppError).message).toMatch(/longer than 2.5 s/);
      expect((await hurried.match([t(1, '/img/', 1)], '/img/a.png')).rule?.id).toBe(1);
    } finally {
      await hurried.close();
    }
  });
});
