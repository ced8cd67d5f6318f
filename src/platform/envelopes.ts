// Error-body styles. Each product picks the style its real API uses (see its index.ts); the error handler
// calls the picked style. The styles are product-agnostic: they only know about AppError.
import { type AppError, type ErrorCode, fieldName } from './errors.js';

export interface ErrorContext {
  requestId: string;
}

/** Turns an AppError into the JSON body a product answers with. */
export type ErrorEnvelope = (error: AppError, context: ErrorContext) => unknown;

const STATUS_TITLES: Record<ErrorCode, string> = {
  bad_request: 'Bad Request',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not Found',
  method_not_allowed: 'Method Not Allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload Too Large',
  unsupported_media_type: 'Unsupported Media Type',
  validation_failed: 'Request validation error.',
  rate_limited: 'Too Many Requests',
  internal: 'Internal server error.',
  service_unavailable: 'Service Unavailable',
};

const PROBLEM_TYPES: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'request-validation-failed',
  internal: 'internal-server-error',
};

/**
 * Problem-details style: `{type, title, status, detail}`, with `errors: [{loc, detail}]` on validation
 * failures; 401 and 403 carry only `{detail}`.
 */
export const problemEnvelope: ErrorEnvelope = (error) => {
  if (error.code === 'unauthorized' || error.code === 'forbidden') return { detail: error.message };
  const type = PROBLEM_TYPES[error.code] ?? `http-${STATUS_TITLES[error.code].toLowerCase().replace(/\s+/g, '-')}`;
  const body: Record<string, unknown> = { type, title: STATUS_TITLES[error.code], status: error.status, detail: error.message };
  if (error.fields.length > 0) {
    body.errors = error.fields.map((f) => ({ loc: [f.location, ...f.path.map(String)], detail: f.message }));
  }
  return body;
};

/** FastAPI style: `{detail: [{loc, msg, type}]}` for validation failures, `{detail: string}` otherwise. */
export const detailListEnvelope: ErrorEnvelope = (error) => {
  if (error.fields.length > 0) {
    return { detail: error.fields.map((f) => ({ loc: [f.location, ...f.path], msg: f.message, type: f.type })) };
  }
  return { detail: error.message };
};

/** Django REST style: `{errors: {"field.path": ["message"]}}` for validation failures, `{detail}` otherwise. */
export const fieldMapEnvelope: ErrorEnvelope = (error) => {
  if (error.fields.length > 0) {
    const errors: Record<string, string[]> = {};
    for (const field of error.fields) {
      const key = field.location === 'body' ? fieldName(field) || 'body' : [field.location, ...field.path].join('.');
      (errors[key] ??= []).push(field.message);
    }
    return { errors };
  }
  return { detail: error.message };
};

/**
 * Django REST style with nested keys, as a nested serializer reports them: `{errors: {"client_user":
 * {"role": ["message"]}}}` for refused fields (a field under a list item is keyed by its index), and
 * `{message}` for a body that is not JSON; `{detail}` otherwise.
 */
export const nestedFieldMapEnvelope: ErrorEnvelope = (error) => {
  if (error.fields.length > 0) {
    const errors: Record<string, unknown> = {};
    for (const field of error.fields) {
      const path = field.location === 'body' ? field.path.map(String) : [field.location, ...field.path.map(String)];
      if (path.length === 0) path.push('non_field_errors');
      let node = errors;
      for (const key of path.slice(0, -1)) {
        // A key already holding messages (a parent refused as a whole) keeps them beside the nested ones.
        const existing = node[key];
        if (existing === undefined) node[key] = {};
        else if (Array.isArray(existing)) node[key] = { non_field_errors: existing };
        node = node[key] as Record<string, unknown>;
      }
      const last = path[path.length - 1];
      const existing = node[last] as string[] | Record<string, string[]> | undefined;
      if (existing === undefined) node[last] = [field.message];
      else if (Array.isArray(existing)) existing.push(field.message);
      else (existing.non_field_errors ??= []).push(field.message);
    }
    return { errors };
  }
  if (error.code === 'bad_request' && error.message.startsWith('JSON parse error')) return { message: error.message };
  return { detail: error.message };
};

const EXCEPTION_CLASSES: Record<ErrorCode, string> = {
  bad_request: 'BadRequestError',
  unauthorized: 'NotAuthenticatedError',
  forbidden: 'PermissionDeniedError',
  not_found: 'NotFoundError',
  method_not_allowed: 'MethodNotAllowedError',
  conflict: 'ConflictError',
  payload_too_large: 'PayloadTooLargeError',
  unsupported_media_type: 'UnsupportedMediaTypeError',
  validation_failed: 'ValidationError',
  rate_limited: 'TooManyRequestsError',
  internal: 'InternalServerError',
  service_unavailable: 'ServiceUnavailableError',
};

/** Cloud style: `{code, exception_class, message, request_id}` plus `errors: [{loc, msg, type}]` on validation. */
export const exceptionEnvelope: ErrorEnvelope = (error, { requestId }) => {
  const body: Record<string, unknown> = {
    code: error.status,
    exception_class: EXCEPTION_CLASSES[error.code],
    message: error.message,
    request_id: requestId,
  };
  if (error.fields.length > 0) {
    body.errors = error.fields.map((f) => ({ loc: [f.location, ...f.path], msg: f.message, type: f.type }));
  }
  return body;
};

/** Edgeplane's own style (control API and paths no product owns): `{status, code, message, errors?}`. */
export const plainEnvelope: ErrorEnvelope = (error, { requestId }) => {
  const body: Record<string, unknown> = { status: error.status, code: error.code, message: error.message, request_id: requestId };
  if (error.fields.length > 0) {
    body.errors = error.fields.map((f) => ({ loc: [f.location, ...f.path], msg: f.message, type: f.type }));
  }
  return body;
};

/**
 * Single-message style: `{error: "..."}` for every error, validation included (the FastEdge API's `error`
 * schema). Validation failures keep the per-field detail inside the message.
 */
export const errorMessageEnvelope: ErrorEnvelope = (error) => ({ error: error.message });
