// The path rule of a rule (template or resource rule): how it is checked and how a request path is
// matched against it. ruleType 0 is a regular expression that must start with "/" or "^/"; ruleType 1
// (legacy) is a regular expression with "/" put before it. Matching follows nginx's regex locations:
// unanchored unless the pattern anchors itself, case-sensitive, against the path without the query.
//
// Patterns come from clients, so they run on RE2 (re2js): matching time is linear in the path, whatever
// the pattern (`^/(a+)+$` against 30 characters took 14.6 s on a backtracking engine). RE2 reads the
// PCRE syntax nginx uses, except what needs backtracking: backreferences, lookarounds, atomic groups and
// possessive quantifiers. Those are refused when the rule is written, with a message saying so.
import { RE2JS } from 're2js';
import { SLICE_MS, TimeSlicer } from '../../platform/cooperative.js';
import { bodyField, type FieldError } from '../../platform/errors.js';

/** The regular expression a rule stands for. */
export function rulePattern(rule: string, ruleType: number): string {
  return ruleType === 1 ? `/${rule}` : rule;
}

// PCRE's `\Z` (end, or before a final newline) is `\z` for a path, which holds no newline.
const toRe2 = (pattern: string) => pattern.replace(/(?<!\\)((?:\\\\)*)\\Z/g, '$1\\z');

/** PCRE constructs a linear-time engine cannot run, by what the pattern's text shows. */
const BACKTRACKING_ONLY: [RegExp, string][] = [
  [/\\[1-9]|\\k[<{']|\(\?P=/, 'backreferences'],
  [/\(\?<?[=!]/, 'lookahead or lookbehind'],
  [/\(\?>/, 'atomic groups'],
  [/(?<!\\)[*+?}]\+/, 'possessive quantifiers'],
];

/** Why RE2 cannot compile a pattern, or null when it can. */
function compileProblem(pattern: string): string | null {
  try {
    RE2JS.compile(toRe2(pattern));
    return null;
  } catch (error) {
    const unsupported = BACKTRACKING_ONLY.filter(([test]) => test.test(pattern)).map(([, what]) => what);
    if (unsupported.length > 0) {
      return `The rule uses ${unsupported.join(', ')}, which the linear-time matcher cannot run; write the pattern without them`;
    }
    return `The rule is not a valid regular expression (${(error as Error).message.replace(/^error parsing regexp: /, '')})`;
  }
}

export function ruleErrors(rule: string, ruleType: number): FieldError[] {
  if (ruleType === 0 && !(rule.startsWith('/') || rule.startsWith('^/'))) {
    return [bodyField(['rule'], 'With ruleType 0 the rule must start with "/" or "^/"')];
  }
  const problem = compileProblem(rulePattern(rule, ruleType));
  return problem ? [bodyField(['rule'], problem)] : [];
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

// Compiled patterns by source: matching runs over every rule of a client or resource on each call, and
// the same patterns come back call after call. Bounded so a flood of distinct rules cannot grow it forever.
const compiled = new Map<string, RE2JS | null>();
const COMPILED_MAX = 10_000;

function compile(pattern: string): RE2JS | null {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = compileProblem(pattern) === null ? RE2JS.compile(toRe2(pattern)) : null;
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Whether a rule's pattern matches a request path (a pattern that cannot compile matches nothing). */
export function ruleMatches(rule: string, ruleType: number, path: string): boolean {
  return compile(rulePattern(rule, ruleType))?.test(path) === true;
}

/**
 * The rule that applies to a URI: among those whose pattern matches, the earliest in the order (lowest
 * weight; equal weights fall back to the older rule, the lower id).
 */
export async function matchRule<T extends Matchable>(rules: T[], uri: string): Promise<{ rule: T | null; matching: T[] }> {
  const path = requestPath(uri);
  // Each match is linear in the path, but a client's hundreds of rules against a long path add up to
  // tens of milliseconds: other requests get a turn between slices of them.
  const slicer = new TimeSlicer(SLICE_MS, 1);
  const matching: T[] = [];
  for (const rule of rules) {
    if (ruleMatches(rule.rule, rule.ruleType, path)) matching.push(rule);
    if (slicer.spent()) await slicer.nextSlice();
  }
  matching.sort((a, b) => a.weight - b.weight || a.id - b.id);
  return { rule: matching[0] ?? null, matching };
}
