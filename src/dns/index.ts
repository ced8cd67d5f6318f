// The DNS product (/dns/v2): zones and their RRsets, zone files, DNSSEC, statistics, network mappings,
// lookups and the reference lists. The authoritative DNS listener that answers from the same data is
// started by the server when a DNS port is configured (listener/server.ts). Errors are `{"error": "..."}`
// with the statuses the reference declares (400 for every refusal), like the provider's other Go services.
import { errorMessageEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { dnssecRoutes } from './dnssec/routes.js';
import { DnssecService } from './dnssec/service.js';
import { KeyStore } from './dnssec/store.js';
import { locationRoutes } from './locations/routes.js';
import { lookupRoutes } from './lookup/routes.js';
import { LookupService } from './lookup/service.js';
import { monitoringRoutes } from './monitoring/routes.js';
import { MonitorService } from './monitoring/service.js';
import { mappingRoutes } from './network-mappings/routes.js';
import { MappingImportReading } from './network-mappings/yaml.js';
import { MappingService } from './network-mappings/service.js';
import { MappingStore } from './network-mappings/store.js';
import { pickerRoutes } from './pickers/routes.js';
import { Resolver } from './resolver/resolve.js';
import { AuthorityStore } from './resolver/store.js';
import { rrsetRoutes } from './rrsets/routes.js';
import { RRsetService } from './rrsets/service.js';
import { RRsetStore } from './rrsets/store.js';
import { statisticsRoutes } from './statistics/routes.js';
import { StatisticsService } from './statistics/service.js';
import { CountStore } from './statistics/store.js';
import { zoneFileRoutes } from './zonefile/routes.js';
import { ZoneFileReading } from './zonefile/reading.js';
import { ZoneFileService } from './zonefile/service.js';
import { ZoneFinder } from './zones/finder.js';
import { zoneRoutes } from './zones/routes.js';
import { ZoneService } from './zones/service.js';
import { ZoneStore } from './zones/store.js';

export interface DnsProduct extends Product {
  zones: ZoneService;
  rrsets: RRsetService;
}

export function createDns({ db, clock }: PlatformDeps): DnsProduct {
  const zoneStore = new ZoneStore(db.kysely, db.asClient);
  const rrsetStore = new RRsetStore(db.kysely, db.asClient);
  const authority = new AuthorityStore(db);
  const finder = new ZoneFinder(zoneStore);
  const resolver = new Resolver(authority);
  const dnssec = new DnssecService(finder, new KeyStore(db.kysely, db.asClient), authority, clock);
  const zones = new ZoneService(zoneStore, rrsetStore, finder, dnssec, clock);
  const rrsets = new RRsetService(rrsetStore, finder, clock);
  const files = new ZoneFileService(finder, rrsetStore, clock, new ZoneFileReading());
  const statistics = new StatisticsService(finder, new CountStore(db.kysely), clock);
  const mappingImports = new MappingImportReading();
  const mappings = new MappingService(new MappingStore(db.kysely, db.asClient), clock, mappingImports);
  const lookup = new LookupService(resolver, authority, zoneStore);
  const monitors = new MonitorService(rrsetStore);
  return {
    name: 'dns',
    prefixes: ['/dns'],
    envelope: errorMessageEnvelope,
    tags: [
      { name: 'DNS zones', description: 'Zones: SOA fields, enable and disable, DNSSEC, statistics, BIND zone files' },
      { name: 'DNS RRsets', description: 'Record sets of a zone, with type-specific content, pickers and health checks' },
      { name: 'DNS network mappings', description: 'Named lists of networks with tags' },
      { name: 'DNS lookup', description: 'Lookups and delegation checks answered from the hosted zones; the platform name servers' },
      { name: 'DNS locations', description: 'Continent, country and region codes for geo balancing' },
      { name: 'DNS pickers', description: 'Pickers an RRset can use, and ready-made lists of them' },
    ],
    zones,
    rrsets,
    async register(app) {
      zoneRoutes(app, zones);
      dnssecRoutes(app, dnssec);
      statisticsRoutes(app, statistics);
      await zoneFileRoutes(app, files);
      app.addHook('onClose', () => files.close());
      rrsetRoutes(app, rrsets);
      await mappingRoutes(app, mappings);
      app.addHook('onClose', () => mappingImports.close());
      lookupRoutes(app, lookup);
      monitoringRoutes(app, monitors);
      locationRoutes(app);
      pickerRoutes(app);
    },
  };
}
