// Names read off paths: version segments, the words of a path normalised so that `/cloud/v2/security_groups`
// and `/cloud/v1/securitygroups` name the same collection, singular forms for task types.

const VERSION = /^v\d+$/;

export const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');
export const paramName = (segment: string) => segment.slice(1, -1);
export const isVersion = (segment: string) => VERSION.test(segment);

/** Lower case without separators: `security_groups`, `security-groups` and `securitygroups` are one word. */
export const normalWord = (word: string) => word.toLowerCase().replace(/[_-]/g, '');

/** A path pattern (`{name}` or `{}` parameters) with its values in order, each encoded as a segment. */
export function fillPath(pattern: string, values: readonly string[]): string {
  let i = 0;
  return pattern.replace(/\{[^}]*\}/g, () => encodeURIComponent(values[i++] ?? ''));
}

/** Path segments after the leading slash. */
export const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

/**
 * The normalised form of a path: version segments dropped, words normalised, parameters as `{}`.
 * Two operations whose paths normalise alike act on the same thing.
 */
export function normalPattern(segments: string[]): string {
  return segments
    .filter((s) => !isVersion(s))
    .map((s) => (isParam(s) ? '{}' : normalWord(s)))
    .join('/');
}

/** English plural to singular, for the regular forms path words use. */
export function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/ses$/.test(word) && !/(ases|uses)$/.test(word)) return word.slice(0, -1);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** snake_case of a path word (`lblisteners` stays, `security-groups` becomes `security_groups`). */
export const snake = (word: string) =>
  word
    .replace(/-/g, '_')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase();

/** Scope parameters: they place a resource (project, region, client) rather than name it. */
export const SCOPE_PARAMS = new Set(['project_id', 'region_id']);
