// JSON request bodies. Official clients send `Content-Type: application/json` on DELETE with no body, so
// an empty body is "no body", not an error. Prototype-poisoning keys are refused (Fastify's own parser
// does that). A client's large body is checked in a thread of its own (json-body-thread.ts): a client
// sending 1 MB bodies one after another, nested too deep or full of members no route reads, kept the
// main thread 77-94% busy parsing what it then refused or dropped.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BodyShape, bodyShape } from './body-shape.js';
import { AppError, type FieldError } from './errors.js';
import { keepBodyText, MANY_ITEMS } from './json-body-text.js';
import { parseJsonInPieces } from './json-pieces.js';
import { type JsonCheck, MAX_ARRAY_ITEMS, MAX_JSON_DEPTH, scanJson } from './json-text.js';
import { BODY_CHECK_MS, type BodyCheck, markPruned, markStorable } from './validation.js';
import { moduleWorker, WorkerPool } from './workers.js';

/**
 * Clients' bodies longer than this are checked in the thread, and what the main thread still parses of
 * them is parsed a piece at a time, with turns of the event loop between pieces: JSON.parse of a 1 MB
 * body held the main thread 9 to 20 ms in one piece, and every other client waited (see json-pieces.ts).
 */
export const LARGE_JSON = 64 * 1024;

const tooDeep = () => new AppError('bad_request', `JSON parse error - arrays and objects nest more than ${MAX_JSON_DEPTH} levels deep`);
const tooLong = () => new AppError('bad_request', `The body's arrays hold more than ${MAX_ARRAY_ITEMS} items in all`);
const notJson = (message: string) => new AppError('bad_request', `JSON parse error - ${message}`);
const poisoned = () => notJson('Object contains forbidden prototype property');
const REFUSALS = { 'too-deep': tooDeep, 'too-long': tooLong, prototype: poisoned };
const threadFailed = (error: Error): never => {
  throw new AppError('service_unavailable', `Reading the body stopped before its end (${error.message}); send it again.`);
};

/** Bodies of the provider's API (not the control API's, which refuse unknown fields): where pruning applies. */
const isApiRoute = (url: string | undefined) => url !== undefined && !url.startsWith('/_edgeplane');

/** Large bodies, checked and pruned in the thread; its pool starts on the first one. */
export class JsonBodyReading {
  private pool: WorkerPool | undefined;
  private readonly shapes = new WeakMap<object, BodyShape | null>();

  constructor(readonly largeFrom = LARGE_JSON) {}

  /** What the route of a request declares of its body (null: nothing to prune, or not an API route). */
  shapeFor(request: FastifyRequest): BodyShape | null {
    const route = request.routeOptions;
    const schema = route.schema?.body;
    if (!schema || typeof schema !== 'object' || !isApiRoute(route.url)) return null;
    let shape = this.shapes.get(schema);
    if (shape === undefined) this.shapes.set(schema, (shape = bodyShape(schema)));
    return shape;
  }

  /**
   * The value of a large body, as its bytes arrived (moved to the thread, not copied, when they own their
   * memory). The thread decodes and checks them, and refuses the body or sends back the text to parse: the
   * body without the members its route does not declare, or all of it when there were none.
   */
  async read(bytes: Uint8Array, shape: BodyShape | null): Promise<unknown> {
    const pool = this.threads();
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
    // A view of shared memory (Buffer's pool) is copied: moving it would detach the others' bytes.
    const sent = own ? bytes : new Uint8Array(bytes);
    const check = await pool.call<JsonCheck>({ bytes: sent, shape }, { transfer: [sent.buffer as ArrayBuffer] }).catch(threadFailed);
    if (check.refused !== undefined) throw check.refused === 'syntax' ? notJson(check.message) : REFUSALS[check.refused]();
    if (check.parse === '') return undefined;
    let value: unknown;
    try {
      value = check.parse.length > this.largeFrom ? await parseJsonInPieces(check.parse) : JSON.parse(check.parse);
    } catch (error) {
      // The thread's parse accepted this text; the pieces' parse agrees with JSON.parse (json-pieces.test.ts).
      throw notJson((error as Error).message);
    }
    if (check.storable) {
      markStorable(value);
      if (shape) markPruned(value);
    }
    keepBodyText(value, check.parse);
    return value;
  }

  /** A body's validation in the thread (see inThreadFirst, validation.ts): its failing fields. */
  check(check: BodyCheck): Promise<FieldError[]> {
    return this.threads().call<FieldError[]>({ check }, { timeoutMs: BODY_CHECK_MS });
  }

  private threads(): WorkerPool {
    return (this.pool ??= new WorkerPool(() => moduleWorker(import.meta.url, './json-body-thread.ts', 'json-body-worker.cjs', null), 1));
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}

export function registerJsonParser(app: FastifyInstance, large: JsonBodyReading): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Only JSON is accepted by default; a route that takes another type adds its own parser.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  // Bytes, not text: a large body's are decoded in the thread (UTF-8 decoding of 1 MB was a quarter of
  // what such a body still cost the main thread).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    // The operator's routes (state import, seed: up to 256 MiB) are no tenant's traffic: they keep the
    // one-piece parse on the main thread, where a copy to a thread and the pieces would add seconds.
    if (bytes.length > large.largeFrom && request.facts.access !== 'operator') {
      large.read(bytes, large.shapeFor(request)).then(
        (value) => done(null, value),
        (error: Error) => done(error, undefined),
      );
      return;
    }
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const scan = scanJson(text, MAX_JSON_DEPTH);
    if (scan.tooDeep) return done(tooDeep(), undefined);
    // The operator's state imports and seeds hold arrays of rows: theirs are not bounded.
    if (scan.tooLong && request.facts.access !== 'operator') return done(tooLong(), undefined);
    parseJson(request, text, (error: Error | null, value?: unknown) => {
      if (error) return done(notJson(error.message), undefined);
      if (scan.storable) markStorable(value);
      // Not the operator's: a state import would hold its text (up to 256 MiB) beside its rows, for nothing.
      if (scan.items >= MANY_ITEMS && request.facts.access !== 'operator') keepBodyText(value, text);
      done(null, value);
    });
  });
}
