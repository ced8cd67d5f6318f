// Control-API shapes for CDN access records (operator only).
import { Type } from 'typebox';
import { RETENTION_DAYS } from './model.js';
import { MAX_GENERATED_RECORDS } from './generator.js';

export const IngestBody = Type.Array(Type.Unknown(), {
  description: 'Access records: {clientId, timestamp, resourceId, host, path, country, browser, device, os, bytes, status, clientIp, visitorId?}',
});

export const IngestReportSchema = Type.Object({
  received: Type.Integer(),
  accepted: Type.Integer({ description: 'Records stored' }),
  rejected: Type.Integer({ description: 'Records refused (not stored)' }),
  errors: Type.Array(
    Type.Object({ index: Type.Integer({ description: 'Position of the record (or NDJSON line) in the batch' }), field: Type.String(), message: Type.String() }),
    {
      description: 'The first 100 problems',
    },
  ),
});

export const GenerateBody = Type.Object(
  {
    clientId: Type.Integer({ minimum: 1 }),
    records: Type.Integer({ minimum: 1, maximum: MAX_GENERATED_RECORDS }),
    days: Type.Integer({ minimum: 1, maximum: RETENTION_DAYS }),
    seed: Type.Integer({ minimum: 0, maximum: 4294967295 }),
    end: Type.Optional(
      Type.String({ format: 'date-time', description: 'End of the generated period; default the server clock. Same options and end give the same records.' }),
    ),
    resourceIds: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const GenerateResult = Type.Object({ generated: Type.Integer(), from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }) });

export const CountQuery = Type.Object({ clientId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export const CountResult = Type.Object({ clientId: Type.Integer(), count: Type.Integer() });
export const PurgeResult = Type.Object({ deleted: Type.Integer({ description: 'Records past the 90-day retention that were deleted' }) });
