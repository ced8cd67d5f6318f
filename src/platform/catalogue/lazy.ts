// The catalogue read piece by piece. reference/catalogue.json is written one line per schema component
// and one line per operation (scripts/catalogue/derive.ts), and reference/catalogue-lines.json (lines.ts)
// gives the byte range of each, in the route index's order. So the server parses a component, or an
// operation's parameters, bodies and responses, when something first reads them, from bytes read at
// that moment: a cold JSON.parse of the whole 1.4 MB took 18-34 ms of the catalogue engine's first
// request, and one request reads a few dozen of its 3,000 lines. Nor is the whole file read: 1.4 MB
// read into a new buffer and decoded into a string took 15-20 ms on a 2-core VM, most of it the kernel
// giving both fresh pages (reading the same file again took as long).
//
// The objects are the parsed document's: the same keys in the same order. An operation is a proxy over a
// plain object whose unread values are a placeholder the proxy replaces when the value is first asked
// for; the record of components is a proxy over Maps (lazyRecord). (Getters defined per key were the
// obvious alternative: defining 6,000 of them took longer than the parse.)
// Each entry read is checked against what the index says is there (the component's name, the
// operation's method and id): a file edited without deriving the index again fails loudly.
import fs from 'node:fs';
import type { Catalogue, CatalogueOperation, Json, JsonSchema } from './types.js';
import type { RouteEntry } from './routes.js';
import { type CatalogueLines, componentPrefix, isOperationLine } from './lines.js';

/** Operation keys read from the line itself, when first asked for. */
const LINE_KEYS = ['parameters', 'requestBody', 'responses', 'tags'] as const;
/** Marks a value not read yet. */
const UNREAD = Symbol('unread');

/** Bytes of the catalogue by position: the open file, or a text in memory (tests). */
export interface ByteSource {
  readonly size: number;
  /** Copies the bytes from `position` into `into`, as many as fit; returns how many. */
  read(into: Buffer, position: number): number;
}

/**
 * The file at `path`, kept open for the life of the process once a catalogue reads from it (a file
 * replaced meanwhile does not mix versions); `close` when it is not used.
 */
export function fileSource(path: string): ByteSource & { close(): void } {
  const fd = fs.openSync(path, 'r');
  return { size: fs.fstatSync(fd).size, read: (into, position) => fs.readSync(fd, into, 0, into.length, position), close: () => fs.closeSync(fd) };
}

export function textSource(text: string): ByteSource {
  const bytes = Buffer.from(text, 'utf8');
  return { size: bytes.length, read: (into, position) => bytes.copy(into, 0, position) };
}

/** The catalogue of `source`, parsed on demand where `lines` says each entry is; undefined when `lines` does not index a file of this size and these routes. */
export function lazyCatalogue(source: ByteSource, lines: CatalogueLines, routes: readonly RouteEntry[]): Catalogue | undefined {
  if (lines.size !== source.size || lines.operationRanges.length !== routes.length * 2 || lines.componentRanges.length !== lines.components.length * 2)
    return undefined;
  const textOf = (start: number, end: number): string => {
    const bytes = Buffer.allocUnsafe(end - start);
    if (start < 0 || source.read(bytes, start) !== bytes.length) throw new Error('reference catalogue: the file is shorter than its index says');
    return bytes.toString('utf8');
  };
  const stale = (what: string) =>
    new Error(`reference catalogue: ${what} is not where reference/catalogue-lines.json says (run npx tsx scripts/catalogue-routes.ts)`);
  const readSchema = (name: string, at: number): JsonSchema => {
    const prefix = componentPrefix(name);
    const text = textOf(lines.componentRanges[at * 2], lines.componentRanges[at * 2 + 1]);
    if (!text.startsWith(prefix)) throw stale(`component ${name}`);
    return JSON.parse(text.slice(prefix.length)) as JsonSchema;
  };
  const deprecated = new Set(lines.deprecated);
  const operations = routes.map((route, i) => {
    const readLine = () => {
      const text = textOf(lines.operationRanges[i * 2], lines.operationRanges[i * 2 + 1]);
      if (isOperationLine(text, route) !== (deprecated.has(i) ? 'deprecated' : 'current')) throw stale(`operation ${route.operationId}`);
      return JSON.parse(text) as Record<string, Json>;
    };
    return operationOf(readLine, route, deprecated.has(i));
  });
  const components = { schemas: lazyRecord(lines.components, readSchema) };
  return { ...lines.head, components, operations } as unknown as Catalogue;
}

