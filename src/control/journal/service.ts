// The request journal: the last N requests this node answered, in a ring buffer. Kept in memory (per
// node) because writing a row per request would halve throughput (measured for request logging) and a
// test inspects the node it talks to; the bound keeps memory flat however long the server runs.
import { parse as parseQueryString } from 'fast-querystring';
import type { Page } from '../../platform/pagination.js';
import { pathOf } from '../../platform/http.js';
import { SCENARIO_HEADER, scenarioOf } from '../faults/hook.js';
import { globToRegExp } from '../faults/service.js';
import type { JournalEntry, JournalQuery } from './schemas.js';
import { EntrySlots, HEADERS_PART, REQUEST_ID_PART, type SlotEntry, URL_PART } from './slots.js';

export interface JournalOptions {
  size: number;
  bodies: boolean;
  bodyLimit: number;
}

const SECRET_KEY = /token|secret|password|passwd|api_?key|authorization|private_?key|credential/i;
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'proxy-authorization']);
export const REDACTED = '[redacted]';
const SCENARIO_NAME = new RegExp(SCENARIO_HEADER, 'i');

/**
 * What the hook hands over: time as epoch ms, the raw URL, the headers as received and bodies as they
 * are, so formatting, redaction and derived fields (path, query, header object, scenario) happen only
 * when someone reads the journal, not on every request. None of it is kept as it is given (see
 * slots.ts), except the bodies when the journal keeps them.
 */
export interface JournalRecord extends Omit<SlotEntry, 'seq'> {
  requestBody?: unknown;
  responseBody?: unknown;
}

/** The bodies of an entry (journal bodies on): raw until first read or when small, then rendered. */
interface Bodies {
  raw: { requestBody: unknown; responseBody: unknown } | null;
  rendered: { requestBody: string | null; responseBody: string | null } | null;
}

export class Journal {
  private readonly slots: EntrySlots | undefined;
  /** By slot, with journal bodies on. */
  private readonly bodies: (Bodies | undefined)[] = [];
  private nextSeq = 1;

  constructor(readonly options: JournalOptions) {
    this.slots = options.size > 0 ? new EntrySlots(options.size) : undefined;
  }

  get enabled(): boolean {
    return this.options.size > 0;
  }

  /**
   * Bodies are kept raw (rendering them on every request halved throughput, measured); a body too big
   * to keep raw is rendered, redacted and cut, at once, and the raw one let go.
   */
  record(entry: JournalRecord): void {
    if (!this.slots) return;
    const seq = this.nextSeq++;
    this.slots.record(seq, entry);
    if (!this.options.bodies) return;
    const { requestBody, responseBody } = entry;
    const large = sizeOf(requestBody, headerIn(entry.rawHeaders, 'content-length')) > this.rawLimit || sizeOf(responseBody) > this.rawLimit;
    this.bodies[seq % this.options.size] = large
      ? { raw: null, rendered: { requestBody: this.body(requestBody), responseBody: this.body(responseBody) } }
      : { raw: { requestBody, responseBody }, rendered: null };
  }

  private get rawLimit(): number {
    return Math.max(this.options.bodyLimit * 4, 65_536);
  }

  private render(entry: SlotEntry): JournalEntry {
    const { seq, timeMs, rawHeaders, url, elapsedMs, ...fields } = entry;
    const headers = headersOf(rawHeaders);
    return {
      seq,
      ...fields,
      path: pathOf(url),
      scenario: scenarioOf(headers) ?? null,
      durationMs: Math.round(elapsedMs * 1000) / 1000,
      time: new Date(timeMs).toISOString(),
      headers: redactHeaders(headers),
      query: redactQuery(queryOf(url)),
      ...this.renderedBodies(seq),
    };
  }

  /** An entry's bodies as JSON text, rendered (and the raw ones let go) when first read. */
  private renderedBodies(seq: number): { requestBody: string | null; responseBody: string | null } {
    const bodies = this.options.bodies ? this.bodies[seq % this.options.size] : undefined;
    if (!bodies) return { requestBody: null, responseBody: null };
    if (bodies.raw) {
      bodies.rendered = { requestBody: this.body(bodies.raw.requestBody), responseBody: this.body(bodies.raw.responseBody) };
      bodies.raw = null;
    }
    return bodies.rendered!;
  }

  /** The sequence numbers of the entries kept, oldest first. */
  private kept(): number[] {
    const out: number[] = [];
    if (!this.slots) return out;
    for (let seq = Math.max(1, this.nextSeq - this.options.size); seq < this.nextSeq; seq += 1) if (this.slots.has(seq)) out.push(seq);
    return out;
  }

  get size(): number {
    return this.kept().length;
  }

  /** Filters on the entries' columns first; their text is decoded only for a filter that needs it and for the page. */
  query(q: JournalQuery): Page<JournalEntry> {
    const slots = this.slots;
    if (!slots) return { count: 0, results: [] };
    const pathPattern = q.path ? globToRegExp(q.path) : null;
    const method = q.method?.toUpperCase();
    const since = q.since ? Date.parse(q.since) : -Infinity;
    const until = q.until ? Date.parse(q.until) : Infinity;
    const byText = pathPattern !== null || q.scenario !== undefined || q.requestId !== undefined;
    const matching = this.kept().filter((seq) => {
      const e = slots.fields(seq)!;
      if (q.clientId !== undefined && e.clientId !== q.clientId) return false;
      if (q.operationId !== undefined && e.operationId !== q.operationId) return false;
      if (method !== undefined && e.method !== method) return false;
      if (q.status && q.status.length > 0 && !q.status.includes(e.status)) return false;
      if (e.timeMs < since || e.timeMs >= until) return false;
      if (!byText) return true;
      if (q.requestId !== undefined && slots.part(seq, REQUEST_ID_PART) !== q.requestId) return false;
      if (pathPattern && !pathPattern.test(pathOf(slots.part(seq, URL_PART)))) return false;
      if (q.scenario === undefined) return true;
      // Most requests name no scenario: their headers are not made into an object.
      if (!SCENARIO_NAME.test(slots.part(seq, HEADERS_PART))) return false;
      return scenarioOf(headersOf(slots.text(seq)!.rawHeaders)) === q.scenario;
    });
    if (q.order === 'desc') matching.reverse();
    return { count: matching.length, results: matching.slice(q.offset, q.offset + q.limit).map((seq) => this.render(slots.read(seq)!)) };
  }

  clear(): number {
    const removed = this.size;
    this.slots?.clear();
    this.bodies.length = 0;
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

/** The first value of a header in a raw list (names in any case), or undefined. */
function headerIn(raw: readonly string[], lowerCaseName: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === lowerCaseName) return raw[i + 1];
  return undefined;
}

/**
 * The header object of a raw list, as the journal shows it: names in lower case, a repeated header's
 * values joined (cookies with "; ", others with ", "). Node itself keeps only the first of a few
 * repeated headers (Host, Content-Type...); the journal shows all that was sent.
 */
function headersOf(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const before = out[name];
    out[name] = before === undefined ? raw[i + 1] : `${before}${name === 'cookie' ? '; ' : ', '}${raw[i + 1]}`;
  }
  return out;
}

/** The query of a URL as the router parses it (fast-querystring): a repeated key gives a list. */
function queryOf(url: string): Record<string, unknown> {
  const start = url.indexOf('?');
  return start < 0 || start === url.length - 1 ? {} : parseQueryString(url.slice(start + 1));
}

/** Rough size of a raw body: its declared length, else exact for text, by its JSON for parsed bodies. */
function sizeOf(value: unknown, declaredLength?: string): number {
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
