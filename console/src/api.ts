// One way to call the server: the public API with the client's token, the control API with the
// operator's. Every product answers errors in its own envelope; ApiError reads them all into one shape
// (a message, and messages per field path such as `options.gzipOn` or `name`).
import { loadSession } from './session';

export type Query = Record<string, string | number | boolean | undefined | null | (string | number)[]>;

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Query;
  body?: unknown;
  /** Which token: the client's (default) or the operator's. */
  as?: 'client' | 'operator';
  signal?: AbortSignal;
  /** Send the body as is, with this content type (file imports). */
  rawBody?: { text: string; type: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Messages per field path (`rule`, `options.gzipOn`, `query.start`). */
    readonly fields: Record<string, string[]>,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The header of the console's periodic refreshes; the server's request journal leaves them out. */
export const POLL_HEADER = 'x-edgeplane-console';
let polling = false;

/** Calls made while `run` runs (synchronously: a call sets its headers before it first waits) are refreshes. */
export function asRefresh<T>(run: () => T): T {
  polling = true;
  try {
    return run();
  } finally {
    polling = false;
  }
}

export async function call<T>(path: string, options: CallOptions = {}): Promise<T> {
  const session = loadSession();
  const token = options.as === 'operator' ? session?.operatorToken : session?.apiKey;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `APIKey ${token}`;
  if (polling) headers[POLL_HEADER] = 'poll';
  let body: string | undefined;
  if (options.rawBody) {
    body = options.rawBody.text;
    headers['content-type'] = options.rawBody.type;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(path + queryString(options.query), { method: options.method ?? 'GET', headers, body, signal: options.signal });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) throw errorFrom(response.status, parsed);
  return parsed as T;
}

type Loose = Record<string, unknown>;

/** Reads any product's error body: CDN/IAM `{errors: {path: [..]}}`, WAAP/cloud/security `errors|detail: [{loc, ...}]`, control `{message}`. */
export function errorFrom(status: number, body: unknown): ApiError {
  const fields: Record<string, string[]> = {};
  const add = (path: string, message: string) => (fields[path] ??= []).push(message);
  const value = (body ?? {}) as Loose;
  if (value.errors && typeof value.errors === 'object' && !Array.isArray(value.errors)) {
    for (const [path, messages] of Object.entries(value.errors as Record<string, unknown>)) {
      for (const message of Array.isArray(messages) ? messages : [messages]) add(path, String(message));
    }
  }
  const located = Array.isArray(value.errors) ? value.errors : Array.isArray(value.detail) ? value.detail : [];
  for (const item of located as Loose[]) {
    const loc = Array.isArray(item.loc) ? item.loc.map(String) : typeof item.path === 'string' ? [item.path] : [];
    // The request part (body, query, path) is implied by the form the field is in.
    const path = (['body', 'query', 'path', 'params', 'querystring'].includes(loc[0]) ? loc.slice(1) : loc).join('.');
    add(path, String(item.msg ?? item.detail ?? item.message ?? 'invalid'));
  }
  const message =
    (typeof value.message === 'string' && value.message) ||
    (typeof value.detail === 'string' && value.detail) ||
    (typeof value.title === 'string' && value.title) ||
    (typeof body === 'string' && body) ||
    (Object.keys(fields).length > 0 ? 'The request has invalid fields' : `HTTP ${status}`);
  return new ApiError(status, message, fields, body);
}

/** Messages of a field path and of everything under it (`options.gzipOn` also gets `options.gzipOn.value`). */
export function fieldErrors(error: unknown, path: string): string[] {
  if (!(error instanceof ApiError)) return [];
  return Object.entries(error.fields)
    .filter(([key]) => key === path || key.startsWith(`${path}.`) || key.startsWith(`${path}[`))
    .flatMap(([key, messages]) => messages.map((message) => (key === path ? message : `${key.slice(path.length + 1)}: ${message}`)));
}
