// The request journal: the last N requests this node answered, in a ring buffer. Kept in memory (per
// node) because writing a row per request would halve throughput (measured for request logging) and a
// test inspects the node it talks to; the bound keeps memory flat however long the server runs.
import type { Page } from '../../platform/pagination.js';
import { pathOf } from '../../platform/http.js';
import { scenarioOf } from '../faults/hook.js';
import { globToRegExp } from '../faults/service.js';
import type { JournalEntry, JournalQuery } from './schemas.js';

export interface JournalOptions {
  size: number;
  bodies: boolean;
  bodyLimit: number;
}

const SECRET_KEY = /token|secret|password|passwd|api_?key|authorization|private_?key|credential/i;
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization']);
export const REDACTED = '[redacted]';

/**
 * What the hook hands over: time as epoch ms, the raw URL, headers, query and bodies as they are, so
 * formatting, redaction and derived fields (path, scenario) happen only when someone reads the journal,
 * not on every request.
 */
export interface JournalRecord {
  timeMs: number;
  requestId: string;
  clientId: number | null;
  operationId: string | null;
  method: string;
  url: string;
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  /** Real time spent answering, unrounded. */
  elapsedMs: number;
  requestBody?: unknown;
  responseBody?: unknown;
}

interface Stored {
  seq: number;
  entry: JournalRecord;
  rendered: { requestBody: string | null; responseBody: string | null } | null;
}

export class Journal {
  private readonly entries: (Stored | undefined)[];
  private nextSeq = 1;

  constructor(readonly options: JournalOptions) {
    this.entries = new Array(options.size);
  }

  get enabled(): boolean {
    return this.options.size > 0;
  }

  /**
   * Bodies are kept raw (rendering them on every request halved throughput, measured); a body too big
   * to keep raw is rendered, redacted and cut, at once, and the raw one let go.
   */
  record(entry: JournalRecord): void {
    if (!this.enabled) return;
    const seq = this.nextSeq++;
    let rendered: Stored['rendered'] = null;
    if (!this.options.bodies) {
      entry.requestBody = entry.responseBody = undefined;
    } else if (sizeOf(entry.requestBody, entry.headers['content-length']) > this.rawLimit || sizeOf(entry.responseBody) > this.rawLimit) {
      rendered = { requestBody: this.body(entry.requestBody), responseBody: this.body(entry.responseBody) };
      entry.requestBody = entry.responseBody = undefined;
    }
    this.entries[seq % this.options.size] = { seq, entry, rendered };
  }

  private get rawLimit(): number {
    return Math.max(this.options.bodyLimit * 4, 65_536);
  }

  private render(stored: Stored): JournalEntry {
    if (!stored.rendered) {
      const { requestBody, responseBody } = stored.entry;
      stored.rendered = { requestBody: this.body(requestBody), responseBody: this.body(responseBody) };
      stored.entry.requestBody = stored.entry.responseBody = undefined;
    }
    const { timeMs, headers, query, url, elapsedMs, requestBody: _request, responseBody: _response, ...entry } = stored.entry;
    return {
      seq: stored.seq,
      ...entry,
      path: pathOf(url),
      scenario: scenarioOf(headers) ?? null,
      durationMs: Math.round(elapsedMs * 1000) / 1000,
      time: new Date(timeMs).toISOString(),
      headers: redactHeaders(headers),
      query: redactQuery(query),
      ...stored.rendered,
    };
  }

  /** Entries oldest first. */
  private all(): Stored[] {
    const out: Stored[] = [];
    const first = Math.max(1, this.nextSeq - this.options.size);
    for (let seq = first; seq < this.nextSeq; seq += 1) {
      const stored = this.entries[seq % this.options.size];
      if (stored && stored.seq === seq) out.push(stored);
    }
    return out;
  }

  get size(): number {
    return this.all().length;
  }

  query(q: JournalQuery): Page<JournalEntry> {
    const pathPattern = q.path ? globToRegExp(q.path) : null;
    const method = q.method?.toUpperCase();
    const since = q.since ? Date.parse(q.since) : -Infinity;
    const until = q.until ? Date.parse(q.until) : Infinity;
    const matching = this.all().filter(({ entry: e }) => {
      if (q.clientId !== undefined && e.clientId !== q.clientId) return false;
      if (q.operationId !== undefined && e.operationId !== q.operationId) return false;
      if (method !== undefined && e.method !== method) return false;
      if (pathPattern && !pathPattern.test(pathOf(e.url))) return false;
      if (q.status && q.status.length > 0 && !q.status.includes(e.status)) return false;
      if (q.scenario !== undefined && scenarioOf(e.headers) !== q.scenario) return false;
      if (q.requestId !== undefined && e.requestId !== q.requestId) return false;
      return e.timeMs >= since && e.timeMs < until;
    });
    if (q.order === 'desc') matching.reverse();
    return { count: matching.length, results: matching.slice(q.offset, q.offset + q.limit).map((stored) => this.render(stored)) };
  }

  clear(): number {
    const removed = this.size;
    this.entries.fill(undefined);
    return removed;
  }

  /** JSON text of a body with secret-looking fields redacted, cut at the configured size. */
  body(value: unknown): string | null {
    if (!this.options.bodies || value === undefined || value === null || value === '') return null;
    let text: string;
    if (typeof value === 'string' || Buffer.isBuffer(value)) {
      text = String(value);
      try {
        text = JSON.stringify(redact(JSON.parse(text)));
      } catch {
        // Not JSON (CSV, plain text): kept as it is.
      }
    } else {
      text = JSON.stringify(redact(value));
    }
    return text.length > this.options.bodyLimit ? `${text.slice(0, this.options.bodyLimit)}…[cut]` : text;
  }
}

/** Rough size of a raw body: its declared length, else exact for text, by its JSON for parsed bodies. */
function sizeOf(value: unknown, declaredLength?: string | string[]): number {
  if (typeof declaredLength === 'string') return Number(declaredLength) || 0;
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value.length;
  return JSON.stringify(value)?.length ?? 0;
}

export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? REDACTED : redact(inner);
    return out;
  }
  return value;
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name) || SECRET_KEY.test(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function redactQuery(query: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!query || typeof query !== 'object') return out;
  for (const [key, value] of Object.entries(query)) {
    if (SECRET_KEY.test(key)) out[key] = REDACTED;
    else out[key] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}
