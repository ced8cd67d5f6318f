// The security product: the DDoS notifier's event logs. Its errors use the notifier's FastAPI-style body:
// `{detail: [{loc, msg, type}]}` for validation failures and `{detail: "..."}` otherwise (seed, Errors).
import { detailListEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { eventLogControlRoutes } from './event-logs/control-routes.js';
import { eventLogRoutes } from './event-logs/routes.js';
import { type ClientDirectory, EventLogService } from './event-logs/service.js';
import { EventLogStore } from './event-logs/store.js';

export interface SecurityProduct extends Product {
  eventLogs: EventLogService;
}

export function createSecurity({ db, clock, accounts }: PlatformDeps & { accounts: ClientDirectory }): SecurityProduct {
  const eventLogs = new EventLogService(new EventLogStore(db), clock, accounts);
  return {
    name: 'security',
    prefixes: ['/security'],
    envelope: detailListEnvelope,
    tags: [{ name: 'Security', description: 'DDoS notifier event logs' }],
    eventLogs,
    register(app) {
      eventLogRoutes(app, eventLogs);
      eventLogControlRoutes(app, eventLogs);
    },
  };
}
