// The rule path of a template: how it is checked and how a request URI is matched against it.
// ruleType 0 is a regular expression that must start with "/" or "^/"; ruleType 1 (legacy) is a regular
// expression with "/" put before it. Matching follows nginx's regex locations: unanchored unless the
// pattern anchors itself, case-sensitive, against the path without the query string.
import { bodyField, type FieldError } from '../../platform/errors.js';
import { isValidRegex } from './options-rules.js';

/** The regular expression a rule stands for. */
export function rulePattern(rule: string, ruleType: number): string {
  return ruleType === 1 ? `/${rule}` : rule;
}

export function ruleErrors(rule: string, ruleType: number): FieldError[] {
  if (ruleType === 0 && !(rule.startsWith('/') || rule.startsWith('^/'))) {
    return [bodyField(['rule'], 'With ruleType 0 the rule must start with "/" or "^/"')];
  }
  return isValidRegex(rulePattern(rule, ruleType)) ? [] : [bodyField(['rule'], 'The rule is not a valid regular expression')];
}

export interface Matchable {
  id: number;
  rule: string;
  ruleType: number;
  weight: number;
}

/** Path part of a request URI: no scheme or host, no query string or fragment. */
export function requestPath(uri: string): string {
  const withoutOrigin = uri.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const path = withoutOrigin.split(/[?#]/)[0];
  return path.startsWith('/') ? path : `/${path}`;
}

// Compiled patterns by source: matching runs over every template of a client on each call, and the
// same patterns come back call after call. Bounded so a flood of distinct rules cannot grow it forever.
const compiled = new Map<string, RegExp | null>();
const COMPILED_MAX = 10_000;

function compile(pattern: string): RegExp | null {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = isValidRegex(pattern) ? new RegExp(pattern) : null;
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/**
 * The template that applies to a URI: among those whose pattern matches, the earliest in the order
 * (lowest weight; equal weights fall back to the older template, the lower id).
 */
export function matchTemplate<T extends Matchable>(templates: T[], uri: string): { template: T | null; matching: T[] } {
  const path = requestPath(uri);
  const matching = templates
    .filter((t) => compile(rulePattern(t.rule, t.ruleType))?.test(path) === true)
    .sort((a, b) => a.weight - b.weight || a.id - b.id);
  return { template: matching[0] ?? null, matching };
}
