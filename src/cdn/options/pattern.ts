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
import { bodyField, type FieldError } from '../../platform/errors.js';
import { LruCache } from '../../platform/lru.js';

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

/** The compiled pattern, or why RE2 cannot compile it. */
function compiledOrProblem(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(toRe2(pattern));
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
  const problem = compiledOrProblem(rulePattern(rule, ruleType));
  return typeof problem === 'string' ? [bodyField(['rule'], problem)] : [];
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
// the same patterns come back call after call. A pattern keeps the states its lazy DFA builds while
// matching: re2js lets that grow to 8 MiB a pattern, and one client's 100 rules of
// `^/(?:a?){500}a{500}` held 4 MiB each after one 2,000-character path, 430 MiB kept for good in a cache
// bounded only by its 10,000 patterns. Each pattern's DFA is now capped (past the cap re2js starts its
// states afresh, or matches without the DFA, still in linear time), and the cache is bounded by the
// memory its patterns hold.
const COMPILED_BUDGET = 64 * 1024 * 1024;
/**
 * A pattern's DFA states, at most. Ordinary rules (`^/static/.*\.(css|js)$`) build a few KiB; a pattern
 * that needs more matches slower past the cap (about 13 ms instead of 0.2 for the pattern above against 2,000
 * characters) instead of holding megabytes.
 */
export const DFA_BYTES = 256 * 1024;
/** Heap a compiled program takes per instruction (measured: 228 KiB for 1,511 instructions). */
const BYTES_PER_INSTRUCTION = 160;
const ENTRY_BYTES = 1024;

interface Compiled {
  regex: RE2JS | null;
  /** What the entry was last counted as in the cache's budget. */
  bytes: number;
}

const compiled = new LruCache<Compiled>(COMPILED_BUDGET);

/** The parts of re2js's compiled form its DFA and size are reached through (not in its typings). */
interface LazyDfa {
  maxMem: number;
  stateBudget: number;
  memBudget: number;
}
interface Re2Internals {
  re2Input?: { prog?: { numInst?: () => number }; dfa?: LazyDfa; lazyDFA?: LazyDfa | null };
}

const internalsOf = (regex: RE2JS) => (regex as unknown as Re2Internals).re2Input;

/** Caps the DFA a new pattern builds (its budget, before any state is made). */
function capDfa(regex: RE2JS): RE2JS {
  const dfa = internalsOf(regex)?.dfa;
  if (dfa && dfa.memBudget === dfa.maxMem && dfa.maxMem > DFA_BYTES) dfa.maxMem = dfa.stateBudget = dfa.memBudget = DFA_BYTES;
  return regex;
}

/**
 * Roughly the heap a compiled pattern holds: its program and its DFA's states so far (re2js counts
 * what the states cost against the DFA's budget, which tracks the heap they take).
 */
function compiledBytes(regex: RE2JS | null): number {
  if (!regex) return ENTRY_BYTES;
  const re2 = internalsOf(regex);
  const program = (re2?.prog?.numInst?.() ?? 0) * BYTES_PER_INSTRUCTION;
  const dfa = re2?.lazyDFA ? re2.lazyDFA.maxMem - re2.lazyDFA.memBudget : 0;
  return ENTRY_BYTES + program + dfa;
}

/** The cache's count of the memory its patterns hold (tests). */
export function compiledPatternBytes(): number {
  return compiled.spent;
}

function compile(pattern: string): Compiled {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    const result = compiledOrProblem(pattern);
    const regex = typeof result === 'string' ? null : capDfa(result);
    entry = { regex, bytes: compiledBytes(regex) };
    compiled.set(pattern, entry, entry.bytes);
  }
  return entry;
}

/** Whether a rule's pattern matches a request path (a pattern that cannot compile matches nothing). */
export function ruleMatches(rule: string, ruleType: number, path: string): boolean {
  const pattern = rulePattern(rule, ruleType);
  const entry = compile(pattern);
  if (!entry.regex) return false;
  const matched = entry.regex.test(path);
  // Matching may have built DFA states: the entry now holds more than it was counted as.
  const bytes = compiledBytes(entry.regex);
  if (bytes !== entry.bytes) {
    compiled.grow(pattern, bytes - entry.bytes);
    entry.bytes = bytes;
  }
  return matched;
}

/**
 * The rules whose pattern matches a request URI's path, in the order that decides which applies (the
 * first): lowest weight, equal weights falling back to the older rule, the lower id. Synchronous, and up
 * to a second for a client's hundred slowest patterns against a long path: the server runs it in a thread
 * of its own (matcher.ts).
 */
export function matchingRules<T extends Matchable>(rules: readonly T[], uri: string): T[] {
  const path = requestPath(uri);
  return rules.filter((rule) => ruleMatches(rule.rule, rule.ruleType, path)).sort((a, b) => a.weight - b.weight || a.id - b.id);
}
