// Bulk ingestion: newline-delimited JSON records, each validated on its own, written in batches. A bad
// line is reported with its number and never costs the good lines around it. Lines are parsed, checked
// and made rows by parseLines (records.ts): in a thread of their own for a large body (ingest-thread.ts),
// on the main thread for a small one; this side looks up domains and stores the rows.
import type { ValidateFunction } from 'ajv';
import type { Clock } from '../../platform/clock.js';
import { yieldToLoop } from '../../platform/cooperative.js';
import { moduleWorker, WorkerPool } from '../../platform/workers.js';
import { AppError } from '../../platform/errors.js';
import { availableParallelism } from 'node:os';
import type { StretchCall } from './ingest-thread.js';
import type { IngestReport } from './schemas.js';
import { EventBatch, type EventLog, type EventRow } from './log/index.js';
import { RETENTION_MS } from './time.js';
import {
  BATCH,
  type DomainInfo,
  MAX_FUTURE_MS,
  MAX_REPORTED,
  newCursor,
  parseLines,
  type Piece,
  PieceRows,
  recordValidator,
  type TimeWindow,
  toPiece,
  unknownDomain,
} from './records.js';

export interface DomainLookup {
  owner(id: number): Promise<{ client_id: number; name: string } | undefined>;
}

export interface IngestorOptions {
  /** Bodies of this many bytes or more are parsed in the parsing threads; smaller ones on the main thread. */
  threadFromBytes?: number;
  /** How long the parsing threads are kept without a call (the pool's idle time; THREAD_IDLE_MS by default). */
  threadIdleMs?: number;
  /** How many parsing threads (PARSING_THREADS by default). */
  threads?: number;
}

/**
 * Below this a body is parsed on the main thread: at most about a millisecond of work, less than sending
 * it to a thread and its rows back.
 */
const THREAD_FROM_BYTES = 64 * 1024;
/** Lines the main thread parses between two turns of the event loop (a small body's, see THREAD_FROM_BYTES). */
const INLINE_LINES = 1_000;
/**
 * What a thread reads in one call: this many bytes, to the end of the line. Its rows are taken by the main
 * thread in one go (a few hundred rich records), so stretches are kept small.
 */
const STRETCH_BYTES = 256 * 1024;
/**
 * Parsing threads: one per core the main thread leaves, up to two. On two cores a second one made
 * ingestion no faster: the main thread stores while one parses, and the cores are then both busy.
 */
const PARSING_THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
/**
 * Stretches asked for ahead of the one being taken: while the main thread stores a batch (BATCH rows),
 * the threads go on with these. 16 MB of body: some 11,000 records of 1.4 KB.
 */
const STRETCHES_AHEAD = 64;

export class EventIngestor {
  private parsers: WorkerPool | undefined;

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
    for await (const piece of this.pieces(body, { cutoff: now - RETENTION_MS, latest: now + MAX_FUTURE_MS })) {
      const rows = new PieceRows(piece.columns, domains);
      await this.lookUpAll(piece, rows, domains);
      await writer.take(piece, rows);
    }
    await writer.flush();
    this.stored();
    return writer.report;
  }

  /** The body parsed a piece at a time: on the main thread between turns of the event loop, or in the parsing threads. */
  private async *pieces(body: Buffer, window: TimeWindow): AsyncGenerator<Piece> {
    if (body.length >= (this.options.threadFromBytes ?? THREAD_FROM_BYTES)) {
      yield* this.piecesFromThreads(body, window);
      return;
    }
    const cursor = newCursor();
    const validate = this.validator();
    while (cursor.position < body.length) {
      yield toPiece(parseLines(body, cursor, validate, window, { maxRows: BATCH, maxLines: INLINE_LINES }));
      await yieldToLoop();
    }
  }

  /**
   * The body cut into stretches of whole lines, read by the threads while this side stores: up to
   * STRETCHES_AHEAD are asked for at once, and taken in order. The body is copied once into shared memory
   * (the request keeps its own: the journal may show it), which every call reads without a copy.
   */
  private async *piecesFromThreads(body: Buffer, window: TimeWindow): AsyncGenerator<Piece> {
    const pool = (this.parsers ??= new WorkerPool(
      () => moduleWorker(import.meta.url, './ingest-thread.ts', 'waap-ingest-worker.cjs', null),
      this.options.threads ?? PARSING_THREADS,
      this.options.threadIdleMs,
    ));
    const shared = new SharedArrayBuffer(body.length);
    new Uint8Array(shared).set(body);
    const described = new SharedArrayBuffer(4);
    const ask = (start: number, end: number, describe?: number): Promise<Piece> => {
      const call: StretchCall = { body: shared, start, end, window, described, describe };
      const piece = pool.call<Piece>(call as unknown as Record<string, unknown>);
      // Handled now, awaited later: stretches asked ahead all fail at once when a thread dies or the server
      // closes, and one left without a handler meanwhile would be an unhandled rejection (the process ends).
      piece.catch(() => {});
      return piece;
    };
    const waiting: { start: number; end: number; piece: Promise<Piece> }[] = [];
    let asked = 0;
    // Lines of the stretches taken so far (a stretch numbers its own from 1), and their refusals described.
    let linesBefore = 0;
    let describedBefore = 0;
    while (asked < body.length || waiting.length > 0) {
      while (asked < body.length && waiting.length < STRETCHES_AHEAD) {
        const start = asked;
        const newline = body.indexOf(0x0a, Math.min(start + STRETCH_BYTES, body.length) - 1);
        asked = newline < 0 ? body.length : newline + 1;
        waiting.push({ start, end: asked, piece: ask(start, asked) });
      }
      const { start, end, piece: next } = waiting.shift()!;
      let piece = await next.catch(parsingFailed);
      // Threads reading at once took the body's descriptions out of line order, and this stretch went
      // without some the report needs: read it again, describing as many as the body still has.
      if (piece.undescribed > 0 && describedBefore + piece.refusals.length < MAX_REPORTED) {
        piece = await ask(start, end, MAX_REPORTED - describedBefore).catch(parsingFailed);
      }
      describedBefore += piece.refusals.length;
      for (let i = 0; i < piece.rowLines.length; i += 1) piece.rowLines[i] += linesBefore;
      for (const refusal of piece.refusals) refusal.line += linesBefore;
      linesBefore += piece.lines;
      yield piece;
    }
  }

  /** Looks up, once per ingestion, each domain this piece names. */
  private async lookUpAll(piece: Piece, rows: PieceRows, domains: Map<number, DomainInfo | null>): Promise<void> {
    for (const domainId of rows.distinctDomainIds()) if (!domains.has(domainId)) domains.set(domainId, await this.lookUp(domainId));
    for (const { domainId } of piece.refusals) if (domainId !== undefined && !domains.has(domainId)) domains.set(domainId, await this.lookUp(domainId));
  }

  async close(): Promise<void> {
    await this.parsers?.close();
  }

  private async lookUp(domainId: number): Promise<DomainInfo | null> {
    const owner = await this.domains.owner(domainId);
    return owner ? { client_id: Number(owner.client_id), name: owner.name } : null;
  }

  /** Ingests rows already built (the generator); returns how many were new. */
  async ingestRows(rows: EventRow[]): Promise<number> {
    let accepted = 0;
    for (let i = 0; i < rows.length; i += BATCH) {
      accepted += (await this.log.insert(EventBatch.ofRows(rows.slice(i, i + BATCH)))).filter(Boolean).length;
      await yieldToLoop();
    }
    this.stored();
    return accepted;
  }
}

