// Bulk ingestion: newline-delimited JSON records, each validated on its own, written in batches. A bad
// line is reported with its number and never costs the good lines around it. Lines are parsed, checked
// and made rows by parseLines (records.ts): in a thread of their own for a large body (ingest-thread.ts),
// on the main thread for a small one; this side looks up domains and stores the rows.
import type { ValidateFunction } from 'ajv';
import type { Clock } from '../../platform/clock.js';
import { yieldToLoop } from '../../platform/cooperative.js';
import { moduleWorker, WorkerPool } from '../../platform/workers.js';
import { AppError } from '../../platform/errors.js';
import { fromColumns } from '../../platform/columns.js';
import type { ParseCall, ThreadPiece } from './ingest-thread.js';
import type { IngestReport } from './schemas.js';
import type { EventLog, EventRow } from './log/index.js';
import { RETENTION_MS } from './time.js';
import {
  BATCH,
  type DomainInfo,
  MAX_FUTURE_MS,
  MAX_REPORTED,
  newCursor,
  type ParsedLines,
  parseLines,
  type UnplacedRow,
  place,
  recordValidator,
  type TimeWindow,
  unknownDomain,
} from './records.js';

export interface DomainLookup {
  owner(id: number): Promise<{ client_id: number; name: string } | undefined>;
}

export interface IngestorOptions {
  /** Bodies of this many bytes or more are parsed in the parsing thread; smaller ones on the main thread. */
  threadFromBytes?: number;
  /** How long the parsing thread is kept without a call (the pool's idle time; THREAD_IDLE_MS by default). */
  threadIdleMs?: number;
}

/**
 * Below this a body is parsed on the main thread: at most about a millisecond of work, less than sending
 * it to the thread and its rows back.
 */
const THREAD_FROM_BYTES = 64 * 1024;
/** Lines the main thread parses between two turns of the event loop (a small body's, see THREAD_FROM_BYTES). */
const INLINE_LINES = 1_000;
/**
 * What the thread sends back at once. Its rows are taken by the main thread in one piece (about 1.2 ms
 * for 1,000 rows as columns), so pieces are kept small; refused lines cost little to send (only the first
 * hundred carry a detail), so a body of bad lines crosses in a few large pieces.
 */
const THREAD_PIECE = { maxRows: 1_000, maxLines: 50_000 };
/** Pieces asked of the thread ahead of the one being stored: more than a batch (BATCH rows). */
const THREAD_AHEAD = Math.ceil(BATCH / THREAD_PIECE.maxRows) + 2;

export class EventIngestor {
  private parser: WorkerPool | undefined;
  /** The last key a body sent to the thread was given (the thread keeps each body under its key). */
  private lastBodyKey = 0;

  constructor(
    private readonly log: Pick<EventLog, 'insert'>,
    private readonly domains: DomainLookup,
    private readonly clock: Clock,
    /** Told after each ingestion (compaction looks for hours left with many small blocks). */
    private readonly stored: () => void = () => {},
    private readonly validator: () => ValidateFunction = recordValidator(),
    private readonly options: IngestorOptions = {},
  ) {}

  /** Ingests NDJSON; blank lines are skipped, every other line is accepted or reported. */
  async ingest(body: Buffer): Promise<IngestReport> {
    const writer = new BatchWriter(this.log);
    const domains = new Map<number, DomainInfo | null>();
    const now = this.clock.now();
    for await (const parsed of this.pieces(body, { cutoff: now - RETENTION_MS, latest: now + MAX_FUTURE_MS })) {
      await this.lookUpAll(parsed, domains);
      await writer.take(parsed, domains);
    }
    await writer.flush();
    this.stored();
    return writer.report;
  }

  /** The body parsed a piece at a time: on the main thread between turns of the event loop, or in the parsing thread. */
  private async *pieces(body: Buffer, window: TimeWindow): AsyncGenerator<ParsedLines> {
    if (body.length >= (this.options.threadFromBytes ?? THREAD_FROM_BYTES)) {
      yield* this.piecesFromThread(body, window);
      return;
    }
    const cursor = newCursor();
    const validate = this.validator();
    while (cursor.position < body.length) {
      yield parseLines(body, cursor, validate, window, { maxRows: BATCH, maxLines: INLINE_LINES });
      await yieldToLoop();
    }
  }

