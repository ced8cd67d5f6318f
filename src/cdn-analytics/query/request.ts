// What makes a body a GraphQL request (GraphQL over HTTP): a JSON object with a `query` string and
// optional `variables` (object) and `operationName` (string). Anything else is an HTTP 400.
import { AppError } from '../../platform/errors.js';
import type { GraphQLRequest } from './executor.js';

/**
 * Characters of a document and of an operation name. The route checks its body here rather than through its
 * schema, so it states these bounds itself (graphql-js, which limits.ts needs, is loaded on first query).
 */
export const MAX_QUERY_LENGTH = 262_144;
export const MAX_OPERATION_NAME_LENGTH = 1_024;

const notARequest = (why: string) => new AppError('bad_request', `The body is not a GraphQL request: ${why}`);

export function graphQLRequestOf(body: unknown): GraphQLRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw notARequest('expected a JSON object {"query": "...", "variables": {...}, "operationName": "..."}.');
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (query === undefined || query === null) throw notARequest('"query" is missing.');
  if (typeof query !== 'string') throw notARequest('"query" must be a string.');
  if (query.length > MAX_QUERY_LENGTH) throw notARequest(`"query" is longer than ${MAX_QUERY_LENGTH} characters.`);
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw notARequest('"variables" must be an object or null.');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw notARequest('"operationName" must be a string or null.');
  }
  if (typeof operationName === 'string' && operationName.length > MAX_OPERATION_NAME_LENGTH) {
    throw notARequest(`"operationName" is longer than ${MAX_OPERATION_NAME_LENGTH} characters.`);
  }
  return { query, variables: (variables ?? null) as Record<string, unknown> | null, operationName: (operationName ?? null) as string | null };
}
