import { describe, expect, it } from 'vitest';
import { matchTemplate, requestPath, ruleErrors, rulePattern } from './rule-match.js';

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
    expect(ruleErrors('/(abc', 0)[0].message).toMatch(/regular expression/);
    expect(ruleErrors('[a', 1)[0].message).toMatch(/regular expression/);
  });
});

describe('matchTemplate', () => {
  const t = (id: number, rule: string, weight: number, ruleType = 0) => ({ id, rule, ruleType, weight });

  it('applies the matching template with the lowest weight', () => {
    const templates = [t(1, '/img/', 20), t(2, '\\.png$', 10), t(3, '/css/', 1)];
    expect(matchTemplate(templates, '/img/a.png').template?.id).toBe(2);
    expect(matchTemplate(templates, '/img/a.jpg').template?.id).toBe(1);
    expect(matchTemplate(templates, '/js/a.js').template).toBeNull();
  });
  it('breaks equal weights by the older template', () => {
    expect(matchTemplate([t(5, '/a', 3), t(4, '/a', 3)], '/a').matching.map((m) => m.id)).toEqual([4, 5]);
  });
  it('anchors only where the pattern does, and applies the ruleType 1 slash', () => {
    expect(matchTemplate([t(1, '^/a', 1)], '/x/a').template).toBeNull();
    expect(matchTemplate([t(1, '/a', 1)], '/x/a').template?.id).toBe(1);
    expect(matchTemplate([t(1, 'a/b', 1, 1)], '/a/b').template?.id).toBe(1);
    expect(matchTemplate([t(1, 'a/b', 1, 1)], '/xa/b').template).toBeNull();
  });
  it('matches the path only', () => {
    expect(requestPath('https://cdn.example.com/a/b.png?x=1#f')).toBe('/a/b.png');
    expect(requestPath('a/b?x=/c')).toBe('/a/b');
    expect(matchTemplate([t(1, '\\?', 1)], '/a?b').template).toBeNull();
  });
});
