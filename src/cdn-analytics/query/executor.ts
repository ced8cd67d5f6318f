// Runs one GraphQL-over-HTTP request: parse, validate (with the bounds rule), execute. Every failure
// of the document or of its execution is reported GraphQL-style in `errors` (HTTP 200); only a body
// that is not a GraphQL request at all is an HTTP error (raised by the route).
import { execute, GraphQLError, type GraphQLFormattedError, parse, type DocumentNode, specifiedRules, validate } from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import { analyticsSchema, type AnalyticsContext } from './graphql-schema.js';
import { MAX_NESTING, MAX_TOKENS, nestingDepth, QueryBoundsRule } from './limits.js';
import { AnalyticsError } from './service.js';

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface GraphQLResponse {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
}

function withCode(error: GraphQLError, code: string): GraphQLFormattedError {
  const formatted = error.toJSON();
  return { ...formatted, extensions: { ...formatted.extensions, code } };
}

/** User mistakes keep their message; anything else is logged and masked so internals never leak. */
function formatExecutionError(error: GraphQLError, log: FastifyBaseLogger): GraphQLFormattedError {
  const original = error.originalError;
  if (original instanceof AnalyticsError) return withCode(error, original.code);
  if (!original || original instanceof GraphQLError) return withCode(error, 'BAD_USER_INPUT');
  log.error({ err: original, path: error.path }, 'analytics query failed');
  return { message: 'Internal server error.', locations: error.locations, path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

export async function runGraphQL(request: GraphQLRequest, context: AnalyticsContext, log: FastifyBaseLogger): Promise<GraphQLResponse> {
  // graphql-js parses each level of brackets recursively: 2,500 levels (well under MAX_TOKENS' reach)
  // overflowed the stack, a 500. Refused before parsing.
  if (nestingDepth(request.query, MAX_NESTING) > MAX_NESTING) {
    return {
      errors: [
        {
          message: `Syntax Error: Document nests brackets more than ${MAX_NESTING} levels deep. Parsing aborted.`,
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        },
      ],
    };
  }
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: MAX_TOKENS });
  } catch (error) {
    if (!(error instanceof GraphQLError)) {
      log.warn({ err: error }, 'analytics query could not be parsed');
      return { errors: [{ message: 'Syntax Error: Document could not be parsed.', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] };
    }
    return { errors: [withCode(error, 'GRAPHQL_PARSE_FAILED')] };
  }
  // The bounds first, alone: the other rules' cost grows with the document they would refuse.
  const outOfBounds = validate(analyticsSchema, document, [QueryBoundsRule]);
  const problems = outOfBounds.length > 0 ? outOfBounds : validate(analyticsSchema, document, specifiedRules);
  if (problems.length > 0) return { errors: problems.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) };
  const result = await execute({
    schema: analyticsSchema,
    document,
    variableValues: request.variables ?? undefined,
    operationName: request.operationName ?? undefined,
    contextValue: context,
  });
  // Request errors (bad variables, unknown operation name, a mutation on this query-only schema) come
  // back without `data`: graphql-js gives them no `data` or `data: null` with no field path.
  const requestFailed = result.data === undefined || (result.data === null && (result.errors ?? []).every((e) => !e.path));
  if (requestFailed) {
    return { errors: (result.errors ?? []).map((e) => withCode(e, 'BAD_USER_INPUT')) };
  }
  const response: GraphQLResponse = { data: result.data as Record<string, unknown> | null };
  if (result.errors?.length) response.errors = result.errors.map((e) => formatExecutionError(e, log));
  return response;
}
