// Where each entry of reference/catalogue.json is (reference/catalogue-lines.json): the file's size, its
// head (format, source, version), and the byte range of every schema component's value and every
// operation's line, in file order. With it the server reads one entry of the 1.4 MB file without reading,
// splitting or scanning the rest (lazy.ts): finding the 3,000 lines at run time took 15-25 ms of the
// catalogue engine's first request, in code not yet compiled. Derived by scripts/catalogue-routes.ts
// with the route index; a test fails on drift, and the reader checks each entry it reads.
import fs from 'node:fs';
import type { Json } from './types.js';
import type { RouteEntry } from './routes.js';
import { referenceFile } from './files.js';

export const LINES_FILE = 'catalogue-lines.json';
export const LINES_FORMAT = 'edgeplane-catalogue-lines';

const COMPONENTS_OPEN = '"components": {"schemas": {';
const COMPONENTS_CLOSE = '}},';
const OPERATIONS_OPEN = '"operations": [';
const OPERATIONS_CLOSE = ']';

export interface CatalogueLines {
  /** The catalogue file's size in bytes: a file of another size is not the one indexed. */
  size: number;
  /** The document's keys before its components (format, source, version). */
  head: Record<string, Json>;
  /** Component names, in file order. */
  components: string[];
  /** For each component, the start and end (exclusive) of its line's bytes without the comma, flat: [start0, end0, start1, ...]. */
  componentRanges: number[];
  /** For each operation (the route index's order), the start and end of its line's bytes without the comma. */
  operationRanges: number[];
  /** The positions (in that order) of the deprecated operations. */
  deprecated: number[];
}

/** The text of the index file; one line per part. */
export function formatCatalogueLines(lines: CatalogueLines): string {
  const parts = [`"format":"${LINES_FORMAT}"`, ...Object.entries(lines).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)];
  return `{${parts.join(',\n')}}\n`;
}

export function parseCatalogueLines(text: string): CatalogueLines {
  const { format, ...lines } = JSON.parse(text) as CatalogueLines & { format: string };
  if (format !== LINES_FORMAT) throw new Error(`not a ${LINES_FORMAT} document`);
  return lines;
}

/** The committed index, or undefined when the package has none. */
export function readCatalogueLines(): CatalogueLines | undefined {
  let file: string;
  try {
    file = referenceFile(LINES_FILE);
  } catch {
    return undefined;
  }
  return parseCatalogueLines(fs.readFileSync(file, 'utf8'));
}

/** What an operation's line begins with, after `{` and `"deprecated":true,` if it is: its method and id come first in its sorted keys. */
export function operationPrefix(route: Pick<RouteEntry, 'method' | 'operationId'>): string {
  return `"method":${JSON.stringify(route.method)},"operationId":${JSON.stringify(route.operationId)},"parameters":`;
}

/** Whether an operation's line is the one `route` names, and whether it is deprecated. */
export function isOperationLine(line: string, route: Pick<RouteEntry, 'method' | 'operationId'>): 'current' | 'deprecated' | undefined {
  const prefix = operationPrefix(route);
  if (line.startsWith(`{${prefix}`)) return 'current';
  return line.startsWith(`{"deprecated":true,${prefix}`) ? 'deprecated' : undefined;
}

/** A component's line up to its value: `"Name": `. */
export function componentPrefix(name: string): string {
  return `"${name}": `;
}

/**
 * The index of `bytes` (the catalogue as scripts/catalogue/derive.ts writes it: one line per component and
 * per operation), for the operations `routes` lists in order; undefined when the layout is not that one.
 */
export function deriveCatalogueLines(bytes: Buffer, routes: readonly Pick<RouteEntry, 'method' | 'operationId'>[]): CatalogueLines | undefined {
  const lines: [number, number][] = [];
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline < 0 ? bytes.length : newline;
    lines.push([start, end]);
    start = end + 1;
  }
  const text = ([start, end]: [number, number]) => bytes.toString('utf8', start, end);
  const withoutComma = ([start, end]: [number, number]): [number, number] => [start, bytes[end - 1] === 0x2c ? end - 1 : end];
  let at = 0;
  if (text(lines[at++] ?? [0, 0]) !== '{') return undefined;
  const head: Record<string, Json> = {};
  for (; at < lines.length && text(lines[at]) !== COMPONENTS_OPEN; at += 1) {
    const line = text(lines[at]);
    if (!line.endsWith(',')) return undefined;
    Object.assign(head, JSON.parse(`{${line.slice(0, -1)}}`) as Record<string, Json>);
  }
  const components: string[] = [];
  const componentRanges: number[] = [];
  for (at += 1; at < lines.length && text(lines[at]) !== COMPONENTS_CLOSE; at += 1) {
    const line = text(lines[at]);
    const name = /^"([A-Za-z0-9_.-]+)": /.exec(line)?.[1];
    if (name === undefined) return undefined;
    components.push(name);
    componentRanges.push(...withoutComma(lines[at]));
  }
  if (at + 1 >= lines.length || text(lines[at + 1]) !== OPERATIONS_OPEN) return undefined;
  const operationRanges: number[] = [];
  const deprecated: number[] = [];
  for (at += 2; at < lines.length && text(lines[at]) !== OPERATIONS_CLOSE; at += 1) {
    const position = operationRanges.length / 2;
    const route = routes[position];
    const kind = route && isOperationLine(text(lines[at]), route);
    if (!kind) return undefined;
    if (kind === 'deprecated') deprecated.push(position);
    operationRanges.push(...withoutComma(lines[at]));
  }
  if (at >= lines.length || operationRanges.length / 2 !== routes.length) return undefined;
  return { size: bytes.length, head, components, componentRanges, operationRanges, deprecated };
}
