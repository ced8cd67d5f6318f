// The list filters several cloud resources share: by tag keys, by tag key-value pairs, and a page
// cut from a list filtered in memory.
import { badInput, queryField } from './errors.js';

export interface TagQuery {
  tag_key?: string[];
  tag_key_value?: string;
}

/** A predicate over a record's tags from `tag_key` (every key present) and `tag_key_value` (a JSON object). */
export function tagMatcher(query: TagQuery): (tags: Record<string, string>) => boolean {
  const keys = query.tag_key ?? [];
  const pairs = query.tag_key_value === undefined ? {} : parsePairs(query.tag_key_value);
  return (tags) => keys.every((k) => k in tags) && Object.entries(pairs).every(([k, v]) => tags[k] === v);
}

function parsePairs(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const valid = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((v) => typeof v === 'string');
  if (!valid) throw badInput([queryField('tag_key_value', 'must be a JSON object of tag keys and string values, e.g. {"env": "prod"}')]);
  return value as Record<string, string>;
}

/** One page of an in-memory list, with the total. */
export function pageOf<T>(items: T[], page: { limit: number; offset: number }): { count: number; results: T[] } {
  return { count: items.length, results: items.slice(page.offset, page.offset + page.limit) };
}
