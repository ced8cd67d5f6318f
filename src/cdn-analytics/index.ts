// The CDN advanced-analytics product: a GraphQL endpoint over CDN access records (unique visitors,
// traffic and requests by country, directory, browser, device, OS and time), its playground page, and
// the control API that ingests and generates the records. Records are kept 90 days.
import type { PlatformDeps, Product } from '../platform/product.js';
import { graphqlEnvelope } from './envelope.js';
import { queryRoutes } from './query/routes.js';
import { AnalyticsService } from './query/service.js';
import { cpus } from 'node:os';
import { createReaders } from '../platform/db/readers.js';
import { AnalyticsStore } from './query/store.js';
import { recordRoutes } from './records/routes.js';
import { AccessRecordService } from './records/service.js';
import { AccessRecordStore } from './records/store.js';

export interface CdnAnalyticsProduct extends Product {
  records: AccessRecordService;
  analytics: AnalyticsService;
}

// Besides every move of the clock, retention also runs on this timer while time flows normally.
const RETENTION_INTERVAL_MS = 3_600_000;

export function createCdnAnalytics({ db, clock }: PlatformDeps): CdnAnalyticsProduct {
  const records = new AccessRecordService(new AccessRecordStore(db.kysely), clock);
  // One core is left to the main thread, which keeps answering other requests during a long query.
  const readers = createReaders(db, { threads: Math.max(1, Math.min(4, cpus().length - 1)) });
  const analytics = new AnalyticsService(new AnalyticsStore(db.kysely, readers), clock);
  return {
    name: 'cdn-analytics',
    prefixes: ['/cdn/advanced'],
    envelope: graphqlEnvelope,
    tags: [{ name: 'Advanced analytics', description: 'GraphQL statistics of CDN traffic: unique visitors, traffic and requests' }],
    records,
    analytics,
    async register(app) {
      queryRoutes(app, analytics);
      await recordRoutes(app, records);
      // Returns the purge, so a clock move waits for expired records to be deleted.
      const purge = () => records.purgeExpired().catch((error: unknown) => app.log.error({ err: error }, 'CDN access-record retention failed'));
      const unsubscribe = clock.onChange(purge);
      const timer = setInterval(purge, RETENTION_INTERVAL_MS);
      timer.unref();
      app.addHook('onClose', async () => {
        unsubscribe();
        clearInterval(timer);
        await records.settled();
        await readers.close();
      });
    },
  };
}