  /**
   * The thread reads ahead while this side stores: up to THREAD_AHEAD pieces are asked for at once (a
   * batch's worth and more, so the thread keeps reading while a batch is written). The body is copied for
   * the thread (the request keeps its own: the journal may show it), and the copy moved to it.
   */
  private async *piecesFromThread(body: Buffer, window: TimeWindow): AsyncGenerator<ParsedLines> {
    const pool = (this.parser ??= new WorkerPool(
      () => moduleWorker(import.meta.url, './ingest-thread.ts', 'waap-ingest-worker.cjs', null),
      1,
      this.options.threadIdleMs,
    ));
    const key = ++this.lastBodyKey;
    const copy = new Uint8Array(body.length);
    copy.set(body);
    const ask = (call: ParseCall, transfer?: ArrayBuffer[]) => {
      const piece = pool.call<ThreadPiece>(call as unknown as Record<string, unknown>, { transfer });
      // Handled now, awaited later: pieces asked ahead all fail at once when the thread dies or the server
      // closes, and one left without a handler meanwhile would be an unhandled rejection (the process ends).
      piece.catch(() => {});
      return piece;
    };
    // The body stays open in the thread until 'close': its threads must outlive a slow batch's store.
    const release = pool.hold();
    const asked = [ask({ op: 'open', key, body: copy, window, limits: THREAD_PIECE }, [copy.buffer])];
    try {
      for (let ended = false; !ended;) {
        const { columns, ...parsed }: ThreadPiece = await asked.shift()!.catch(parsingFailed);
        ended = parsed.next >= body.length;
        // Pieces asked for past the end come back empty; they are left unread.
        while (!ended && asked.length < THREAD_AHEAD) asked.push(ask({ op: 'next', key }));
        yield { ...parsed, rows: fromColumns(columns) as UnplacedRow[] };
      }
    } finally {
      void pool
        .call({ op: 'close', key })
        .catch(() => {})
        .finally(release);
    }
  }

  /** Looks up, once per ingestion, each domain this piece names. */
  private async lookUpAll(parsed: ParsedLines, domains: Map<number, DomainInfo | null>): Promise<void> {
    for (const row of parsed.rows) if (!domains.has(row.domain_id)) domains.set(row.domain_id, await this.lookUp(row.domain_id));
    for (const { domainId } of parsed.refusals) if (domainId !== undefined && !domains.has(domainId)) domains.set(domainId, await this.lookUp(domainId));
  }

  async close(): Promise<void> {
    await this.parser?.close();
  }

  private async lookUp(domainId: number): Promise<DomainInfo | null> {
    const owner = await this.domains.owner(domainId);
    return owner ? { client_id: Number(owner.client_id), name: owner.name } : null;
  }

  /** Ingests rows already built (the generator); returns how many were new. */
  async ingestRows(rows: EventRow[]): Promise<number> {
    let accepted = 0;
    for (let i = 0; i < rows.length; i += BATCH) {
      accepted += (await this.log.insert(rows.slice(i, i + BATCH))).filter(Boolean).length;
      await yieldToLoop();
    }
    this.stored();
    return accepted;
  }
}

/** Takes parsed pieces in order: rows are stored by the batch, refusals reported in line order. */
class BatchWriter {
  readonly report: IngestReport = { accepted: 0, rejected: 0, errors: [] };
  private rows: EventRow[] = [];
  private lines: number[] = [];

  constructor(private readonly log: Pick<EventLog, 'insert'>) {}

  /** A piece whose domains are all looked up: its rows and refusals merged back into line order. */
  async take(parsed: ParsedLines, domains: Map<number, DomainInfo | null>): Promise<void> {
    this.report.rejected += parsed.undescribed;
    const { rows, rowLines, refusals } = parsed;
    let r = 0;
    for (let i = 0; i < rows.length; i += 1) {
      for (; r < refusals.length && refusals[r].line < rowLines[i]; r += 1) this.reject(refusals[r].line, refusalDetail(refusals[r], domains));
      const domain = domains.get(rows[i].domain_id);
      if (!domain) this.reject(rowLines[i], unknownDomain(rows[i].domain_id));
      else {
        this.rows.push(place(rows[i], domain));
        this.lines.push(rowLines[i]);
      }
      if (this.rows.length >= BATCH) await this.flush();
    }
    for (; r < refusals.length; r += 1) this.reject(refusals[r].line, refusalDetail(refusals[r], domains));
  }

  /** Stores the rows taken so far, as one batch; an id already stored is reported as a duplicate. */
  async flush(): Promise<void> {
    if (this.rows.length === 0) return;
    const inserted = await this.log.insert(this.rows);
    for (let i = 0; i < inserted.length; i += 1) {
      if (inserted[i]) this.report.accepted += 1;
      else this.reject(this.lines[i], `duplicate request id ${this.rows[i].id}`);
    }
    this.rows = [];
    this.lines = [];
    await yieldToLoop();
  }

  private reject(line: number, detail: string): void {
    this.report.rejected += 1;
    if (this.report.errors.length < MAX_REPORTED) this.report.errors.push({ line, detail });
  }
}

/** A refused line's detail: an unknown domain comes before a refused time. */
function refusalDetail(refusal: { line: number; detail: string; domainId?: number }, domains: Map<number, DomainInfo | null>): string {
  return refusal.domainId !== undefined && !domains.get(refusal.domainId) ? unknownDomain(refusal.domainId) : refusal.detail;
}

/** The parsing thread failed (it died, or was replaced): the body was not read to its end. */
function parsingFailed(error: Error): never {
  throw new AppError('service_unavailable', `Reading the body stopped before its end (${error.message}); send it again.`);
}
