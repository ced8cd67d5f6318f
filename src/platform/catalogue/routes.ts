// The compact route index (reference/catalogue-routes.json): one line per reference operation with what
// the server needs at start-up without reading the 1.4 MB catalogue: method, path, operation id, product,
// public flag, the error statuses the operation declares, and (for operations answering a task list) the
// task type. The catalogue engine registers its routes from it; the error handler fits every operation's
// errors to the statuses it declares. Derived by scripts/catalogue-routes.ts; a test fails on drift.
import fs from 'node:fs';
import { referenceFile } from './files.js';

export const ROUTE_INDEX_FILE = 'catalogue-routes.json';
export const ROUTE_INDEX_FORMAT = 'edgeplane-catalogue-routes';

export interface RouteEntry {
  method: string;
  /** The path as the reference spells it (`{param}`). */
  path: string;
  operationId: string;
  product: string;
  /** Answered without authentication. */
  public: boolean;
  /** The 4xx and 5xx statuses the operation declares, ascending. */
  errorStatuses: number[];
  /** For operations answering a task list: the task type their tasks carry. */
  taskType?: string;
}

/** The Fastify form of a reference path: `{param}` becomes `:param`. */
export const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

type Row = [string, string, string, string, 0 | 1, number[], string?];

/** The text of the index file: one line per route, so a change in the reference is a readable diff. */
export function formatRouteIndex(routes: RouteEntry[], sha256: string | undefined): string {
  const rows = routes.map((r) => {
    const row: Row = [r.method, r.path, r.operationId, r.product, r.public ? 1 : 0, r.errorStatuses];
    if (r.taskType) row.push(r.taskType);
    return JSON.stringify(row);
  });
  return `{"format":"${ROUTE_INDEX_FORMAT}","source":${JSON.stringify(sha256 ?? null)},"routes":[\n${rows.join(',\n')}\n]}\n`;
}

export function parseRouteIndex(text: string): RouteEntry[] {
  const doc = JSON.parse(text) as { format: string; routes: Row[] };
  if (doc.format !== ROUTE_INDEX_FORMAT) throw new Error(`not a ${ROUTE_INDEX_FORMAT} document`);
  return doc.routes.map(([method, path, operationId, product, pub, errorStatuses, taskType]) => ({
    method,
    path,
    operationId,
    product,
    public: pub === 1,
    errorStatuses,
    ...(taskType ? { taskType } : {}),
  }));
}

// Immutable for the life of the process: one parsed copy serves every app built in it.
let loaded: RouteEntry[] | undefined;

export function readRouteIndex(): RouteEntry[] {
  loaded ??= parseRouteIndex(fs.readFileSync(referenceFile(ROUTE_INDEX_FILE), 'utf8'));
  return loaded;
}
