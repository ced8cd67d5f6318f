// The request journal: the last N requests this node answered, in a ring buffer. Kept in memory (per
// node) because writing a row per request would halve throughput (measured for request logging) and a
// test inspects the node it talks to; the bound keeps memory flat however long the server runs.
import type { Page } from '../../platform/pagination.js';
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
 * What the hook hands over: time as epoch ms, headers, query and bodies raw, so formatting and redaction
 * happen only when someone reads the journal, not on every request.
 */
export type JournalRecord = Omit<JournalEntry, 'seq' | 'time' | 'headers' | 'query' | 'requestBody' | 'responseBody'> & {
  timeMs: number;
  headers: Record<string, string | string[] | undefined>;
  query: unknown;
  requestBody?: unknown;
  requestSize?: number;
  responseBody?: unknown;
};

type StoredEntry = Omit<JournalRecord, 'requestBody' | 'requestSize' | 'responseBody'> & { seq: number };

interface Stored {
  entry: StoredEntry;
  raw: { request: unknown; response: unknown } | null;
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
   * to keep raw is rendered, redacted and cut, at once.
   */
  record({ requestBody, requestSize, responseBody, ...entry }: JournalRecord): void {
    if (!this.enabled) return;
    const seq = this.nextSeq++;
    let raw: Stored['raw'] = null;
    let rendered: Stored['rendered'] = null;
    if (this.options.bodies) {
      if ((requestSize ?? sizeOf(requestBody)) > this.rawLimit || sizeOf(responseBody) > this.rawLimit) rendered = { requestBody: this.body(requestBody), responseBody: this.body(responseBody) };
      else raw = { request: requestBody, response: responseBody };
    }
    this.entries[seq % this.options.size] = { entry: { seq, ...entry }, raw, rendered };
  }

  private get rawLimit(): number {
    return Math.max(this.options.bodyLimit * 4, 65_536);
  }

  private render(stored: Stored): JournalEntry {
    if (!stored.rendered) {
      stored.rendered = stored.raw ? { requestBody: this.body(stored.raw.request), responseBody: this.body(stored.raw.response) } : { requestBody: null, responseBody: null };
      stored.raw = null;
    }
    const { timeMs, headers, query, ...entry } = stored.entry;
    return { ...entry, time: new Date(timeMs).toISOString(), headers: redactHeaders(headers), query: redactQuery(query), ...stored.rendered };
  }

  /** Entries oldest first. */
  private all(): Stored[] {
    const out: Stored[] = [];
    const first = Math.max(1, this.nextSeq - this.options.size);
    for (let seq = first; seq < this.nextSeq; seq += 1) {
      const stored = this.entries[seq % this.options.size];
      if (stored && stored.entry.seq === seq) out.push(stored);
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
      if (pathPattern && !pathPattern.test(e.path)) return false;
      if (q.status && q.status.length > 0 && !q.status.includes(e.status)) return false;
      if (q.scenario !== undefined && e.scenario !== q.scenario) return false;
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

/** Rough size of a raw body: exact for text, by its JSON for parsed bodies. */
function sizeOf(value: unknown): number {
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