/** The operation `route` names, whose line `readLine` parses when first needed. */
function operationOf(readLine: () => Record<string, Json>, route: RouteEntry, deprecated: boolean): CatalogueOperation {
  // Keys in the order the line has them (sorted), so the object serialises as the file does.
  const op: Record<string, unknown> = {};
  if (deprecated) op.deprecated = true;
  op.method = route.method;
  op.operationId = route.operationId;
  op.parameters = UNREAD;
  op.path = route.path;
  op.product = route.product;
  if (route.public) op.public = true;
  // Whether the operation has a body is known once its line is read: asking for the key or listing the keys reads it.
  op.requestBody = UNREAD;
  op.responses = UNREAD;
  op.tags = UNREAD;
  const read = () => {
    const parsed = readLine();
    for (const key of LINE_KEYS) {
      if (op[key] !== UNREAD) continue;
      if (key in parsed) op[key] = parsed[key];
      else delete op[key];
    }
  };
  return readOnDemand(op, read) as unknown as CatalogueOperation;
}

/**
 * A record of `names`, in that order, whose values `read` makes when first asked for. Its keys are not
 * properties of an object until read: adding 2,000 keys to an object one by one took 6 ms of the
 * catalogue engine's first request (each key a new hidden class, then a dictionary), against well
 * under a millisecond for the Map. Values written into it replace the read ones.
 */
function lazyRecord<T>(names: readonly string[], read: (name: string, at: number) => T): Record<string, T> {
  const at = new Map<string, number>();
  names.forEach((name, i) => at.set(name, i));
  const values = new Map<string, T>();
  const valueOf = (name: string): T => {
    let value = values.get(name);
    if (value === undefined) values.set(name, (value = read(name, at.get(name)!)));
    return value;
  };
  const named = (key: string | symbol): key is string => typeof key === 'string' && at.has(key);
  return new Proxy({} as Record<string, T>, {
    get: (object, key) => (named(key) ? valueOf(key) : Reflect.get(object, key)),
    set(object, key, value) {
      if (!named(key)) return Reflect.set(object, key, value);
      values.set(key, value);
      return true;
    },
    has: (object, key) => named(key) || Reflect.has(object, key),
    // The keys are reported configurable, so the empty (extensible) target keeps the proxy's invariants.
    getOwnPropertyDescriptor: (object, key) =>
      named(key) ? { value: valueOf(key), writable: true, enumerable: true, configurable: true } : Reflect.getOwnPropertyDescriptor(object, key),
    ownKeys: () => [...names],
  });
}

/**
 * `target` behind a proxy that calls `read(key)` before anything sees a key whose value is UNREAD;
 * `read` replaces it or deletes the key, so listing the keys reads them all first.
 */
function readOnDemand<T extends Record<string, unknown>>(target: T, read: (key: string) => void): T {
  const settle = (key: string | symbol) => {
    if (typeof key === 'string' && target[key] === UNREAD) read(key);
  };
  return new Proxy(target, {
    get(object, key) {
      settle(key);
      return Reflect.get(object, key);
    },
    has(object, key) {
      settle(key);
      return Reflect.has(object, key);
    },
    getOwnPropertyDescriptor(object, key) {
      settle(key);
      return Reflect.getOwnPropertyDescriptor(object, key);
    },
    ownKeys(object) {
      for (const key of Object.keys(object)) settle(key);
      return Reflect.ownKeys(object);
    },
  });
}
