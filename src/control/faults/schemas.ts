import { Type, type Static } from 'typebox';
import { IntegerEnum, Nullable } from '../../platform/schema.js';

/** Statuses a fault may answer with: the error catalogue's, so the body is the product's real envelope. */
export const FAULT_STATUSES = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503] as const;

export const FaultCreateSchema = Type.Object(
  {
    operationId: Type.Optional(Type.String({ minLength: 1, description: 'Operation id to match (see /openapi.json), e.g. iam.tokens.v2.create' })),
    method: Type.Optional(Type.String({ pattern: '^[A-Za-z]+$', description: 'HTTP method to match (any when absent)' })),
    path: Type.Optional(Type.String({ pattern: '^/', description: 'Path glob: `*` is any text within one segment, `**` any text across segments' })),
    scenario: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Only requests carrying X-Edgeplane-Scenario with this value see the fault' }),
    ),
    status: Type.Optional(IntegerEnum(FAULT_STATUSES, { description: "Answer with this status and the product's error body" })),
    message: Type.Optional(Type.String({ maxLength: 2000, description: 'Error message of the injected answer' })),
    retryAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'Retry-After seconds for 429 and 503 (default 1)' })),
    latencyMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 120_000, description: 'Delay the request by this many milliseconds' })),
    taskError: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'The task created by the matching call ends in ERROR with this reason' }),
    ),
    times: Type.Optional(Type.Integer({ minimum: 1, description: 'Fire for the next N matches only (unlimited when absent)' })),
    probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Fire for this share of matches (default 1)' })),
    seed: Type.Optional(Type.Integer({ description: "Seed of the fault's own random sequence, so a probability is repeatable (default 1)" })),
  },
  { additionalProperties: false },
);
export type FaultCreate = Static<typeof FaultCreateSchema>;

export const FaultSchema = Type.Object({
  id: Type.Integer(),
  operationId: Nullable(Type.String()),
  method: Nullable(Type.String()),
  path: Nullable(Type.String()),
  scenario: Nullable(Type.String()),
  status: Nullable(Type.Integer()),
  message: Nullable(Type.String()),
  retryAfter: Nullable(Type.Integer()),
  latencyMs: Nullable(Type.Integer()),
  taskError: Nullable(Type.String()),
  times: Nullable(Type.Integer()),
  probability: Type.Number(),
  seed: Type.Integer(),
  matched: Type.Integer({ description: 'Requests that matched the selector' }),
  fired: Type.Integer({ description: 'Requests the fault acted on' }),
  remaining: Nullable(Type.Integer({ description: 'Firings left (null: unlimited)' })),
  createdAt: Type.String({ format: 'date-time' }),
});
export type Fault = Static<typeof FaultSchema>;

export const FaultListQuerySchema = Type.Object(
  { scenario: Type.Optional(Type.String({ minLength: 1, description: 'Only faults of this scenario' })) },
  { additionalProperties: false },
);
export const FaultParamsSchema = Type.Object({ faultId: Type.Integer({ minimum: 1 }) });
