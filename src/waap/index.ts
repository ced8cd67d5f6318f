// The WAAP product: the service overview, domains, and the 30-day request-event log with its control
// side (ingestion, generator, retention, CSV export). Errors use the problem-details envelope the
// provider's WAAP API answers with.
import { problemEnvelope } from '../platform/envelopes.js';
import { Inflater } from '../platform/inflate.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import type { SchemaCode } from '../platform/schema-code.js';
import { accountRoutes } from './account/routes.js';
import { WaapAccountService } from './account/service.js';
import { WaapClientStore } from './account/store.js';
import { domainRoutes } from './domains/routes.js';
import { DomainService } from './domains/service.js';
import { DomainStore } from './domains/store.js';
import { generateTraffic, type GenerateOptions } from './request-events/generator.js';
import { EventIngestor } from './request-events/ingest.js';
import { recordValidator } from './request-events/records.js';
import { EventLog } from './request-events/log/index.js';
import { CompactionJob, RetentionJob } from './request-events/maintenance.js';
import { INGEST_BODY_LIMIT, requestEventControlRoutes, requestEventRoutes } from './request-events/routes.js';
import { RequestEventService } from './request-events/service.js';
import { statsRoutes } from './stats/routes.js';
import { StatsService } from './stats/service.js';

export interface WaapProduct extends Product {
  domains: DomainService;
  events: RequestEventService;
  ingestor: EventIngestor;
  retention: RetentionJob;
  compaction: CompactionJob;
  log: EventLog;
  generate(options: GenerateOptions): ReturnType<typeof generateTraffic>;
}

/** Decoded blocks each reader keeps between queries. */
const QUERY_CACHE_BYTES = 64 * 1024 * 1024;

export function createWaap({ db, clock, config, schemaCode }: PlatformDeps & { schemaCode?: SchemaCode }): WaapProduct {
  const domains = new DomainService(new DomainStore(db.kysely), clock);
  const accounts = new WaapAccountService(new WaapClientStore(db.kysely), domains);
  domains.useQuotas(accounts);
  const log = new EventLog(db, { threads: config.queryThreads, cacheBytes: QUERY_CACHE_BYTES });
  const events = new RequestEventService(log, clock);
  const compaction = new CompactionJob(log);
  const ingestor = new EventIngestor(log, domains, clock, () => compaction.schedule(), recordValidator(schemaCode));
  const retention = new RetentionJob(log, clock);
  const stats = new StatsService(log, events);
  const inflater = new Inflater({ limit: INGEST_BODY_LIMIT });

  const domainSource = {
    async domainsOf(clientId: number) {
      return (await domains.list(clientId, { limit: 100, offset: 0 })).results;
    },
    async createDefaultDomains(clientId: number) {
      const made = [];
      for (const name of ['www', 'shop', 'api']) made.push(await domains.create({ client_id: clientId, name: `${name}.client${clientId}.example.com` }));
      return made;
    },
  };
  const generate = (options: GenerateOptions) => generateTraffic(options, domainSource, ingestor, clock);

  return {
    name: 'waap',
    prefixes: ['/waap'],
    envelope: problemEnvelope,
    tags: [{ name: 'WAAP', description: 'Web application and API protection: service, domains, request-event log and statistics' }],
    domains,
    events,
    ingestor,
    retention,
    compaction,
    log,
    generate,
    register(app) {
      accountRoutes(app, accounts);
      domainRoutes(app, domains);
      requestEventRoutes(app, events);
      statsRoutes(app, stats);
      requestEventControlRoutes(app, {
        events,
        ingestor,
        retention,
        generator: { generate: (b) => generate({ clientIds: b.client_ids, events: b.events, days: b.days, seed: b.seed, firstShare: b.first_share }) },
        inflater,
      });
      retention.start();
      compaction.start();
      app.addHook('onClose', async () => {
        await retention.stop();
        await compaction.stop();
        await log.close();
        await inflater.close();
        await ingestor.close();
      });
    },
  };
}
