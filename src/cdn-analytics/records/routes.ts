// Control API of the CDN access-record log: ingestion (JSON array or NDJSON), the deterministic
// generator, a per-client count and an on-demand retention run. Operator token only.
import type { FastifyInstance } from 'fastify';
import { typed } from '../../platform/typed.js';
import { UnparseableLine } from './model.js';
import { CountQuery, CountResult, GenerateBody, GenerateResult, IngestBody, IngestReportSchema, PurgeResult } from './schemas.js';
import type { AccessRecordService } from './service.js';

const TAG = 'Edgeplane control';
const BASE = '/_edgeplane/cdn/access-records';
// Large batches are the point of this route; the server-wide body limit is tuned for API calls.
const INGEST_BODY_LIMIT = 64 * 1024 * 1024;

/** NDJSON: one record per line; a line that is not JSON stays in place so the report can name it. */
function parseNdjson(text: string): unknown[] {
  const records: unknown[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
    } catch (error) {
      records.push(new UnparseableLine(`line ${i + 1} is not valid JSON: ${(error as Error).message}`));
    }
  });
  return records;
}

export async function recordRoutes(fastify: FastifyInstance, records: AccessRecordService): Promise<void> {
  const app = typed(fastify);
  // Encapsulated so the NDJSON parser applies to these routes only.
  await app.register(async (scope) => {
    scope.addContentTypeParser(['application/x-ndjson', 'application/jsonl'], { parseAs: 'string', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) => {
      done(null, parseNdjson(body as string));
    });
    typed(scope).post(
      BASE,
      {
        config: { access: 'operator' },
        bodyLimit: INGEST_BODY_LIMIT,
        schema: {
          operationId: 'control.cdnAccessRecords.ingest',
          tags: [TAG],
          summary: 'Ingest CDN access records (JSON array or NDJSON); valid records are stored, invalid ones reported',
          body: IngestBody,
          response: { 200: IngestReportSchema },
        },
      },
      async (request) => records.ingest(request.body),
    );
  });

  app.post(
    `${BASE}/generate`,
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.cdnAccessRecords.generate',
        tags: [TAG],
        summary: 'Generate deterministic CDN access records for a client',
        body: GenerateBody,
        response: { 200: GenerateResult },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await records.generate({ ...body, end: body.end === undefined ? undefined : Date.parse(body.end) });
      return { generated: result.generated, from: new Date(result.from).toISOString(), to: new Date(result.to).toISOString() };
    },
  );

  app.get(
    `${BASE}/count`,
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.cdnAccessRecords.count',
        tags: [TAG],
        summary: "Number of a client's stored access records",
        querystring: CountQuery,
        response: { 200: CountResult },
      },
    },
    async (request) => {
      const { clientId } = request.query;
      return { clientId, count: await records.countForClient(clientId) };
    },
  );

  app.post(
    `${BASE}/purge`,
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.cdnAccessRecords.purge',
        tags: [TAG],
        summary: 'Run the retention job now (records older than 90 days)',
        response: { 200: PurgeResult },
      },
    },
    async () => ({ deleted: await records.purgeExpired() }),
  );
}
