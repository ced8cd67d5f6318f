// How the cloud API refuses input: a 400 (the status the reference declares for the cloud operations
// that declare one, and the one the official client raises BadRequestError for), in the cloud envelope,
// with the fields at fault.
import { AppError, type FieldError } from '../../platform/errors.js';

export { bodyField, queryField } from '../../platform/errors.js';

/** Refused input, one entry per field at fault, all reported at once. */
export function badInput(fields: FieldError[], message?: string): AppError {
  const summary = message ?? fields.map((f) => `${[f.location, ...f.path].join('.')}: ${f.message}`).join('; ');
  return new AppError('bad_request', summary, { fields });
}

/** A refusal that is about the request as a whole (a state, a rule across fields). */
export function badRequest(message: string): AppError {
  return new AppError('bad_request', message);
}
