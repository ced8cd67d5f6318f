// The /_edgeplane control surface: what tests get that the real service cannot give them.
import { plainEnvelope } from '../platform/envelopes.js';
import type { RouteCatalogue } from '../platform/http.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { healthRoutes } from './health/routes.js';
import { infoRoutes } from './info/routes.js';

export function createControl(deps: PlatformDeps & { routes: RouteCatalogue }): Product {
  return {
    name: 'control',
    prefixes: ['/_edgeplane'],
    envelope: plainEnvelope,
    tags: [{ name: 'Edgeplane control', description: 'Health, clock, tasks, faults, journal and state of the emulator (operator token)' }],
    register(app) {
      healthRoutes(app, deps.db);
      infoRoutes(app, deps);
    },
  };
}
