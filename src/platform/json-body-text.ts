// The JSON text a client's body was parsed from, kept with the parsed value when something may check the
// body in a thread (from the text: sending the text costs the main thread a copy, sending the value a
// walk of it). Kept by the JSON parser (json-body.ts), read by the body validators (validation.ts, the
// catalogue engine's).

/**
 * A client's body whose arrays hold this many items in all keeps its JSON text with it (bodyTextOf), so
 * that what checks it can do so in a thread of its own from the text: refusing 9,000 wrong items of a
 * union took 9-13 ms of the main thread (Ajv's 36,000 errors), however small the body.
 */
export const MANY_ITEMS = 1_000;
const BODY_TEXT = Symbol('JSON text of the body');

/** Keeps `text`, which parses to `value`, with it (a hidden key; a value that is no object keeps nothing). */
export function keepBodyText(value: unknown, text: string): void {
  if (value !== null && typeof value === 'object') Object.defineProperty(value, BODY_TEXT, { value: text });
}

/** The JSON text a large body, or one of many items, was parsed from (see MANY_ITEMS). */
export function bodyTextOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? (value as Record<symbol, string | undefined>)[BODY_TEXT] : undefined;
}
