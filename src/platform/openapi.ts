// The OpenAPI document is generated from the route schemas (nothing is written twice) and served at
// /openapi.json; /docs is the interactive reference (its assets ship in the package, so it works offline).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface OpenApiOptions {
  version: string;
  tags: { name: string; description: string }[];
}

export async function registerOpenApi(app: FastifyInstance, { version, tags }: OpenApiOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), access: 'public' } as typeof route.config;
  });
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
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
