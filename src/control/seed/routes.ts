import type { FastifyInstance } from 'fastify';
import { type Seed, SeedResultSchema, SeedSchema } from './schemas.js';
import type { SeedService } from './service.js';

export function seedRoutes(app: FastifyInstance, seeds: SeedService): void {
  app.post<{ Body: Seed }>(
    '/_edgeplane/seed',
    {
      bodyLimit: 256 * 1024 * 1024,
      config: { access: 'operator' },
      schema: {
        operationId: 'control.seed',
        tags: ['Edgeplane control'],
        summary: 'Create clients and tokens, then run product requests in order, from one declarative document',
        body: SeedSchema,
        response: { 200: SeedResultSchema },
      },
    },
    // Requests without `as` are sent with the caller's own operator credentials.
    async (request) => seeds.apply(app, request.body, request.headers.authorization),
  );
}
