import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { AppError } from '../../platform/errors.js';
import { InflateTimedOut, InflateTooLarge, type Inflater } from '../../platform/inflate.js';
import type { EventIngestor } from './ingest.js';
import type { RetentionJob } from './maintenance.js';
import { DetailsParams, EventDetails, EventPage, EventSummary, filterQuery, IngestReport, ListQuery, timeQuery } from './schemas.js';
import type { RequestEventService } from './service.js';
import { csvField } from './log/index.js';

/**
 * Ingestion bodies may be far larger than the API's default body limit; the same bound holds for a
 * gzip body once inflated (a 21 MB gzip bomb inflated to 5 GB and stalled the server). 256 MiB also keeps
 * the text under V8's longest string.
 */
export const INGEST_BODY_LIMIT = 256 * 1024 * 1024;

export interface GenerateHandler {
  generate(body: { client_ids: number[]; events: number; days: number; seed: number; first_share?: number }): Promise<unknown>;
}

export function requestEventRoutes(app: FastifyInstance, events: RequestEventService): void {
  app.get<{ Querystring: ListQuery }>(
    '/waap/v1/analytics/requests',
    {
      schema: {
        operationId: 'waap.requestEvents.list',
        tags: ['WAAP'],
        summary: "Request log over the account's domains (last 30 days), filtered, with the exact total",
        querystring: ListQuery,
        response: { 200: EventPage },
      },
    },
    async (request) => events.list(principalOf(request).clientId, request.query),
  );

  app.get<{ Params: { domain_id: number; request_id: string } }>(
    '/waap/v1/domains/:domain_id/requests/:request_id/details',
    {
      schema: {
        operationId: 'waap.requestEvents.details',
        tags: ['WAAP'],
        summary: 'Details of one request event of a domain',
        params: DetailsParams,
        response: { 200: EventDetails },
      },
    },
    async (request) => events.details(principalOf(request).clientId, request.params.domain_id, request.params.request_id),
  );
}

const CsvQuery = Type.Object({
  client_id: Type.Integer({ exclusiveMinimum: 0, description: 'The client whose log is exported' }),
  ...timeQuery,
  ...Object.fromEntries(Object.entries(filterQuery).map(([k, v]) => [k, Type.Optional(v)])),
});

const GenerateBody = Type.Object(
  {
    client_ids: Type.Array(Type.Integer({ exclusiveMinimum: 0 }), { minItems: 1, maxItems: 1000 }),
    events: Type.Integer({ minimum: 1, maximum: 20_000_000 }),
    days: Type.Number({ exclusiveMinimum: 0, maximum: 30 }),
    seed: Type.Integer({ default: 1 }),
    first_share: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

/** The /_edgeplane side of the log: bulk ingestion, the generator, retention and the CSV export. */
export function requestEventControlRoutes(
  app: FastifyInstance,
  deps: { events: RequestEventService; ingestor: EventIngestor; retention: RetentionJob; generator: GenerateHandler; inflater: Inflater },
): void {
  const { events, ingestor, retention, generator, inflater } = deps;

  // Encapsulated so the NDJSON and gzip parsers apply to this route only.
  app.register(async (scoped) => {
    // Inflated in a thread of its own and stopped at the body limit (see Inflater).
    const parse = async (request: { headers: Record<string, unknown> }, body: Buffer) => {
      const zipped = request.headers['content-encoding'] === 'gzip' || String(request.headers['content-type']).startsWith('application/gzip');
      if (!zipped) return body;
      try {
        return await inflater.gunzip(body);
      } catch (error) {
        if (error instanceof InflateTooLarge) {
          throw new AppError('payload_too_large', `The gzip body inflates to more than ${INGEST_BODY_LIMIT} bytes; send it in smaller parts.`);
        }
        if (error instanceof InflateTimedOut) {
          throw new AppError('service_unavailable', 'Inflating the gzip body took too long and was stopped; try again, or send it in smaller parts.');
        }
        throw new AppError('bad_request', `Body is not valid gzip: ${(error as Error).message}`);
      }
    };
    scoped.addContentTypeParser(
      ['application/x-ndjson', 'application/jsonl', 'application/gzip'],
      { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT },
      parse as never,
    );
    scoped.post(
      '/_edgeplane/waap/events',
      {
        bodyLimit: INGEST_BODY_LIMIT,
        config: { access: 'operator' },
        schema: {
          operationId: 'control.waap.events.ingest',
          tags: ['Edgeplane control'],
          summary: 'Bulk-ingests request events as newline-delimited JSON (optionally gzip); reports accepted and rejected lines',
          response: { 200: IngestReport },
        },
      },
      async (request) => {
        if (!Buffer.isBuffer(request.body)) throw new AppError('bad_request', 'Send application/x-ndjson (optionally gzip-compressed)');
        return ingestor.ingest(request.body);
      },
    );
  });

  app.post<{ Body: { client_ids: number[]; events: number; days: number; seed: number; first_share?: number } }>(
    '/_edgeplane/waap/generate',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.waap.events.generate',
        tags: ['Edgeplane control'],
        summary: 'Generates deterministic realistic traffic for clients',
        body: GenerateBody,
      },
    },
    async (request) => generator.generate(request.body),
  );

  app.post(
    '/_edgeplane/waap/retention/run',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.waap.retention.run',
        tags: ['Edgeplane control'],
        summary: 'Runs the retention job now',
        response: { 200: Type.Object({ deleted: Type.Integer() }) },
      },
    },
    async () => ({ deleted: await retention.run() }),
  );

  app.get<{ Querystring: Record<string, unknown> & { client_id: number } }>(
    '/_edgeplane/waap/requests.csv',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.waap.events.exportCsv',
        tags: ['Edgeplane control'],
        summary: "Streams a client's filtered request log as CSV (the list's filters)",
        querystring: CsvQuery,
      },
    },
    async (request, reply) => {
      const filter = events.filter(request.query.client_id, request.query);
      // Pulled by the reply: a chunk is read and formatted only once the one before has gone to the
      // socket, so a slow client holds the export back instead of the server buffering it.
      const body = Readable.from(csvText(events.csvChunks(filter, CSV_COLUMNS)), { objectMode: false, highWaterMark: 1 });
      reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="requests.csv"');
      return reply.send(body);
    },
  );
}

const CSV_COLUMNS = Object.keys(EventSummary.properties);
const CSV_HEADER = `${CSV_COLUMNS.map(csvField).join(',')}\n`;

/**
 * The CSV: the header line, then each chunk's lines as the reader thread formatted them. Each chunk is a
 * turn of the event loop of its own (the stream asks for the next one when this one has gone out).
 */
async function* csvText(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  yield Buffer.from(CSV_HEADER);
  yield* chunks;
}
