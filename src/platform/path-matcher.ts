// A router for many path patterns that costs next to nothing to build: patterns are kept as their
// segments, by method and segment count, and a request is compared with the few of its shape. Used where
// hundreds of operations share one Fastify route (the catalogue engine's wildcard): find-my-way, Fastify's
// router, takes about 30 us to add a route (30 ms for the engine's operations, in the request that first
// needs them), this about 1 us.
//
// It matches as Fastify's router does with the server's options (path-matcher.test.ts compares the two on
// every reference path and on mutated targets): the path ends at `?` or `#`; one trailing slash is
// ignored; segments are compared after percent-decoding, a static segment exactly, a parameter taking
// any value of at most `maxParamLength` characters once decoded (empty included); where several patterns
// match, the one with a static segment where the others have a parameter, leftmost first, wins.
// Patterns are restricted to what the reference's paths use: `:name` parameters as whole segments and
// static segments of unreserved characters (a pattern outside that is refused when added). A target it
// cannot decode, or whose only fitting patterns have a parameter over the limit, matches nothing: the
// caller asks Fastify's router what it refuses (see RouteCatalogue.refusalOf).

const STATIC = /^[A-Za-z0-9_.~-]*$/;
const PARAM = /^:[A-Za-z0-9_]+$/;

/** A path's segments, without the trailing empty one of a trailing slash (which the router ignores). */
const segmentsOf = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');

interface Pattern<T> {
  /** A static segment, or undefined for a parameter. */
  segments: (string | undefined)[];
  names: string[];
  value: T;
}

export interface PathMatch<T> {
  value: T;
  params: Record<string, string>;
}

/** Patterns are kept by method, segment count and first segment (`:` for a parameter there). */
const shapeKey = (method: string, count: number, first: string | undefined) => `${method} ${count} ${first ?? ':'}`;

export class PathMatcher<T> {
  private readonly byShape = new Map<string, Pattern<T>[]>();
  private readonly none: Pattern<T>[] = [];

  constructor(private readonly maxParamLength: number) {}

  add(method: string, pattern: string, value: T): void {
    const parts = segmentsOf(pattern);
    const names: string[] = [];
    const segments = parts.map((part) => {
      if (PARAM.test(part)) {
        names.push(part.slice(1));
        return undefined;
      }
      if (!STATIC.test(part)) throw new Error(`unsupported path pattern ${pattern}: segment "${part}"`);
      return part;
    });
    const key = shapeKey(method, segments.length, segments[1]);
    const list = this.byShape.get(key) ?? [];
    list.push({ segments, names, value });
    this.byShape.set(key, list);
  }

  match(method: string, url: string): PathMatch<T> | null {
    const decoded = decodeAll(segmentsOf(pathPart(url)));
    if (!decoded) return null;
    let best: Pattern<T> | undefined;
    const staticFirst = decoded.length > 1 ? this.byShape.get(shapeKey(method, decoded.length, decoded[1])) : undefined;
    for (const candidates of [staticFirst ?? this.none, this.byShape.get(shapeKey(method, decoded.length, undefined)) ?? this.none]) {
      for (const candidate of candidates) {
        if (this.fits(candidate, decoded) && (!best || preferred(candidate, best))) best = candidate;
      }
    }
    return best ? { value: best.value, params: paramsOf(best, decoded) } : null;
  }

  private fits(pattern: Pattern<T>, decoded: string[]): boolean {
    return decoded.every((segment, i) => {
      const fixed = pattern.segments[i];
      return fixed === undefined ? segment.length <= this.maxParamLength : fixed === segment;
    });
  }
}

/** Each segment percent-decoded, or undefined for a target that is not valid percent-encoding. */
function decodeAll(segments: string[]): string[] | undefined {
  try {
    return segments.map((segment) => (segment.includes('%') ? decodeURIComponent(segment) : segment));
  } catch {
    return undefined;
  }
}

/** Static segments win over parameters, the leftmost difference deciding (as in a radix tree). */
function preferred<T>(a: Pattern<T>, b: Pattern<T>): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const aStatic = a.segments[i] !== undefined;
    if (aStatic !== (b.segments[i] !== undefined)) return aStatic;
  }
  return false;
}

function paramsOf<T>(pattern: Pattern<T>, decoded: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  let n = 0;
  pattern.segments.forEach((fixed, i) => {
    if (fixed === undefined) params[pattern.names[n++]] = decoded[i];
  });
  return params;
}

/** The path of a request target: up to `?` or `#`; an absolute-form target loses its scheme and host. */
function pathPart(url: string): string {
  let path = url;
  if (!path.startsWith('/')) {
    const scheme = path.indexOf('://');
    const slash = scheme < 0 ? -1 : path.indexOf('/', scheme + 3);
    path = slash < 0 ? '/' : path.slice(slash);
  }
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

// Whether patterns overlap: which requests two routes could both answer (the catalogue engine keeps a
// Fastify route for an operation a modelled route could also answer).

/** A parameter of a pattern in Fastify's form (`:name`, also within a segment) or the reference's (`{name}`). */
const isParam = (segment: string) => segment.includes(':') || segment.includes('{');

/** Whether some request path matches both patterns, given as segments (`*` ends a pattern and takes the rest). */
function segmentsOverlap(x: readonly string[], y: readonly string[]): boolean {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '*' || y[i] === '*') return true;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== y[i] && !isParam(x[i]) && !isParam(y[i])) return false;
  }
  return true;
}

/** Whether some request path matches both patterns (Fastify's form, or the reference's `{param}`). */
export const overlap = (a: string, b: string) => segmentsOverlap(segmentsOf(a), segmentsOf(b));

/**
 * Patterns as a tree of their segments, so that whether a pattern overlaps any of them is one walk down
 * the branches it could meet (comparing each pair took 11 ms of the start-up).
 */
export class PatternTree {
  private readonly statics = new Map<string, PatternTree>();
  private param: PatternTree | undefined;
  /** A pattern ends here. */
  private end = false;
  /** A pattern's `*` starts here: it takes any rest. */
  private wildcard = false;

  add(url: string): void {
    let node: PatternTree = this;
    for (const segment of segmentsOf(url)) {
      if (segment === '*') {
        node.wildcard = true;
        return;
      }
      if (isParam(segment)) node = node.param ??= new PatternTree();
      else {
        const next = node.statics.get(segment) ?? new PatternTree();
        node.statics.set(segment, next);
        node = next;
      }
    }
    node.end = true;
  }

  /** Whether some request path matches both this pattern and one of the tree's. */
  overlaps(url: string): boolean {
    return this.meets(segmentsOf(url), 0);
  }

  private meets(segments: string[], i: number): boolean {
    if (this.wildcard) return true;
    if (i === segments.length) return this.end;
    const segment = segments[i];
    if (this.param?.meets(segments, i + 1)) return true;
    if (!isParam(segment)) return this.statics.get(segment)?.meets(segments, i + 1) ?? false;
    for (const child of this.statics.values()) if (child.meets(segments, i + 1)) return true;
    return false;
  }
}
