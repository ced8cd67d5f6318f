import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { Nullable } from '../../platform/schema.js';
import { STATE_FORMAT, type StateDocument, type StateService } from './service.js';

const RowsSchema = Type.Array(Type.Record(Type.String(), Type.Unknown()));
export const StateDocumentSchema = Type.Object(
  {
    format: Type.Literal(STATE_FORMAT),
    version: Type.String({ minLength: 1, description: 'Schema version (last migration) of the exporting server' }),
    exportedAt: Type.String({ format: 'date-time' }),
    clientId: Nullable(Type.Integer({ description: "Set when the document holds one client's rows only" })),
    tables: Type.Record(Type.String(), RowsSchema, { description: 'Rows of every table, by table name' }),
  },
  { additionalProperties: false },
);

const ExportQuerySchema = Type.Object(
  { clientId: Type.Optional(Type.Integer({ minimum: 1, description: "Export only this client's rows" })) },
  { additionalProperties: false },
);
const ResetSchema = Type.Object(
  { clientId: Type.Optional(Type.Integer({ minimum: 1, description: 'Reset only this client (delete its rows)' })) },
  { additionalProperties: false },
);
const DemoSchema = Type.Object({ clientId: Type.Integer(), apiKey: Type.String({ description: 'API token of the re-created demo client' }) });

export interface ResetHooks {
  /** Runs after a full reset: clears in-memory control state and re-creates the demo account. */
  afterFullReset(): Promise<{ clientId: number; apiKey: string } | undefined>;
}

const tags = ['Edgeplane control'];
const config = { access: 'operator' as const };
// A whole-server document is far bigger than an API body; the import route alone accepts up to 1 GiB.
const IMPORT_BODY_LIMIT = 1024 * 1024 * 1024;

export function stateRoutes(app: FastifyInstance, state: StateService, hooks: ResetHooks): void {
  app.get<{ Querystring: Static<typeof ExportQuerySchema> }>(
    '/_edgeplane/state',
    {
      config,
      schema: {
        operationId: 'control.state.export',
        tags,
        summary: "Export the whole state, or one client's, as one versioned JSON document",
        querystring: ExportQuerySchema,
        response: { 200: StateDocumentSchema },
      },
    },
    // Streamed as it is read (the schema documents the shape; the text is written by the service).
    async (request, reply) => reply.type('application/json; charset=utf-8').send(Readable.from(await state.exportChunks(request.query.clientId))),
  );

  app.put<{ Body: StateDocument }>(
    '/_edgeplane/state',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      config,
      schema: {
        operationId: 'control.state.import',
        tags,
        summary: "Import a state document (replaces everything, or that client's rows); all-or-nothing",
        body: StateDocumentSchema,
        response: { 200: Type.Object({ version: Type.String(), tables: Type.Integer(), rows: Type.Integer() }) },
      },
    },
    async (request) => ({ version: state.latestVersion(), ...(await state.import(request.body)) }),
  );

  app.post<{ Body: Static<typeof ResetSchema> }>(
    '/_edgeplane/state/reset',
    {
      config,
      // A bare POST (no body) means "everything".
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'control.state.reset',
        tags,
        summary: 'Delete everything (then re-create the demo client, faults and journal emptied), or one client',
        body: ResetSchema,
        response: { 200: Type.Object({ clientId: Nullable(Type.Integer()), demo: Nullable(DemoSchema) }) },
      },
    },
    async (request) => {
      const clientId = request.body.clientId;
      await state.reset(clientId);
      const demo = clientId === undefined ? await hooks.afterFullReset() : undefined;
      return { clientId: clientId ?? null, demo: demo ?? null };
    },
  );
}
