// The OpenAPI document is generated from the route schemas (nothing is written twice) and served at
// /openapi.json; /docs is the interactive reference (its assets ship in the package, so it works offline).
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from './errors.js';

export interface OpenApiOptions {
  version: string;
  tags: { name: string; description: string }[];
}

const DOCS_PREFIX = '/docs';
const UI_CONFIG = { docExpansion: 'list', deepLinking: true } as const;

export async function registerOpenApi(app: FastifyInstance, { version, tags }: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Edgeplane',
        version,
        description: 'Self-hostable implementation of the unified infrastructure API. Authenticate with `Authorization: APIKey <token>`.',
      },
      tags,
      components: {
        securitySchemes: {
          APIKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: "'APIKey <token>'" },
        },
      },
      security: [{ APIKey: [] }],
    },
  });
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
  registerDocs(app);
}

/**
 * /docs is @fastify/swagger-ui. Loading it (with @fastify/static, yaml and their files) took about a
 * tenth of the whole start-up, for a page few runs ever open. So it is built on the first request under
 * /docs, as a Fastify instance of its own that serves this app's document, and its answers are relayed
 * as they are (status, headers such as ETag and Last-Modified, body).
 */
function registerDocs(app: FastifyInstance): void {
  let docs: Promise<FastifyInstance> | undefined;
  const relay = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= buildDocsApp(app).catch((error: unknown) => {
      docs = undefined; // a failed build is retried by the next request
      throw error;
    });
    const answer = await (await docs).inject({ method: 'GET', url: request.url, headers: request.headers });
    // A missing asset is a 404 in the API's own error shape, as an unknown route is.
    if (answer.statusCode === 404) throw new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    // An empty body (a redirect, a 304) goes as none, so no content type is made up for it.
    return reply.code(answer.statusCode).send(answer.rawPayload.length > 0 ? answer.rawPayload : undefined);
  };
  const options = { config: { access: 'public' }, schema: { hide: true } } as const;
  app.get(DOCS_PREFIX, options, relay);
  app.get(`${DOCS_PREFIX}/*`, options, relay);
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => undefined))?.close();
  });
}

// Set by this app's own reply (length, connection handling, date), not copied from the inner answer.
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

async function buildDocsApp(app: FastifyInstance): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  const docs = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  // swagger-ui reads the document through `swagger()` of the plugin named @fastify/swagger: this app's.
  await docs.register(
    fp(
      async (instance) => {
        instance.decorate('swagger', ((options?: { yaml?: boolean }) => app.swagger(options as { yaml: true })) as FastifyInstance['swagger']);
      },
      { name: '@fastify/swagger' },
    ),
  );
  await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: UI_CONFIG });
  await docs.ready();
  return docs;
}