/** Events a batch has room for at first: it grows as rows come (a body of a few lines, or of refused ones, needs little). */
const FIRST_BATCH_ROOM = 1_024;

/** Takes parsed pieces in order: rows are stored by the batch, refusals reported in line order. */
class BatchWriter {
  readonly report: IngestReport = { accepted: 0, rejected: 0, errors: [] };
  private batch = new EventBatch(FIRST_BATCH_ROOM);
  /** The line of each event of the batch. */
  private lines: number[] = [];

  constructor(private readonly log: Pick<EventLog, 'insert'>) {}

  /** A piece whose domains are all looked up: its rows and refusals merged back into line order. */
  async take(piece: Piece, rows: PieceRows): Promise<void> {
    this.report.rejected += piece.undescribed;
    const { rowLines, refusals } = piece;
    let r = 0;
    for (let i = 0; i < rowLines.length; i += 1) {
      for (; r < refusals.length && refusals[r].line < rowLines[i]; r += 1) this.reject(refusals[r].line, refusalDetail(refusals[r], rows));
      const domain = rows.domain(i);
      if (!domain) this.reject(rowLines[i], unknownDomain(rows.domainId(i)));
      else {
        rows.addTo(this.batch, i, domain);
        this.lines.push(rowLines[i]);
      }
      if (this.batch.n >= BATCH) await this.flush();
    }
    for (; r < refusals.length; r += 1) this.reject(refusals[r].line, refusalDetail(refusals[r], rows));
  }

  /** Stores the events taken so far, as one batch; an id already stored is reported as a duplicate. */
  async flush(): Promise<void> {
    if (this.batch.n === 0) return;
    const batch = this.batch;
    const inserted = await this.log.insert(batch);
    for (let i = 0; i < inserted.length; i += 1) {
      if (inserted[i]) this.report.accepted += 1;
      else this.reject(this.lines[i], `duplicate request id ${batch.id(i)}`);
    }
    this.batch = new EventBatch(FIRST_BATCH_ROOM);
    this.lines = [];
    await yieldToLoop();
  }

  private reject(line: number, detail: string): void {
    this.report.rejected += 1;
    if (this.report.errors.length < MAX_REPORTED) this.report.errors.push({ line, detail });
  }
}

/** A refused line's detail: an unknown domain comes before a refused time. */
function refusalDetail(refusal: { line: number; detail: string; domainId?: number }, rows: PieceRows): string {
  return refusal.domainId !== undefined && !rows.knownDomain(refusal.domainId) ? unknownDomain(refusal.domainId) : refusal.detail;
}

/** The parsing thread failed (it died, or was replaced): the body was not read to its end. */
function parsingFailed(error: Error): never {
  throw new AppError('service_unavailable', `Reading the body stopped before its end (${error.message}); send it again.`);
}
