// What every CDN route shares: schema refusals answered as 400 in the CDN body (the reference's status
// for refused input), and lists that are a plain array unless `limit` is given (then the
// `{count, next, previous, results}` page), as the reference declares and the official client relies on.
import type { FastifyReply, FastifyRequest, FastifySchema, FastifySchemaValidationError } from 'fastify';
import { Type } from 'typebox';
import { AppError, type FieldError, type FieldLocation } from '../platform/errors.js';
import type { Page } from '../platform/pagination.js';
import { Nullable } from '../platform/schema.js';
import { ajvErrorsToFields } from '../platform/validation.js';
import { jsonListText } from '../platform/cooperative.js';
import { refused } from './errors.js';

const LOCATIONS: Record<string, FieldLocation> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Route options of every CDN route: schema problems are a 400 in the CDN body. */
export function cdnRoute<S extends FastifySchema>(schema: S, extra: { attachValidation?: boolean; config?: Record<string, unknown> } = {}) {
  return {
    ...extra,
    schema,
    schemaErrorFormatter: (errors: FastifySchemaValidationError[], dataVar: string) =>
      refused(ajvErrorsToFields(errors as never, LOCATIONS[dataVar] ?? 'body')),
  };
}

/**
 * Body problems found by the schema, for routes that validate with `attachValidation` so that schema
 * problems and the service's own are reported together. Problems elsewhere (path, query) are answered at once.
 */
export function bodyProblems(request: FastifyRequest): FieldError[] {
  const error = request.validationError;
  if (!error) return [];
  const context = (error as { validationContext?: string }).validationContext;
  if (!(error instanceof AppError) || context !== 'body') throw error;
  return error.fields;
}

/** Deprecated features in use are named, with their replacements, in the Deprecation header. */
export function sendWithDeprecations(reply: FastifyReply, body: unknown, deprecations: string[], status = 200) {
  if (deprecations.length > 0) reply.header('deprecation', deprecations.join(', '));
  return reply.status(status).send(body);
}

/** `limit` and `offset` of a CDN list: without `limit` the answer is a plain array. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'Page size (1-1000); when given, the answer is a page object, otherwise a plain array' }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Number of items to skip' })),
};

export interface ListRequest {
  /** Absent: every item (after `offset`), as a plain array. */
  limit?: number;
  offset: number;
}

export function listRequest(query: { limit?: number; offset?: number }): ListRequest {
  return { limit: query.limit, offset: query.offset ?? 0 };
}

/** The response schema of a CDN list: a plain array, or a page when `limit` was given. */
export function ListOf<T extends import('typebox').TSchema>(item: T, description: string) {
  return Type.Union(
    [
      Type.Array(item),
      Type.Object({
        count: Type.Integer({ minimum: 0, description: 'Total over all pages' }),
        next: Nullable(Type.String(), { description: 'URL of the next page' }),
        previous: Nullable(Type.String(), { description: 'URL of the previous page' }),
        results: Type.Array(item),
      }),
    ],
    { description },
  );
}

/** The same URL with other `limit` and `offset` (filters kept). */
function pageUrl(request: FastifyRequest, limit: number, offset: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  return url.toString();
}

/**
 * Answers a list: the page object when `limit` was given, else the items. The items are built to the
 * response schema already; the schema's serializer is not used because it picks a branch of the
 * array-or-page union by validating the whole answer, which its nullable enums do not pass.
 */
export async function sendList<T>(request: FastifyRequest, reply: FastifyReply, list: ListRequest, page: Page<T>) {
  const answer = listAnswer(request, list, page);
  if (page.results.length < SLICED_FROM) return reply.serializer(JSON.stringify).send(answer);
  // A long list is written a slice of items at a time, the event loop getting turns between (the same
  // text as JSON.stringify; a string with a JSON content type is sent as it is).
  const text = Array.isArray(answer)
    ? await jsonListText(answer)
    : // The page's fields, then its results: `results` is the envelope's last key.
      await jsonListText(answer.results, JSON.stringify({ ...answer, results: [] }).slice(0, -2), ']}');
  return reply.type('application/json; charset=utf-8').send(text);
}

/** Lists this long are serialised in slices (see jsonListSlices); shorter ones at once. */
const SLICED_FROM = 100;

function listAnswer<T>(
  request: FastifyRequest,
  list: ListRequest,
  page: Page<T>,
): T[] | { count: number; next: string | null; previous: string | null; results: T[] } {
  if (list.limit === undefined) return page.results;
  const { limit, offset } = { limit: list.limit, offset: list.offset };
  const next = offset + page.results.length < page.count ? pageUrl(request, limit, offset + limit) : null;
  const previous = offset > 0 ? pageUrl(request, limit, Math.max(0, offset - limit)) : null;
  return { count: page.count, next, previous, results: page.results };
}

/** One page of items already filtered in memory (collections bounded by a quota). */
export function pageOf<T>(items: T[], list: ListRequest): Page<T> {
  const end = list.limit === undefined ? undefined : list.offset + list.limit;
  return { count: items.length, results: items.slice(list.offset, end) };
}
