// JSON text as a client sent it, checked before its value reaches a route: how deep it nests, whether
// it may hold what no store can keep, whether it poisons a prototype; and, for a large body, all of that
// with the parse and the pruning of undeclared members in one call (checkJsonText), which the thread of
// json-body-thread.ts runs so the main thread never parses what it would refuse or drop.
// Pure, importing only body-shape.ts: the thread's bundle stays small.
import { type BodyShape, pruneUndeclared } from './body-shape.js';

/**
 * How deep a JSON body may nest. No operation's body nests past a dozen levels; a body nested thousands
 * deep (a few kilobytes of brackets) would overflow the stack of every recursive walk after the parse
 * (validation, copying, hashing), so it is refused before parsing.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Digits of a number literal's run past which its value may be infinite: with an exponent of two digits
 * (below), 200 digits stay below 1e299 (1.8e308 overflows; 250 digits and e99 did).
 */
const MANTISSA_DIGITS = 200;
/** Exponent digits past which a number literal may be infinite. */
const EXPONENT_DIGITS = 2;

/**
 * Items the arrays of a client's body may hold in all. No operation's arrays declare more than 1,000 (the
 * reference's largest bound is 600); validation checks every item of an array even past its bound, and an
 * array of 400,000 wrong items held the event loop for seconds, so a body with more is refused before
 * parsing. Counted in all, not per array, so that many arrays nested in one another add up too.
 */
export const MAX_ARRAY_ITEMS = 10_000;

export interface JsonScan {
  /** Arrays and objects nest deeper than the limit. */
  tooDeep: boolean;
  /** The arrays hold more than MAX_ARRAY_ITEMS items in all. */
  tooLong: boolean;
  /**
   * No `\u0000` escape and no number literal long enough to overflow: the parsed value holds neither a
   * NUL character nor a non-finite number, and validation need not walk it for them (a walk of a 1 MB
   * body was 4 ms of the main thread).
   */
  storable: boolean;
  /** Commas between array items (the items, less one per array), counted up to MAX_ARRAY_ITEMS. */
  items: number;
}

/** One pass over JSON text before it is parsed: its nesting depth, its array items and what it may hold (strings skipped, escapes honoured). */
export function scanJson(text: string, limit: number): JsonScan {
  const found: JsonScan = { tooDeep: false, tooLong: false, storable: true, items: 0 };
  let depth = 0;
  let inString = false;
  let digits = 0;
  let exponent = false;
  /** For each open container, by depth: whether it is an array. */
  const arrays: boolean[] = [];
  /** Commas between array items so far (items, less one per array). */
  let items = 0;
  for (let i = 0; i < text.length && !found.tooDeep; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        // A backslash: \u0000 is a NUL character; the escaped character is skipped either way.
        if (text.charCodeAt(i + 1) === 0x75 && text.startsWith('0000', i + 2)) found.storable = false;
        i += 1;
      } else if (c === 0x22) inString = false;
    } else if (c >= 0x30 && c <= 0x39) {
      digits += 1;
      if (digits > (exponent ? EXPONENT_DIGITS : MANTISSA_DIGITS)) found.storable = false;
    } else if (c === 0x65 || c === 0x45) {
      exponent = true;
      digits = 0;
    } else if (c !== 0x2b && c !== 0x2d) {
      digits = 0;
      exponent = false;
      if (c === 0x22) inString = true;
      else if (c === 0x5b || c === 0x7b) {
        depth += 1;
        if (depth > limit) found.tooDeep = true;
        else arrays[depth] = c === 0x5b;
      } else if (c === 0x5d || c === 0x7d) depth -= 1;
      else if (c === 0x2c && arrays[depth] && ++items >= MAX_ARRAY_ITEMS) found.tooLong = true;
    }
  }
  found.items = items;
  return found;
}

/** Text that may hold a `__proto__` or `constructor` key, spelled out or escaped (then the parsed value is checked). */
const MAY_POISON = /__proto__|constructor|\\u00/i;

/**
 * A `__proto__` key (JSON.parse keeps it as an own key) or a `constructor` object with a `prototype`:
 * what Fastify's parser refuses ('error' for both). Walked without recursion: the value may nest to the
 * depth limit and be wide.
 */
function holdsPrototypeKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    if (Object.getPrototypeOf(node) !== Object.prototype || Object.hasOwn(node, '__proto__')) return true;
    const record = node as Record<string, unknown>;
    const made = record.constructor;
    if (Object.hasOwn(record, 'constructor') && made !== null && typeof made === 'object' && Object.hasOwn(made, 'prototype')) return true;
    for (const key of Object.keys(record)) pending.push(record[key]);
  }
  return false;
}

/** What checkJsonText found: why the text is refused, or what the caller parses. */
export type JsonCheck =
  | { refused: 'too-deep' | 'too-long' | 'prototype' }
  | { refused: 'syntax'; message: string }
  | {
      refused?: undefined;
      /** As JsonScan.storable: neither a NUL character nor a non-finite number anywhere in the value. */
      storable: boolean;
      /** The text to parse: the value without its undeclared members, as JSON, when there were any; else the text itself. */
      parse: string;
    };

/**
 * Every check of a JSON body, and the pruning of what its route does not declare. A value that may not
 * be storable is not pruned: validation refuses a NUL or an infinite number wherever it is, declared or not.
 */
export function checkJsonText(text: string, shape: BodyShape | null): JsonCheck {
  // Nothing but white space is no body (see json-body.ts).
  if (text.trim() === '') return { storable: true, parse: '' };
  const scan = scanJson(text, MAX_JSON_DEPTH);
  if (scan.tooDeep) return { refused: 'too-deep' };
  if (scan.tooLong) return { refused: 'too-long' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { refused: 'syntax', message: (error as Error).message };
  }
  if (MAY_POISON.test(text) && holdsPrototypeKey(value)) return { refused: 'prototype' };
  if (!scan.storable || !shape || !pruneUndeclared(value, shape)) return { storable: scan.storable, parse: text };
  return { storable: true, parse: JSON.stringify(value) };
}
