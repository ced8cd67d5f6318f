// Edge functions (FastEdge): the networks available to each client. The provider's FastEdge API answers
// errors as `{error: "message"}` (its `error` schema), so every error here uses that single-message style.
import { errorMessageEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { networkControlRoutes } from './networks/control-routes.js';
import { networkRoutes } from './networks/routes.js';
import { type AccountDirectory, NetworkService } from './networks/service.js';
import { NetworkStore } from './networks/store.js';

export interface EdgeProduct extends Product {
  networks: NetworkService;
}

export function createEdge({ db, clock, accounts }: PlatformDeps & { accounts: AccountDirectory }): EdgeProduct {
  const networks = new NetworkService(new NetworkStore(db.kysely, db.asClient), accounts, clock);
  return {
    name: 'edge',
    prefixes: ['/edge-functions', '/fastedge'],
    envelope: errorMessageEnvelope,
    tags: [{ name: 'Edge functions', description: 'Edge-function (FastEdge) networks' }],
    networks,
    register(app) {
      networkRoutes(app, networks);
      networkControlRoutes(app, networks);
    },
  };
}
