// CDN errors and their bodies. The reference declares 400 for refused input on the CDN operations (not
// 422), with the body `{errors: {"field.path": ["message"]}}`, and a few other shapes for particular
// refusals: `{errors: ["message"]}` when an object's state forbids the call (an active resource cannot be
// deleted), `{<field>: ["message"]}` when an origin group in use cannot be deleted, and `{message}` when
// a quota of the account is used up. Services pick the shape with these helpers; the envelope writes it.
import { AppError, type ErrorCode, type FieldError } from '../platform/errors.js';
import { type ErrorEnvelope, fieldMapEnvelope } from '../platform/envelopes.js';

type Shape = { kind: 'list'; messages: string[] } | { kind: 'bare'; field: string } | { kind: 'message' };

/** An AppError whose body takes one of the CDN's particular shapes. */
export class CdnError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly shape: Shape,
    headers: Record<string, string> = {},
  ) {
    super(code, message, { headers });
    this.name = 'CdnError';
  }
}

/** Refused input: 400 with every problem, each under its field path. */
export function refused(fields: FieldError[]): AppError {
  const summary = fields.map((f) => `${[f.location, ...f.path].join('.')}: ${f.message}`).join('; ');
  return new AppError('bad_request', summary, { fields });
}

/** An action the object's state forbids (400 `{errors: [message, ...]}`). */
export function stateRefusal(...messages: [string, ...string[]]): CdnError {
  return new CdnError('bad_request', messages.join('; '), { kind: 'list', messages });
}

/** A refusal reported under one top-level key, without the `errors` wrapper (400 `{field: [message]}`). */
export function bareRefusal(field: string, message: string): CdnError {
  return new CdnError('bad_request', message, { kind: 'bare', field });
}

/** A used-up account limit answered as `{message}` (the status is the operation's declared one). */
export function limitReached(code: ErrorCode, message: string): CdnError {
  return new CdnError(code, message, { kind: 'message' });
}

/** Too many purge or prefetch requests in the period; the official client is told not to retry. */
export function rateLimited(message: string, retryAfterSeconds: number): AppError {
  return new AppError('rate_limited', message, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))), 'x-should-retry': 'false' } });
}

export const cdnEnvelope: ErrorEnvelope = (error, context) => {
  if (!(error instanceof CdnError)) return fieldMapEnvelope(error, context);
  switch (error.shape.kind) {
    case 'list':
      return { errors: error.shape.messages };
    case 'bare':
      return { [error.shape.field]: [error.message] };
    case 'message':
      return { message: error.message };
  }
};
