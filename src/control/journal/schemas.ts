import { Type, type Static } from 'typebox';
import { paginationQuery } from '../../platform/pagination.js';
import { Nullable, StringEnum } from '../../platform/schema.js';

export const JournalEntrySchema = Type.Object({
  seq: Type.Integer({ description: 'Position in the journal since the server started (never reused)' }),
  time: Type.String({ format: 'date-time', description: 'Server-clock time the request arrived' }),
  requestId: Type.String(),
  clientId: Nullable(Type.Integer({ description: 'Account of the token (null: no token, or the operator)' })),
  operationId: Nullable(Type.String({ description: 'null when no route matched' })),
  method: Type.String(),
  path: Type.String(),
  query: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
  headers: Type.Record(Type.String(), Type.String(), { description: 'Request headers, credentials redacted' }),
  scenario: Nullable(Type.String({ description: 'X-Edgeplane-Scenario of the request' })),
  status: Type.Integer(),
  durationMs: Type.Number({ description: 'Real (wall-clock) time spent answering' }),
  requestBody: Nullable(Type.String({ description: 'JSON text, secrets redacted, cut at the configured size; only with journal bodies on' })),
  responseBody: Nullable(Type.String({ description: 'Same rules as requestBody' })),
});
export type JournalEntry = Static<typeof JournalEntrySchema>;

export const JournalQuerySchema = Type.Object(
  {
    clientId: Type.Optional(Type.Integer()),
    operationId: Type.Optional(Type.String()),
    method: Type.Optional(Type.String()),
    path: Type.Optional(Type.String({ description: 'Path glob (`*` within a segment, `**` across)' })),
    status: Type.Optional(Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), { description: 'One or more statuses' })),
    scenario: Type.Optional(Type.String()),
    requestId: Type.Optional(Type.String()),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Arrived at or after (server clock)' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Arrived before (server clock)' })),
    order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'asc', description: 'asc: oldest first' })),
    ...paginationQuery({ defaultLimit: 100, maxLimit: 1000 }),
  },
  { additionalProperties: false },
);
export type JournalQuery = Static<typeof JournalQuerySchema>;
