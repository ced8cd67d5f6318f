// The documented error bodies, checked from the outside: which envelope a path answers in (the README's
// Errors table, src/<product>/index.ts) and the exact shape of each envelope for a given status.

/** HTTP statuses the catalogue can answer with for a client's mistake (src/platform/errors.ts). */
export const CLIENT_ERROR_STATUSES = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422, 429]);

type Kind = 'fieldMap' | 'nestedFieldMap' | 'exception' | 'problem' | 'detailList' | 'errorMessage' | 'streaming' | 'plain' | 'graphql';

// Longest prefix first, as the error handler picks it.
const SURFACES: Array<[string, Kind]> = [
  ['/cdn/advanced', 'graphql'],
  ['/edge-functions', 'errorMessage'],
  ['/_edgeplane', 'plain'],
  ['/security', 'detailList'],
  ['/fastedge', 'errorMessage'],
  ['/dns', 'errorMessage'],
  ['/storage', 'errorMessage'],
  ['/streaming', 'streaming'],
  ['/cloud', 'exception'],
  ['/waap', 'problem'],
  ['/cdn', 'fieldMap'],
  ['/iam', 'nestedFieldMap'],
];

export function envelopeKind(url: string): Kind {
  const path = url.split('?')[0];
  return SURFACES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1] ?? 'plain';
}

const isString = (v: unknown) => typeof v === 'string';
const isLoc = (v: unknown) => Array.isArray(v) && v.length >= 1 && v.every((p) => typeof p === 'string' || typeof p === 'number');
const fieldList = (v: unknown) =>
  Array.isArray(v) && v.length > 0 && v.every((e) => e && isLoc(e.loc) && isString(e.msg) && isString(e.type) && Object.keys(e).length === 3);
/** Django REST's nested errors: every leaf a non-empty list of messages. */
const nestedMessages = (v: unknown, depth = 0): boolean =>
  Array.isArray(v)
    ? v.length > 0 && v.every(isString)
    : !!v && typeof v === 'object' && depth < 16 && Object.keys(v).length > 0 && Object.values(v).every((child) => nestedMessages(child, depth + 1));
// Refused input: 400 or 422, whichever the operation declares (src/platform/errors.ts: fitToDeclared).
const INPUT_STATUSES = new Set([400, 409, 422]);
const exactKeys = (body: Record<string, unknown>, allowed: string[], required: string[]) =>
  Object.keys(body).every((k) => allowed.includes(k)) && required.every((k) => k in body);

