import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/index.js';
import type { RouteCatalogue } from '../../platform/http.js';
import { VERSION } from '../../version.js';
import { StringEnum } from '../../platform/schema.js';
import { coverageOf, implementationOf, operationKey, referenceKeys } from './coverage.js';

const InfoSchema = Type.Object({
  version: Type.String(),
  engine: Type.String({ description: 'sqlite or postgres' }),
  database: Type.String({ description: 'Where the data lives (no credentials)' }),
  schemaVersion: Type.String({ description: 'Last database migration: the version of exported state documents' }),
  taskMode: Type.String(),
  uptimeSeconds: Type.Number(),
  serverTime: Type.String({ description: 'The server clock, which the control API can move' }),
  clock: Type.Object({ now: Type.String(), frozen: Type.Boolean(), offsetMs: Type.Number() }),
  counts: Type.Object({
    tables: Type.Record(Type.String(), Type.Integer(), { description: 'Rows stored per table' }),
    faults: Type.Integer({ description: 'Declared faults on this node' }),
    journal: Type.Integer({ description: "Requests held in this node's journal" }),
  }),
  coverage: Type.Object({
    reference: Type.Integer({ description: 'Operations of the reference API' }),
    implemented: Type.Integer({ description: 'Of those, how many this server answers' }),
    modelled: Type.Integer({ description: 'Answered by a modelled product' }),
    catalogue: Type.Integer({ description: 'Answered by the catalogue engine' }),
    percent: Type.Number(),
    areas: Type.Array(
      Type.Object({ area: Type.String(), reference: Type.Integer(), implemented: Type.Integer(), modelled: Type.Integer(), catalogue: Type.Integer() }),
    ),
  }),
  operations: Type.Array(
    Type.Object({
      method: Type.String(),
      path: Type.String(),
      operationId: Type.String(),
      inReference: Type.Boolean(),
      implementation: StringEnum(['modelled', 'catalogue']),
    }),
    {
      description: 'Every operation this server implements',
    },
  ),
});

export interface InfoDeps {
  db: Database;
  clock: Clock;
  config: Config;
  routes: RouteCatalogue;
  schemaVersion(): string;
  tableCounts(): Promise<Record<string, number>>;
  faultCount(): number;
  journalCount(): number;
}

export function infoRoutes(app: FastifyInstance, deps: InfoDeps): void {
  // Uptime is real elapsed time, not server-clock time, which tests move.
  const startedAt = performance.now();
  // The reference's operation keys are made by the first info request, not at start.
  let reference: Set<string> | undefined;
  app.get(
    '/_edgeplane/info',
    {
      config: { access: 'operator' },
      schema: {
        operationId: 'control.info',
        tags: ['Edgeplane control'],
        summary: 'Version, engine, mode, uptime, stored objects and implementation coverage',
        response: { 200: InfoSchema },
      },
    },
    async () => {
      const operations = deps.routes.operations();
      reference ??= referenceKeys();
      const inReference = reference;
      return {
        version: VERSION,
        engine: deps.db.engine,
        database: deps.db.location,
        schemaVersion: deps.schemaVersion(),
        taskMode: deps.config.taskMode,
        uptimeSeconds: Math.round(performance.now() - startedAt) / 1000,
        serverTime: deps.clock.date().toISOString(),
        clock: deps.clock.state(),
        counts: { tables: await deps.tableCounts(), faults: deps.faultCount(), journal: deps.journalCount() },
        coverage: coverageOf(operations),
        operations: operations.map((op) => ({
          ...op,
          inReference: inReference.has(operationKey(op.method, op.path)),
          implementation: implementationOf(op.operationId),
        })),
      };
    },
  );
}
