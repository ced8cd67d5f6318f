// The /_edgeplane control surface: what tests get that the real service cannot give them.
import type { FastifyInstance } from 'fastify';
import { migrations } from '../../migrations/index.js';
import { ensureDemoAccount, type IamProduct } from '../iam/index.js';
import { plainEnvelope } from '../platform/envelopes.js';
import type { RouteCatalogue } from '../platform/http.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { clockRoutes } from './clock/routes.js';
import { registerFaultHook } from './faults/hook.js';
import { faultRoutes } from './faults/routes.js';
import { FaultService } from './faults/service.js';
import { healthRoutes } from './health/routes.js';
import { infoRoutes } from './info/routes.js';
import { registerJournalHook } from './journal/hook.js';
import { journalRoutes } from './journal/routes.js';
import { Journal } from './journal/service.js';
import { seedRoutes } from './seed/routes.js';
import { SeedService } from './seed/service.js';
import { stateRoutes } from './state/routes.js';
import { StateService } from './state/service.js';

export interface ControlProduct extends Product {
  faults: FaultService;
  journal: Journal;
  state: StateService;
  seeds: SeedService;
  /** The request hooks (journal, then faults); app.ts calls this right after authentication is registered. */
  registerHooks(app: FastifyInstance): void;
}

export function createControl(deps: PlatformDeps & { routes: RouteCatalogue; iam: IamProduct }): ControlProduct {
  const { config, db, clock } = deps;
  const faults = new FaultService(clock);
  const journal = new Journal({ size: config.journalSize, bodies: config.journalBodies, bodyLimit: config.journalBodyLimit });
  const state = new StateService(db, migrations, clock, (clientIds) => {
    deps.iam.tokens.forget();
    for (const id of clientIds) deps.iam.accounts.changed(id);
  });
  const seeds = new SeedService(deps.iam, async (clientIds) => {
    // Newest first: a reseller's sub-clients go before the reseller.
    for (const id of [...clientIds].reverse()) await state.reset(id);
  });
  return {
    name: 'control',
    prefixes: ['/_edgeplane'],
    envelope: plainEnvelope,
    tags: [{ name: 'Edgeplane control', description: 'Health, clock, tasks, faults, journal, state and seeding of the emulator (operator token)' }],
    faults,
    journal,
    state,
    seeds,
    registerHooks(app) {
      registerJournalHook(app, journal, clock);
      registerFaultHook(app, faults);
    },
    register(app) {
      healthRoutes(app, db);
      infoRoutes(app, {
        ...deps,
        schemaVersion: () => state.latestVersion(),
        tableCounts: () => state.counts(),
        faultCount: () => faults.size,
        journalCount: () => journal.size,
      });
      clockRoutes(app, clock);
      faultRoutes(app, faults);
      journalRoutes(app, journal);
      seedRoutes(app, seeds);
      stateRoutes(app, state, {
        async afterFullReset() {
          faults.clear();
          journal.clear();
          const demo = await ensureDemoAccount(deps.iam, config.apiKey);
          return demo && { clientId: demo.clientId, apiKey: demo.token };
        },
      });
    },
  };
}
