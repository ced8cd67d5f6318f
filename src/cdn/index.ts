// The CDN product: rule templates, origin groups, CDN resources and their rules, purge and prefetch,
// SSL and trusted CA certificates, origin shielding (the CDN analytics query lives in its own product,
// cdn-analytics). Options and their rules are one implementation (options/) shared by templates,
// resource rules and resources.
import type { PlatformDeps, Product } from '../platform/product.js';
import { CaService, type CaUsage } from './certificates/ca-service.js';
import { caRoutes, sslRoutes } from './certificates/routes.js';
import { type CertificateUsage, SslService } from './certificates/service.js';
import { CaStore, SslStore } from './certificates/store.js';
import { cdnEnvelope } from './errors.js';
import { originGroupRoutes } from './origin-groups/routes.js';
import { type GroupUsage, OriginGroupService } from './origin-groups/service.js';
import { OriginGroupStore } from './origin-groups/store.js';
import { purgeRoutes } from './purge/routes.js';
import { PurgeService } from './purge/service.js';
import { PurgeStore } from './purge/store.js';
import { resourceRuleRoutes } from './resource-rules/routes.js';
import { ResourceRuleService } from './resource-rules/service.js';
import { RuleStore } from './resource-rules/store.js';
import { statusOf } from './resources/present.js';
import { resourceRoutes } from './resources/routes.js';
import { ResourceService, type WaapDomain, type WaapListener } from './resources/service.js';
import { hostnamesOf, type ResourceRow, ResourceStore } from './resources/store.js';
import { ruleTemplateRoutes } from './rule-templates/routes.js';
import { RuleTemplateService } from './rule-templates/service.js';
import { RuleTemplateStore } from './rule-templates/store.js';
import { RuleMatcher } from './options/matcher.js';

export type { WaapChange, WaapDomain, WaapListener } from './resources/service.js';

export interface CdnProduct extends Product {
  ruleTemplates: RuleTemplateService;
  originGroups: OriginGroupService;
  resources: ResourceService;
  resourceRules: ResourceRuleService;
  purges: PurgeService;
  certificates: SslService;
  caCertificates: CaService;
  /**
   * The WAAP link: the client's CDN resources whose `waap` option is on (their cnames are the WAAP
   * domains those resources bring), for the WAAP product to list.
   */
  waapDomains(clientId: number): Promise<WaapDomain[]>;
  /** Called when a resource's waap option turns on or off, or a resource with it on is deleted. */
  onWaapChange(listener: WaapListener): () => void;
}

const idsOf = (rows: ResourceRow[], pick: (row: ResourceRow) => number | null) => new Set(rows.map(pick).filter((id): id is number => id !== null));

export function createCdn({ db, clock }: PlatformDeps): CdnProduct {
  const resourceStore = new ResourceStore(db.kysely, db.asClient);
  const ruleStore = new RuleStore(db.kysely);

  const groupUsage: GroupUsage = {
    resourcesUsing: async (clientId, groupId) =>
      (await resourceStore.where(clientId, 'origin_group_id', groupId)).map((row) => ({
        id: row.id,
        hostnames: hostnamesOf(row),
        originProtocol: row.origin_protocol,
      })),
    rulesUsing: (clientId, groupId) => ruleStore.countUsingGroup(clientId, groupId),
    groupsUsedByResources: async (clientId) => idsOf(await resourceStore.all(clientId), (row) => row.origin_group_id),
  };
  const certificateUsage: CertificateUsage = {
    resourcesWithCertificate: async (clientId, id) => {
      const rows = [...(await resourceStore.where(clientId, 'ssl_data', id)), ...(await resourceStore.where(clientId, 'proxy_ssl_data', id))];
      const unique = [...new Map(rows.map((row) => [row.id, row])).values()].sort((a, b) => a.id - b.id);
      return unique.map((row) => ({ id: row.id, cname: row.cname, status: statusOf(row, clock.now()) }));
    },
    certificatesInUse: async (clientId) => {
      const rows = await resourceStore.all(clientId);
      return new Set([...idsOf(rows, (r) => r.ssl_data), ...idsOf(rows, (r) => r.proxy_ssl_data)]);
    },
    certificatesOfResource: async (clientId, resourceId) => {
      const row = await resourceStore.find(clientId, resourceId);
      return new Set(row ? [row.ssl_data, row.proxy_ssl_data].filter((id): id is number => id !== null) : []);
    },
    issuingTarget: async (clientId, resourceId) => {
      const row = await resourceStore.find(clientId, resourceId);
      return row && { id: row.id, hostnames: hostnamesOf(row), active: row.active === 1 };
    },
  };
  const caUsage: CaUsage = {
    resourcesWithCa: async (clientId, id) => (await resourceStore.where(clientId, 'proxy_ssl_ca', id)).map((row) => row.id),
    casInUse: async (clientId) => idsOf(await resourceStore.all(clientId), (row) => row.proxy_ssl_ca),
    caOfResource: async (clientId, resourceId) => (await resourceStore.find(clientId, resourceId))?.proxy_ssl_ca ?? null,
  };

  // Rule patterns are matched in a thread of its own (one per server, started on first use).
  const matcher = new RuleMatcher();
  const ruleTemplates = new RuleTemplateService(new RuleTemplateStore(db.kysely), clock, matcher);
  const originGroups = new OriginGroupService(new OriginGroupStore(db.kysely), groupUsage, clock);
  const certificates = new SslService(new SslStore(db.kysely), certificateUsage, clock);
  const caCertificates = new CaService(new CaStore(db.kysely), caUsage, clock);
  const resources = new ResourceService(resourceStore, ruleStore, originGroups, certificates, caCertificates, clock, matcher);
  const resourceRules = new ResourceRuleService(ruleStore, resources, originGroups, clock, matcher);
  const purges = new PurgeService(new PurgeStore(db.kysely, db.asClient), resources, clock);

  return {
    name: 'cdn',
    prefixes: ['/cdn'],
    envelope: cdnEnvelope,
    tags: [
      { name: 'CDN rule templates', description: 'Rule templates: a path rule, its order and per-rule CDN options' },
      { name: 'CDN origin groups', description: 'Origins a CDN resource fetches content from' },
      { name: 'CDN resources', description: 'Delivery domains, their origin, options and origin shielding' },
      { name: 'CDN resource rules', description: 'Per-path options of a CDN resource' },
      { name: 'CDN purge and prefetch', description: "Clearing and warming a resource's cache, and the purge history" },
      { name: 'CDN SSL certificates', description: "Certificates for HTTPS delivery, uploaded or issued by Let's Encrypt" },
      { name: 'CDN trusted CA certificates', description: 'Certificates that verify origins' },
    ],
    ruleTemplates,
    originGroups,
    resources,
    resourceRules,
    purges,
    certificates,
    caCertificates,
    waapDomains: (clientId) => resources.waapDomains(clientId),
    onWaapChange: (listener) => resources.onWaapChange(listener),
    register(app) {
      app.addHook('onClose', () => matcher.close());
      ruleTemplateRoutes(app, ruleTemplates);
      originGroupRoutes(app, originGroups);
      resourceRoutes(app, resources);
      resourceRuleRoutes(app, resourceRules);
      purgeRoutes(app, purges);
      sslRoutes(app, certificates);
      caRoutes(app, caCertificates);
    },
  };
}
