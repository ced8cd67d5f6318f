// The catalogue read piece by piece. reference/catalogue.json is written one line per schema component
// and one line per operation (scripts/catalogue/derive.ts), and the route index lists the operations in
// the same order with their method, path, id, product and public flag. So the server can split the text
// into lines and parse a component or an operation's parameters, bodies and responses when something
// first reads them: a cold JSON.parse of the whole 1.4 MB took 18-34 ms of the catalogue engine's first
// request, and one request reads a few dozen of its 3,000 lines.
//
// The objects are the parsed document's: the same keys in the same order, as proxies over plain objects
// whose unread values are a placeholder the proxy replaces when the value is first asked for. (Getters
// defined per key were the obvious alternative: defining 6,000 of them took longer than the parse.)
// Any line that does not have the expected layout (a hand-edited file, an index out of step) makes the
// reader give up, and the caller parses the whole text.
import type { Catalogue, CatalogueOperation, Json, JsonSchema } from './types.js';
import type { RouteEntry } from './routes.js';

const COMPONENTS_OPEN = '"components": {"schemas": {';
const COMPONENTS_CLOSE = '}},';
const OPERATIONS_OPEN = '"operations": [';
const OPERATIONS_CLOSE = ']';
/** Operation keys read from the line itself, when first asked for. */
const LINE_KEYS = ['parameters', 'requestBody', 'responses', 'tags'] as const;
/** Marks a value not read yet. */
const UNREAD = Symbol('unread');

/** The catalogue of `text`, parsed on demand; undefined when the text is not laid out as derive.ts writes it. */
export function lazyCatalogue(text: string, routes: readonly RouteEntry[]): Catalogue | undefined {
  const lines = text.split('\n');
  if (lines[0] !== '{') return undefined;
  let at = 1;
  const head: Record<string, Json> = {};
  for (; at < lines.length && lines[at] !== COMPONENTS_OPEN; at += 1) {
    if (!lines[at].endsWith(',')) return undefined;
    Object.assign(head, JSON.parse(`{${lines[at].slice(0, -1)}}`) as Record<string, Json>);
  }
  const schemas: Record<string, unknown> = {};
  const schemaTexts = new Map<string, string>();
  for (at += 1; at < lines.length && lines[at] !== COMPONENTS_CLOSE; at += 1) {
    const entry = componentLine(lines[at]);
    if (!entry) return undefined;
    schemas[entry.name] = UNREAD;
    schemaTexts.set(entry.name, entry.value);
  }
  if (lines[at + 1] !== OPERATIONS_OPEN) return undefined;
  const operations: CatalogueOperation[] = [];
  for (at += 2; at < lines.length && lines[at] !== OPERATIONS_CLOSE; at += 1) {
    const route = routes[operations.length];
    const op = route && operationOf(withoutComma(lines[at]), route);
    if (!op) return undefined;
    operations.push(op);
  }
  if (operations.length !== routes.length || lines[at] !== OPERATIONS_CLOSE) return undefined;
  const components = { schemas: readOnDemand(schemas, (key) => (schemas[key] = JSON.parse(schemaTexts.get(key)!) as JsonSchema), false) };
  return { ...head, components, operations } as unknown as Catalogue;
}

/** `"Name": {...},` as its name and the text of its value. */
function componentLine(line: string): { name: string; value: string } | undefined {
  const colon = line.indexOf('": ');
  if (!line.startsWith('"') || colon < 1) return undefined;
  // Component names are plain words; a name with an escape in it makes the reader give up (the whole file is parsed).
  const escape = line.lastIndexOf('\\', colon);
  const name = escape < 0 ? line.slice(1, colon) : undefined;
  return name === undefined ? undefined : { name, value: withoutComma(line.slice(colon + 3)) };
}

/**
 * The operation on `line`, which must be the one `route` names: its method and id come first in the
 * line's sorted keys (after `deprecated`), so the check costs a short search.
 */
function operationOf(line: string, route: RouteEntry): CatalogueOperation | undefined {
  const expected = `"method":${JSON.stringify(route.method)},"operationId":${JSON.stringify(route.operationId)},"parameters":`;
  const deprecated = line.startsWith('{"deprecated":true,');
  if (!line.startsWith(expected, deprecated ? 19 : 1)) return undefined;
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
  const readLine = () => {
    const parsed = JSON.parse(line) as Record<string, Json>;
    for (const key of LINE_KEYS) {
      if (op[key] !== UNREAD) continue;
      if (key in parsed) op[key] = parsed[key];
      else delete op[key];
    }
  };
  return readOnDemand(op, readLine, true) as unknown as CatalogueOperation;
}

/**
 * `target` behind a proxy that calls `read(key)` before anything sees a key whose value is UNREAD;
 * `read` replaces it (or, where `keysMayGo`, may delete the key: listing the keys then reads them all).
 */
function readOnDemand<T extends Record<string, unknown>>(target: T, read: (key: string) => void, keysMayGo: boolean): T {
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
      if (keysMayGo) for (const key of Object.keys(object)) settle(key);
      return Reflect.ownKeys(object);
    },
  });
}

function withoutComma(text: string): string {
  return text.endsWith(',') ? text.slice(0, -1) : text;
}
