import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../platform/db/index.js';

const HealthSchema = Type.Object({
  status: Type.String({ description: 'ok, or unavailable when the database does not answer' }),
  live: Type.Boolean(),
  ready: Type.Boolean(),
  database: Type.Object({ engine: Type.String(), ok: Type.Boolean(), error: Type.Optional(Type.String()) }),
});

/** Liveness and readiness. Public, so load balancers and orchestrators can probe it without a token. */
export function healthRoutes(app: FastifyInstance, db: Database): void {
  app.get(
    '/_edgeplane/health',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'control.health',
        tags: ['Edgeplane control'],
        summary: 'Liveness and readiness (database reachable)',
        security: [],
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      try {
        await db.ping();
        return { status: 'ok', live: true, ready: true, database: { engine: db.engine, ok: true } };
      } catch (error) {
        reply.status(503).header('retry-after', '1');
        return { status: 'unavailable', live: true, ready: false, database: { engine: db.engine, ok: false, error: (error as Error).message } };
      }
    },
  );
}