/** Empty when the body is the documented envelope of `url` for `status`; otherwise what is wrong. */
export function envelopeProblem(url: string, status: number, body: unknown, requestId: string | undefined): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body is not a JSON object';
  const b = body as Record<string, any>;
  switch (envelopeKind(url)) {
    case 'fieldMap':
      if ('errors' in b) {
        if (!INPUT_STATUSES.has(status) || !exactKeys(b, ['errors'], ['errors'])) return 'errors map outside a 400, 409 or 422';
        // A refusal by the object's state lists its messages: {errors: ["..."]} (docs/cdn.md).
        if (Array.isArray(b.errors)) return b.errors.length > 0 && b.errors.every(isString) ? null : 'errors is not [message]';
        const ok = Object.entries(b.errors).length > 0 && Object.values(b.errors).every((m) => Array.isArray(m) && m.length > 0 && m.every(isString));
        return ok ? null : 'errors map is not {field: [message]}';
      }
      // A used-up quota: {message}; an object in use: {<field>: ["..."]} (docs/cdn.md).
      if ('message' in b)
        return (status === 400 || status === 403) && exactKeys(b, ['message'], ['message']) && isString(b.message)
          ? null
          : 'expected {message} on a 400 or 403';
      if (!('detail' in b)) {
        const keys = Object.keys(b);
        return status === 400 && keys.length === 1 && Array.isArray(b[keys[0]]) && b[keys[0]].length > 0 && b[keys[0]].every(isString)
          ? null
          : 'expected {detail: string}';
      }
      return exactKeys(b, ['detail'], ['detail']) && isString(b.detail) ? null : 'expected {detail: string}';
    case 'nestedFieldMap':
      if ('errors' in b) {
        if (!INPUT_STATUSES.has(status) || !exactKeys(b, ['errors'], ['errors'])) return 'errors map outside a 400, 409 or 422';
        return nestedMessages(b.errors) ? null : 'errors is not a nested {field: [message]} map';
      }
      if ('message' in b) return status === 400 && exactKeys(b, ['message'], ['message']) && isString(b.message) ? null : 'expected {message} only on a 400';
      return exactKeys(b, ['detail'], ['detail']) && isString(b.detail) ? null : 'expected {detail: string}';
    case 'exception': {
      if (!exactKeys(b, ['code', 'exception_class', 'message', 'request_id', 'errors'], ['code', 'exception_class', 'message', 'request_id']))
        return 'expected {code, exception_class, message, request_id}';
      if (b.code !== status || !isString(b.exception_class) || !isString(b.message)) return 'code/exception_class/message wrong';
      if (requestId !== undefined && b.request_id !== requestId) return 'request_id differs from X-Request-Id';
      return 'errors' in b && !fieldList(b.errors) ? 'errors is not [{loc, msg, type}]' : null;
    }
    case 'problem':
      if (status === 401 || status === 403) return exactKeys(b, ['detail'], ['detail']) && isString(b.detail) ? null : 'expected {detail} on 401/403';
      if (!exactKeys(b, ['type', 'title', 'status', 'detail', 'errors'], ['type', 'title', 'status', 'detail']))
        return 'expected {type, title, status, detail}';
      if (b.status !== status || !isString(b.type) || !isString(b.title) || !isString(b.detail)) return 'problem fields wrong';
      if ('errors' in b && (!INPUT_STATUSES.has(status) || !Array.isArray(b.errors) || !b.errors.every((e: any) => isLoc(e.loc) && isString(e.detail))))
        return 'errors is not [{loc, detail}]';
      return null;
    case 'detailList':
      if (!exactKeys(b, ['detail'], ['detail'])) return 'expected {detail}';
      // Refused input lists its fields, with 400 or 422, whichever the operation declares.
      return isString(b.detail) || (INPUT_STATUSES.has(status) && fieldList(b.detail))
        ? null
        : 'detail is neither a string nor [{loc, msg, type}] on refused input';
    case 'errorMessage':
      return exactKeys(b, ['error'], ['error']) && isString(b.error) ? null : 'expected {error: string}';
    case 'streaming':
      // Refused input: {data: [], errors: ["field: message"]}; anything else {error, status}.
      if ('errors' in b)
        return INPUT_STATUSES.has(status) &&
          exactKeys(b, ['data', 'errors'], ['data', 'errors']) &&
          Array.isArray(b.errors) &&
          b.errors.length > 0 &&
          b.errors.every(isString)
          ? null
          : 'expected {data, errors: [string]} on refused input';
      return exactKeys(b, ['error', 'status'], ['error', 'status']) && isString(b.error) && b.status === status ? null : 'expected {error, status}';
    case 'graphql':
      return exactKeys(b, ['errors'], ['errors']) && Array.isArray(b.errors) && b.errors.length > 0 && b.errors.every((e: any) => isString(e.message))
        ? null
        : 'expected {errors: [{message}]}';
    case 'plain': {
      if (!exactKeys(b, ['status', 'code', 'message', 'request_id', 'errors'], ['status', 'code', 'message', 'request_id']))
        return 'expected {status, code, message, request_id}';
      if (b.status !== status || !isString(b.code) || !isString(b.message)) return 'status/code/message wrong';
      if (requestId !== undefined && b.request_id !== requestId) return 'request_id differs from X-Request-Id';
      return 'errors' in b && !fieldList(b.errors) ? 'errors is not [{loc, msg, type}]' : null;
    }
  }
}
