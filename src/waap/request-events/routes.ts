import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { stringify } from 'csv-stringify';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { AppError } from '../../platform/errors.js';
import type { EventIngestor } from './ingest.js';
import type { RetentionJob } from './retention.js';
import { DetailsParams, EventDetails, EventPage, EventSummary, filterQuery, IngestReport, ListQuery, timeQuery } from './schemas.js';
import type { RequestEventService } from './service.js';

/** Ingestion bodies may be far larger than the API's default body limit. */
const INGEST_BODY_LIMIT = 512 * 1024 * 1024;

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
export function requestEventControlRoutes(app: FastifyInstance, deps: { events: RequestEventService; ingestor: EventIngestor; retention: RetentionJob; generator: GenerateHandler }): void {
  const { events, ingestor, retention, generator } = deps;

  // Encapsulated so the NDJSON and gzip parsers apply to this route only.
  app.register(async (scoped) => {
    const parse = (request: { headers: Record<string, unknown> }, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
      try {
        const zipped = request.headers['content-encoding'] === 'gzip' || String(request.headers['content-type']).startsWith('application/gzip');
        done(null, (zipped ? gunzipSync(body) : body).toString('utf8'));
      } catch (error) {
        done(new AppError('bad_request', `Body is not valid gzip: ${(error as Error).message}`));
      }
    };
    scoped.addContentTypeParser(['application/x-ndjson', 'application/jsonl', 'application/gzip'], { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT }, parse as never);
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
        if (typeof request.body !== 'string') throw new AppError('bad_request', 'Send application/x-ndjson (optionally gzip-compressed)');
        return ingestor.ingestText(request.body);
      },
    );
  });

  app.post<{ Body: { client_ids: number[]; events: number; days: number; seed: number; first_share?: number } }>(
    '/_edgeplane/waap/generate',
    {
      config: { access: 'operator' },
      schema: { operationId: 'control.waap.events.generate', tags: ['Edgeplane control'], summary: 'Generates deterministic realistic traffic for clients', body: GenerateBody },
    },
    async (request) => generator.generate(request.body),
  );

  app.post(
    '/_edgeplane/waap/retention/run',
    {
      config: { access: 'operator' },
      schema: { operationId: 'control.waap.retention.run', tags: ['Edgeplane control'], summary: 'Runs the retention job now', response: { 200: Type.Object({ deleted: Type.Integer() }) } },
    },
    async () => ({ deleted: await retention.run() }),
  );

  app.get<{ Querystring: Record<string, unknown> & { client_id: number } }>(
    '/_edgeplane/waap/requests.csv',
    {
      config: { access: 'operator' },
      schema: { operationId: 'control.waap.events.exportCsv', tags: ['Edgeplane control'], summary: "Streams a client's filtered request log as CSV (the list's filters)", querystring: CsvQuery },
    },
    async (request, reply) => {
      const filter = events.filter(request.query.client_id, request.query);
      const columns = Object.keys(EventSummary.properties);
      const source = Readable.from(events.stream(filter));
      const csv = stringify({ header: true, columns, cast: { number: String } });
      source.on('error', (error) => csv.destroy(error));
      reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="requests.csv"');
      return reply.send(source.pipe(csv));
    },
  );
}
