// How the cloud API prints times and tags.

/** ISO 8601 date-time without zone designator, as task records carry it ("2026-07-01T13:37:14"). */
export function plainTime(ms: number | null): string | null {
  return ms == null ? null : new Date(Number(ms)).toISOString().slice(0, 19);
}

/** ISO 8601 date-time in UTC with offset, for the fields the reference types as `date-time`. */
export function zonedTime(ms: number): string {
  return new Date(Number(ms)).toISOString().replace('Z', '+00:00');
}

export interface Tag {
  key: string;
  value: string;
  read_only: boolean;
}

/** Request tags are a `{key: value}` map; records list them as `[{key, value, read_only}]`. */
export function tagList(tags: Record<string, string> | null | undefined): Tag[] {
  return Object.entries(tags ?? {}).map(([key, value]) => ({ key, value: String(value), read_only: false }));
}

/** Applies a tags merge patch: a value sets a key, null removes it; a null patch removes every tag. */
export function patchTags(current: Record<string, string>, patch: Record<string, string | null> | null | undefined): Record<string, string> {
  if (patch === undefined) return current;
  if (patch === null) return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
