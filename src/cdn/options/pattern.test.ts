import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compiledPatternBytes, DFA_BYTES, matchingRules, requestPath, ruleErrors, ruleMatches, rulePattern } from './pattern.js';

describe('ruleErrors', () => {
  it('ruleType 0 must start with / or ^/', () => {
    expect(ruleErrors('/img/.*', 0)).toEqual([]);
    expect(ruleErrors('^/img/.*', 0)).toEqual([]);
    expect(ruleErrors('img/.*', 0).map((e) => e.path)).toEqual([['rule']]);
  });
  it('ruleType 1 has / put before it', () => {
    expect(rulePattern('img/.*', 1)).toBe('/img/.*');
    expect(ruleErrors('img/.*', 1)).toEqual([]);
  });
  it('refuses invalid regular expressions', () => {
    expect(ruleErrors('/(abc', 0)[0].message).toMatch(/not a valid regular expression/);
    expect(ruleErrors('[a', 1)[0].message).toMatch(/not a valid regular expression/);
  });
  it('accepts the PCRE forms nginx users write that RE2 reads', () => {
    for (const rule of [
      '/.*\\.(jpe?g|png)$',
      '^/(?i)images/',
      '/(?P<dir>[^/]+)/',
      '/(?<dir>[^/]+)/',
      '/[[:alpha:]]+/',
      '/\\d{2,4}/',
      '/a\\z',
      '/a\\Z',
      '/folder/images/*.png',
    ]) {
      expect(ruleErrors(rule, 0), rule).toEqual([]);
    }
  });
  it.each([
    ['/(a)\\1', 'backreferences'],
    ['/(?=a)b', 'lookahead or lookbehind'],
    ['/(?!a)b', 'lookahead or lookbehind'],
    ['/(?<=a)b', 'lookahead or lookbehind'],
    ['/(?<!a)b', 'lookahead or lookbehind'],
    ['/(?>a+)b', 'atomic groups'],
    ['/a++b', 'possessive quantifiers'],
  ])('refuses %s, which needs backtracking, naming why', (rule, why) => {
    const [error] = ruleErrors(rule, 0);
    expect(error.path).toEqual(['rule']);
    expect(error.message).toContain(why);
    expect(error.message).toMatch(/linear-time/);
  });
});

describe('matching', () => {
  const t = (id: number, rule: string, weight: number, ruleType = 0) => ({ id, rule, ruleType, weight });

  it('applies the matching rule with the lowest weight', () => {
    const rules = [t(1, '/img/', 20), t(2, '\\.png$', 10), t(3, '/css/', 1)];
    expect(matchingRules(rules, '/img/a.png')[0]?.id).toBe(2);
    expect(matchingRules(rules, '/img/a.jpg')[0]?.id).toBe(1);
    expect(matchingRules(rules, '/js/a.js')).toEqual([]);
  });
  it('breaks equal weights by the older rule', () => {
    expect(matchingRules([t(5, '/a', 3), t(4, '/a', 3)], '/a').map((m) => m.id)).toEqual([4, 5]);
  });
  it('anchors only where the pattern does, and applies the ruleType 1 slash', () => {
    expect(matchingRules([t(1, '^/a', 1)], '/x/a')).toEqual([]);
    expect(matchingRules([t(1, '/a', 1)], '/x/a')[0]?.id).toBe(1);
    expect(matchingRules([t(1, 'a/b', 1, 1)], '/a/b')[0]?.id).toBe(1);
    expect(matchingRules([t(1, 'a/b', 1, 1)], '/xa/b')).toEqual([]);
  });
  it('is case-sensitive unless the pattern says (?i), and reads \\Z as the end', () => {
    expect(ruleMatches('/Images/', 0, '/images/a')).toBe(false);
    expect(ruleMatches('(?i)/Images/', 0, '/images/a')).toBe(true);
    expect(ruleMatches('/a\\Z', 0, '/x/a')).toBe(true);
    expect(ruleMatches('/a\\Z', 0, '/x/ab')).toBe(false);
  });
  it('matches the path only', () => {
    expect(requestPath('https://cdn.example.com/a/b.png?x=1#f')).toBe('/a/b.png');
    expect(requestPath('a/b?x=/c')).toBe('/a/b');
    expect(matchingRules([t(1, '\\?', 1)], '/a?b')).toEqual([]);
  });
  it('takes linear time on a pattern that is exponential for a backtracking engine', () => {
    // ^/(a+)+$ against "/aaa...a!" took 14.6 s for 30 characters on JavaScript's own engine.
    const started = performance.now();
    for (const length of [30, 1000, 8000]) expect(ruleMatches('^/(a+)+$', 0, `/${'a'.repeat(length)}!`)).toBe(false);
    expect(ruleMatches('^/(a+)+$', 0, `/${'a'.repeat(30)}`)).toBe(true);
    // Milliseconds here; a backtracking engine needs seconds for the 30 characters alone. The bound is loose
    // so that a loaded machine does not fail it.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
  it("caps what each pattern's DFA holds, and counts it in the cache's budget", () => {
    // Uncapped, each of these patterns built about 4 MiB of DFA states against this path (re2js allows
    // 8 MiB a pattern), and the cache kept them all: 430 MiB for one client's 100 rules.
    // The flag puts `gc` on contexts made after it; it is turned off again at once, since the test files
    // of a worker share one process (vitest.config.ts) and the next file must see the process as started.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    const rules = Array.from({ length: 40 }, (_, i) => t(i + 1, `^/(?:a?){500}a{500}(?:y${i})?$`, i + 1));
    gc();
    const before = process.memoryUsage().heapUsed;
    const counted = compiledPatternBytes();
    expect(matchingRules(rules, `/${'a'.repeat(800)}`)[0]?.id).toBe(1);
    gc();
    const kept = process.memoryUsage().heapUsed - before;
    expect(kept).toBeLessThan(60 * 1024 * 1024); // uncapped: about 175 MiB
    // Each pattern's program (about 230 KiB) and the states matching built are counted.
    const perPattern = (compiledPatternBytes() - counted) / rules.length;
    expect(perPattern).toBeGreaterThan(300 * 1024);
    expect(perPattern).toBeLessThan(240 * 1024 + DFA_BYTES + 4096);
    expect(ruleMatches(rules[39].rule, 0, `/${'a'.repeat(500)}y39`)).toBe(true);
  });
  it('keeps compiled patterns within a memory budget, compiling again the ones it let go', () => {
    // About 320 KiB of program each: 250 of them are past the 64 MiB the cache keeps.
    const patterns = Array.from({ length: 250 }, (_, i) => `^/[a-z0-9]{1,1000}(?:z${i})?$`);
    for (const pattern of patterns) expect(ruleMatches(pattern, 0, '/abc')).toBe(true);
    expect(compiledPatternBytes()).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(compiledPatternBytes()).toBeGreaterThan(48 * 1024 * 1024);
    expect(ruleMatches(patterns[0], 0, '/abcz0')).toBe(true);
    expect(ruleMatches(patterns[0], 0, '/ab-c')).toBe(false);
  });
});
