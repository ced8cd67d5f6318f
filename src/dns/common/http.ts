// What every DNS route shares. The reference declares 400 (and no body schema) for every refusal of the
// DNS API, so schema problems are answered 400 here rather than the platform's usual 422; the product's
// envelope turns every error into `{"error": "..."}`.
import type { FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../../platform/errors.js';
import { ErrorBody } from '../../platform/schema.js';
import { fromFastifyValidation } from '../../platform/validation.js';

export const ERRORS = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** A refusal of the DNS API: 400 with a message naming what is wrong. */
export function badRequest(message: string, fields: FieldError[] = []): AppError {
  return new AppError('bad_request', message, { fields });
}

/** Schema problems of a request (routes validate with attachValidation) as one 400. */
export async function refuseInvalid(request: FastifyRequest): Promise<void> {
  const error = request.validationError as (Error & { validation?: unknown[]; validationContext?: string }) | undefined;
  if (!error) return;
  const invalid = fromFastifyValidation((error.validation ?? []) as never, error.validationContext);
  throw badRequest(invalid.message, invalid.fields);
}

/** Route options every DNS route uses: validation problems become a 400 in the DNS envelope. */
export const VALIDATED = { attachValidation: true, preHandler: refuseInvalid } as const;

/** Offset and limit as the DNS lists take them: no limit (or 0) means every item. */
export function pageOf(query: { offset?: number; limit?: number }): { offset: number; limit: number | undefined } {
  return { offset: query.offset ?? 0, limit: query.limit ? query.limit : undefined };
}
