import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/index.js';
import type { RouteCatalogue } from '../../platform/http.js';
import { VERSION } from '../../version.js';

const InfoSchema = Type.Object({
  version: Type.String(),
  engine: Type.String({ description: 'sqlite or postgres' }),
  database: Type.String({ description: 'Where the data lives (no credentials)' }),
  taskMode: Type.String(),
  uptimeSeconds: Type.Number(),
  serverTime: Type.String({ description: 'The server clock, which the control API can move' }),
  operations: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), operationId: Type.String() }), {
    description: 'Every operation this server implements',
  }),
});

export function infoRoutes(app: FastifyInstance, deps: { db: Database; clock: Clock; config: Config; routes: RouteCatalogue }): void {
  const startedAt = Date.now();
  app.get(
    '/_edgeplane/info',
    {
      config: { access: 'operator' },
      schema: { operationId: 'control.info', tags: ['Edgeplane control'], summary: 'Version, engine, mode, uptime and implemented operations', response: { 200: InfoSchema } },
    },
    async () => ({
      version: VERSION,
      engine: deps.db.engine,
      database: deps.db.location,
      taskMode: deps.config.taskMode,
      uptimeSeconds: (Date.now() - startedAt) / 1000,
      serverTime: deps.clock.date().toISOString(),
      operations: deps.routes.operations(),
    }),
  );
}
