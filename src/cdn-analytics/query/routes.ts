// POST /cdn/advanced/v2/query (the GraphQL endpoint) and GET /cdn/advanced/v2 (its playground page).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { Nullable } from '../../platform/schema.js';
import { graphQLRequestOf, MAX_OPERATION_NAME_LENGTH, MAX_QUERY_LENGTH } from './request.js';
import type { AnalyticsService } from './service.js';
import { typed } from '../../platform/typed.js';

// graphql-js and the analytics schema are loaded by the first query or playground view, not at start:
// they are the largest part of the server's code and most runs never use them.
const loadExecutor = () => import('./executor.js');
const loadPlayground = () => import('./playground.js');

const TAG = 'Advanced analytics';

const GraphQLBody = Type.Object(
  {
    query: Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'The GraphQL document (see docs/cdn-analytics.md for the schema, or introspect it).' }),
    variables: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }), { description: 'Values of the variables the document declares.' })),
    operationName: Type.Optional(
      Nullable(Type.String({ maxLength: MAX_OPERATION_NAME_LENGTH, description: 'Which operation to run when the document holds several.' })),
    ),
  },
  { additionalProperties: true, description: 'A GraphQL-over-HTTP request' },
);

const GraphQLResult = Type.Object(
  {
    data: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    errors: Type.Optional(Type.Array(Type.Object({ message: Type.String() }, { additionalProperties: true }))),
  },
  { description: 'A GraphQL response: `data`, and `errors` when the document or its execution failed (still HTTP 200)' },
);

export function queryRoutes(fastify: FastifyInstance, analytics: AnalyticsService): void {
  const app = typed(fastify);
  let page: Promise<string> | undefined;
  app.post(
    '/cdn/advanced/v2/query',
    {
      config: { access: 'read' },
      // The body is checked by graphQLRequestOf so that a non-GraphQL body is a 400 in GraphQL form,
      // not the generic 422; the schema stays for the OpenAPI document.
      attachValidation: true,
      schema: {
        operationId: 'cdn.advancedAnalytics.query',
        tags: [TAG],
        summary: 'Run a GraphQL query over CDN traffic statistics (unique visitors, traffic, requests)',
        body: GraphQLBody,
        response: { 200: GraphQLResult },
      },
    },
    async (request) => {
      const graphQLRequest = graphQLRequestOf(request.body);
      const { runGraphQL } = await loadExecutor();
      return runGraphQL(graphQLRequest, { clientId: principalOf(request).clientId, analytics }, request.log);
    },
  );
  app.get(
    '/cdn/advanced/v2',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'cdn.advancedAnalytics.playground',
        tags: [TAG],
        summary: 'Query playground page (works offline; holds no data, the queries need your API key)',
        response: { 200: { description: 'A self-contained HTML page', content: { 'text/html': { schema: Type.String() } } } },
      },
    },
    async (_request, reply) => {
      page ??= loadPlayground().then(({ playgroundPage }) => playgroundPage());
      return reply.type('text/html; charset=utf-8').send(await page);
    },
  );
}
