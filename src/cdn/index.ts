// The CDN product: rule templates (the CDN analytics query lives in its own product, cdn-analytics).
import { fieldMapEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { ruleTemplateRoutes } from './rule-templates/routes.js';
import { RuleTemplateService } from './rule-templates/service.js';
import { RuleTemplateStore } from './rule-templates/store.js';

export interface CdnProduct extends Product {
  ruleTemplates: RuleTemplateService;
}

export function createCdn({ db, clock }: PlatformDeps): CdnProduct {
  const ruleTemplates = new RuleTemplateService(new RuleTemplateStore(db.kysely), clock);
  return {
    name: 'cdn',
    prefixes: ['/cdn'],
    envelope: fieldMapEnvelope,
    tags: [{ name: 'CDN rule templates', description: 'Rule templates: a path rule, its order and per-rule CDN options' }],
    ruleTemplates,
    register(app) {
      ruleTemplateRoutes(app, ruleTemplates);
    },
  };
}
