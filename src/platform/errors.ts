// The one error catalogue: every error the API can answer with has a code here, and each code has one
// HTTP status. Services throw AppError with a code; the error handler turns it into the envelope of the
// product that served the request. Services never mention HTTP statuses.

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type FieldLocation = 'body' | 'query' | 'path' | 'header';

/** One problem with one input field, e.g. {location: 'body', path: ['options', 'gzipOn'], ...}. */
export interface FieldError {
  location: FieldLocation;
  path: (string | number)[];
  message: string;
  /** Machine-readable kind of problem: missing, extra_forbidden, type_error, value_error, conflict, ... */
  type: string;
}

export interface AppErrorOptions {
  fields?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
  /** Answered on purpose by a fault rule: an expected answer, not a defect (logged without a stack). */
  injected?: boolean;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldError[];
  readonly headers: Record<string, string>;
  readonly injected: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    // A client's mistake (4xx) is an answer, not a fault: no stack trace is captured for it. Capturing one
    // through Fastify's frames was the costliest part of a refused request.
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERROR_STATUS[code] < 500 || options.injected) Error.stackTraceLimit = 0;
    try {
      super(message, { cause: options.cause });
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'AppError';
    this.code = code;
    this.fields = options.fields ?? [];
    this.headers = options.headers ?? {};
    this.injected = options.injected ?? false;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The same failure under another code (and so another status). */
  as(code: ErrorCode): AppError {
    return code === this.code
      ? this
      : new AppError(code, this.message, { fields: this.fields, headers: this.headers, cause: this.cause, injected: this.injected });
  }
}

/**
 * Refused input, by the statuses it may be answered with, most fitting first: products speak of
 * validation (422), bad requests (400) and conflicts (409), but a reference operation declares only some.
 */
const INPUT_FAILURES: Partial<Record<ErrorCode, ErrorCode[]>> = {
  validation_failed: ['validation_failed', 'bad_request'],
  bad_request: ['bad_request', 'validation_failed'],
  conflict: ['conflict', 'bad_request', 'validation_failed'],
};

/**
 * An input failure answered with a status the operation declares: a 422 becomes a 400 where the
 * reference declares only 400 (client code catching BadRequestError must see it), and so on. Other
 * failures (401, 403, 404, 413, 429, 503...) keep their status, and so does everything where the
 * operation declares no status of the family: the product's own convention applies there.
 */
export function fitToDeclared(error: AppError, declared: readonly number[] | undefined): AppError {
  const family = INPUT_FAILURES[error.code];
  if (!family || !declared || declared.includes(error.status)) return error;
  const fitting = family.find((code) => declared.includes(ERROR_STATUS[code]));
  return fitting ? error.as(fitting) : error;
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

/** A validation failure of one or more fields, all reported at once. */
export function invalid(fields: FieldError[], message?: string): AppError {
  const summary = message ?? fields.map((f) => `${[f.location, ...f.path].join('.')}: ${f.message}`).join('; ');
  return new AppError('validation_failed', summary, { fields });
}

export function bodyField(path: (string | number)[], message: string, type = 'value_error'): FieldError {
  return { location: 'body', path, message, type };
}

export function queryField(name: string, message: string, type = 'value_error'): FieldError {
  return { location: 'query', path: [name], message, type };
}

/** Dotted name of a field without its location: `options.gzipOn`, `results.0.id`. */
export function fieldName(field: FieldError): string {
  return field.path.join('.');
}
