// The path matcher must find what Fastify's router (find-my-way, with the server's options) finds: the
// same pattern and the same decoded parameters, or nothing where the router finds nothing or refuses the
// target. Compared over every reference path (overlapping patterns included, so precedence is exercised)
// and, for each, targets mutated the ways clients and fuzzers send them.
import FindMyWay from 'find-my-way';
import { describe, expect, it } from 'vitest';
import { fastifyPath, readRouteIndex } from './catalogue/routes.js';
import { operationKey, ROUTER_OPTIONS } from './http.js';
import { overlap, PathMatcher, PatternTree } from './path-matcher.js';

const PARAM_VALUES = ['abc', '', '42', 'a%20b', 'a%2Fb', 'caf%C3%A9', 'a%25b', '%3A', 'x'.repeat(500), 'x'.repeat(501), 'available_names', 'UPPER'];

/** Targets for one pattern: each parameter given each value, and the static segments mutated. */
function targetsFor(pattern: string): string[] {
  const targets = new Set<string>();
  for (const value of PARAM_VALUES) targets.add(pattern.replace(/:[^/]+/g, value));
  const plain = pattern.replace(/:[^/]+/g, 'p1');
  targets.add(`${plain}/`);
  targets.add(`${plain}//`);
  targets.add(`${plain}?a=1&b=/x`);
  targets.add(`${plain}#frag`);
  targets.add(`${plain}/extra`);
  targets.add(plain.replace(/\/[^/]+$/, ''));
  targets.add(plain.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`));
  targets.add(plain.replace(/[a-z]/, (c) => c.toUpperCase()));
  targets.add(plain.replace(/\//, '//'));
  targets.add(`http://example.test${plain}`);
  targets.add(`${plain}%ZZ`);
  return [...targets];
}

describe('the path matcher', () => {
  it('finds what find-my-way finds, over every reference path and mutated targets', () => {
    const router = FindMyWay<never>({ ...ROUTER_OPTIONS, onBadUrl: () => undefined, onMaxParamLength: () => undefined });
    const matcher = new PathMatcher<string>(ROUTER_OPTIONS.maxParamLength);
    const keys = new Set<string>();
    const patterns: { method: string; url: string }[] = [];
    for (const entry of readRouteIndex()) {
      const key = operationKey(entry.method, entry.path);
      if (keys.has(key)) continue;
      keys.add(key);
      const url = fastifyPath(entry.path);
      patterns.push({ method: entry.method, url });
      router.on(entry.method as 'GET', url, () => {}, key as never);
      matcher.add(entry.method, url, key);
    }
    expect(patterns.length).toBeGreaterThan(900);
    let compared = 0;
    const differences: string[] = [];
    for (const { method, url } of patterns) {
      for (const target of targetsFor(url)) {
        const found = router.find(method as 'GET', target);
        const expected = found?.store ? { value: found.store as unknown as string, params: { ...found.params } } : null;
        const actual = matcher.match(method, target);
        compared += 1;
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          differences.push(`${method} ${target}: ${JSON.stringify(actual)?.slice(0, 200)} != ${JSON.stringify(expected)?.slice(0, 200)}`);
        }
      }
    }
    expect(compared).toBeGreaterThan(15_000);
    expect(differences.slice(0, 20)).toEqual([]);
  });

  it('refuses a pattern outside what it matches as find-my-way does', () => {
    const matcher = new PathMatcher<number>(100);
    expect(() => matcher.add('GET', '/a/:id(^\\d+)', 1)).toThrow(/unsupported/);
    expect(() => matcher.add('GET', '/files/*', 1)).toThrow(/unsupported/);
    expect(() => matcher.add('GET', '/a/:x-:y', 1)).toThrow(/unsupported/);
    expect(() => matcher.add('GET', '/a/:x/b.json', 1)).not.toThrow();
  });
});

describe('patterns that overlap', () => {
  it('patterns overlap when some path matches both: a parameter meets anything, a wildcard takes the rest', () => {
    expect(overlap('/a/:p/:r/:id', '/a/:x/:y/available_names')).toBe(true);
    expect(overlap('/a/static/:x', '/a/:y/fixed')).toBe(true);
    expect(overlap('/a/b', '/a/c')).toBe(false);
    expect(overlap('/a/:p', '/a/:p/b')).toBe(false);
    expect(overlap('/a/:p/', '/a/x')).toBe(true);
    expect(overlap('/console/*', '/console/a/b')).toBe(true);
    expect(overlap('/console/*', '/other/a')).toBe(false);
  });

  it('a tree of patterns answers as comparing each pair does, over the reference paths', () => {
    const routes = readRouteIndex().filter((e) => e.method === 'GET');
    const registered = routes.filter((_, i) => i % 3 === 0).map((e) => fastifyPath(e.path));
    registered.push('/console/*', '/');
    const tree = new PatternTree();
    for (const url of registered) tree.add(url);
    let overlapping = 0;
    for (const route of routes) {
      const expected = registered.some((url) => overlap(url, route.path));
      expect(tree.overlaps(route.path), route.path).toBe(expected);
      if (expected) overlapping += 1;
    }
    expect(overlapping).toBeGreaterThan(routes.length / 3);
    expect(overlapping).toBeLessThan(routes.length);
  });
});
