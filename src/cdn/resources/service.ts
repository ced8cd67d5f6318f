// CDN resources: host names unique across all accounts, exactly one of origin and originGroup, the
// active/status life cycle (an active resource cannot be deleted), options checked by the same rules as
// rule templates and rules (and against the resource's rules), certificates, shielding, reserve
// resources, a quota, and the WAAP link (the cnames of resources whose waap option is on).
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { mapInSlices } from '../../platform/cooperative.js';
import { bodyField, type FieldError, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import type { CaService } from '../certificates/ca-service.js';
import type { SslService } from '../certificates/service.js';
import { limitReached, refused, stateRefusal } from '../errors.js';
import { type ListRequest, pageOf } from '../http.js';
import { QUOTAS } from '../limits.js';
import { RESOURCE_OPTION_SCHEMAS, type StoredOptions } from '../options/catalogue.js';
import { optionProblems } from '../options/check.js';
import type { RuleMatcher } from '../options/matcher.js';
import { deprecationsOf, inheritedConflicts, isActive } from '../options/rules.js';
import { applyOptions, parseOptions, readOptions } from '../options/states.js';
import { portOf } from '../origin-groups/sources.js';
import type { OriginGroupService } from '../origin-groups/service.js';
import { toRule } from '../resource-rules/present.js';
import type { RuleStore } from '../resource-rules/store.js';
import { isUniqueViolation } from '../unique.js';
import { type Candidate, cnameErrors, secondaryErrors, switchErrors, takenErrors } from './checks.js';
import { matchesFilters } from './filters.js';
import { statusOf, toResource } from './present.js';
import type { Resource, ResourceCreateInput, ResourceFilters, ResourceInput } from './schemas.js';
import { shieldingLocation } from './shielding.js';
import { hostnamesOf, type ResourceFields, type ResourceRow, type ResourceStore } from './store.js';

export interface ResourceResult {
  resource: Resource;
  /** Deprecated options the resource uses, each naming its replacement. */
  deprecations: string[];
}

/** A change of a resource's WAAP link: its waap option turned on or off, or the resource gone. */
export interface WaapChange {
  clientId: number;
  resourceId: number;
  cname: string;
  enabled: boolean;
}
export type WaapListener = (change: WaapChange) => void | Promise<void>;

export interface WaapDomain {
  resourceId: number;
  cname: string;
  secondaryHostnames: string[];
  apiDomain: boolean;
}

const DEFAULTS = { active: true, originProtocol: 'HTTP', name: null, description: '' } as const;
/** A path of the ACME HTTP-01 challenge, which Let's Encrypt requests on every host name. */
const ACME_PROBE = '/.well-known/acme-challenge/edgeplane-probe';
const taken = (what: string) => refused([bodyField(['cname'], `${what} already uses this host name`, 'conflict')]);

export class ResourceService {
  private readonly waapListeners = new Set<WaapListener>();

  constructor(
    private readonly store: ResourceStore,
    private readonly rules: RuleStore,
    private readonly groups: OriginGroupService,
    private readonly ssl: SslService,
    private readonly cas: CaService,
    private readonly clock: Clock,
    private readonly matcher: RuleMatcher,
  ) {}

  async list(principal: Principal, filters: ResourceFilters, list: ListRequest): Promise<Page<Resource>> {
    const clientId = principal.clientId;
    const [rows, names, rules] = await Promise.all([this.store.all(clientId), this.groups.names(clientId), this.rules.ofClient(clientId)]);
    const primaries = new Set(rows.map((r) => r.primary_resource).filter((id) => id !== null));
    const now = this.clock.now();
    // Each resource's rules, in their order (a filter over all the client's rules per resource was quadratic).
    const rulesOf = new Map<number, typeof rules>();
    for (const rule of rules) {
      const mine = rulesOf.get(rule.resource_id);
      if (mine) mine.push(rule);
      else rulesOf.set(rule.resource_id, [rule]);
    }
    const answers = await mapInSlices(rows, (row) =>
      toResource(row, {
        groupName: names.get(row.origin_group_id) ?? '',
        rules: (rulesOf.get(row.id) ?? []).map((r) => toRule(r, row.origin_protocol)),
        hasReserves: primaries.has(row.id),
        now,
      }),
    );
    return pageOf(
      answers.filter((r) => matchesFilters(r, filters)),
      list,
    );
  }

  async get(principal: Principal, id: number): Promise<ResourceResult> {
    return this.result(await this.owned(principal.clientId, id));
  }

  /** A resource of the client for its rules, purges and certificates (404 when it has none with this id). */
  async owned(clientId: number, id: number): Promise<ResourceRow> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('CDN resource');
    return row;
  }

  async create(principal: Principal, input: ResourceCreateInput): Promise<ResourceResult> {
    const clientId = principal.clientId;
    const cname = input.cname.toLowerCase();
    const sent = readOptions(input.options, RESOURCE_OPTION_SCHEMAS);
    const options = applyOptions({}, sent.options);
    const errors: FieldError[] = [...sent.errors, ...cnameErrors(cname)];
    if (input.origin !== undefined && input.originGroup !== undefined)
      errors.push(bodyField(['origin'], 'Give either origin or originGroup, not both', 'conflict'));
    if (input.origin === undefined && input.originGroup === undefined) errors.push(bodyField(['originGroup'], 'Give origin or originGroup', 'missing'));
    if (input.origin !== undefined) errors.push(...this.groups.originErrors(input.origin));
    if (input.origin !== undefined && input.originProtocol === 'MATCH' && /:\d+$/.test(input.origin)) {
      errors.push(bodyField(['originProtocol'], 'MATCH chooses the origin port, but the origin has one: remove the port or choose HTTP or HTTPS'));
    }
    const candidate = this.candidate(cname, input, { origin_group_id: input.originGroup ?? 0 });
    candidate.primaryResource = input.primary_resource ?? null;
    errors.push(...(await this.linkErrors(clientId, candidate, options, undefined, input.originGroup !== undefined)));
    if (errors.length > 0) throw refused(errors);
    if ((await this.store.count(clientId)) >= QUOTAS.resources) {
      throw limitReached('bad_request', `The account already has ${QUOTAS.resources} CDN resources, its limit: delete one to create another`);
    }
    const groupId = input.originGroup ?? (await this.groups.createForOrigin(clientId, cname, input.origin!));
    const fields = this.fields({ ...candidate, originGroup: groupId }, options, input.waap_api_domain_enabled ?? false, null);
    let id: number;
    try {
      id = await this.store.insert(clientId, fields, this.clock.now());
    } catch (error) {
      // Another request took a host name meanwhile: the group made for `origin` goes too.
      if (input.originGroup === undefined) await this.groups.discard(clientId, groupId);
      if (isUniqueViolation(error)) throw taken('Another CDN resource');
      throw error;
    }
    await this.afterChange(clientId, id, undefined);
    return this.get(principal, id);
  }

  /** PUT: the body replaces every changeable field; omitted ones go back to their defaults. */
  async replace(principal: Principal, id: number, input: ResourceInput): Promise<ResourceResult> {
    const row = await this.owned(principal.clientId, id);
    const sent = readOptions(input.options, RESOURCE_OPTION_SCHEMAS);
    const candidate = { ...this.candidate(row.cname, input, row), primaryResource: row.primary_resource };
    return this.save(principal, row, candidate, applyOptions({}, sent.options), input.waap_api_domain_enabled ?? false, sent.errors);
  }

  /** PATCH: only the fields sent change; inside options, only the options sent. */
  async update(principal: Principal, id: number, input: ResourceInput): Promise<ResourceResult> {
    const row = await this.owned(principal.clientId, id);
    const sent = readOptions(input.options, RESOURCE_OPTION_SCHEMAS);
    const candidate: Candidate = {
      cname: row.cname,
      secondaryHostnames: input.secondaryHostnames?.map((h) => h.toLowerCase()) ?? (JSON.parse(row.secondary_hostnames) as string[]),
      originGroup: input.originGroup ?? row.origin_group_id,
      originProtocol: input.originProtocol ?? row.origin_protocol,
      active: input.active ?? row.active === 1,
      sslEnabled: input.sslEnabled ?? row.ssl_enabled === 1,
      sslData: input.sslData !== undefined ? input.sslData : row.ssl_data,
      proxySslEnabled: input.proxy_ssl_enabled ?? row.proxy_ssl_enabled === 1,
      proxySslCa: input.proxy_ssl_ca !== undefined ? input.proxy_ssl_ca : row.proxy_ssl_ca,
      proxySslData: input.proxy_ssl_data !== undefined ? input.proxy_ssl_data : row.proxy_ssl_data,
      primaryResource: row.primary_resource,
      name: input.name !== undefined ? input.name : row.name,
      description: input.description ?? row.description,
    };
    const options = applyOptions(parseOptions(row.options), sent.options);
    return this.save(principal, row, candidate, options, row.waap_api_domain_enabled === 1, sent.errors);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    const row = await this.owned(principal.clientId, id);
    if (row.active === 1) throw stateRefusal('The CDN resource is active: deactivate it (active: false) before deleting it');
    const reserves = await this.store.where(principal.clientId, 'primary_resource', id);
    if (reserves.length > 0)
      throw stateRefusal(`The CDN resource is the main resource of reserve resource ${reserves.map((r) => r.id).join(', ')}: delete those first`);
    await this.store.delete(principal.clientId, id);
    if (row.ssl_data !== null) await this.ssl.detached(principal.clientId, row.ssl_data);
    if (isActive(parseOptions(row.options).waap)) await this.notifyWaap({ clientId: principal.clientId, resourceId: id, cname: row.cname, enabled: false });
  }

  async shielding(principal: Principal, id: number): Promise<{ shielding_pop: number | null }> {
    return { shielding_pop: (await this.owned(principal.clientId, id)).shielding_pop };
  }

  async setShielding(principal: Principal, id: number, pop: number | null): Promise<{ shielding_pop: number | null }> {
    const row = await this.owned(principal.clientId, id);
    if (pop !== null && !shieldingLocation(pop))
      throw refused([bodyField(['shielding_pop'], 'No origin shielding location has this ID: see GET /cdn/shieldingpop_v2')]);
    if (pop !== null && row.primary_resource !== null)
      throw refused([bodyField(['shielding_pop'], "A reserve resource shares its main resource's cache and cannot have origin shielding")]);
    await this.store.setShielding(principal.clientId, id, pop, this.clock.now());
    return { shielding_pop: pop };
  }

  /**
   * Whether a Let's Encrypt certificate could be issued now: the resource is active and propagated, has
   * no wildcard host name, and no active rule catches the ACME challenge path.
   */
  async preValidate(principal: Principal, id: number): Promise<void> {
    const row = await this.owned(principal.clientId, id);
    const problems: string[] = [];
    const status = statusOf(row, this.clock.now());
    if (status === 'suspended') problems.push('The CDN resource is not active: activate it, then validate again');
    if (status === 'processed') problems.push('The CDN resource is still being set up (about 15 minutes after its creation): validate again once it is active');
    if (hostnamesOf(row).some((h) => h.startsWith('*.'))) problems.push("A Let's Encrypt certificate cannot cover a wildcard host name");
    const rules = (await this.rules.ofResource(principal.clientId, id)).filter((r) => r.active === 1);
    const { rule } = await this.matcher.match(
      rules.map((r) => ({ id: r.id, rule: r.rule, ruleType: r.rule_type, weight: r.weight, name: r.name })),
      ACME_PROBE,
    );
    if (rule) problems.push(`Rule ${rule.id} (${rule.name}) applies to ${ACME_PROBE}: the validation request would not reach the challenge`);
    if (problems.length > 0) throw stateRefusal(...(problems as [string, ...string[]]));
  }

  /** GET .../preset: presets are not applied by this server, so no resource has one. */
  async appliedPreset(principal: Principal, id: number): Promise<never> {
    await this.owned(principal.clientId, id);
    throw notFound('Applied preset');
  }

  /** Resources of the client whose waap option is on: the domains the WAAP product lists. */
  async waapDomains(clientId: number): Promise<WaapDomain[]> {
    return (await this.store.all(clientId))
      .filter((row) => isActive(parseOptions(row.options).waap))
      .map((row) => ({
        resourceId: row.id,
        cname: row.cname,
        secondaryHostnames: JSON.parse(row.secondary_hostnames) as string[],
        apiDomain: row.waap_api_domain_enabled === 1,
      }));
  }

  /** Told when a resource's waap option turns on or off (or the resource with it on is deleted). */
  onWaapChange(listener: WaapListener): () => void {
    this.waapListeners.add(listener);
    return () => this.waapListeners.delete(listener);
  }

  /** Status of a resource on the server clock (for certificate usage answers). */
  statusOf(row: ResourceRow): string {
    return statusOf(row, this.clock.now());
  }

  private candidate(cname: string, input: ResourceInput, row: Pick<ResourceRow, 'origin_group_id'>): Candidate {
    return {
      cname,
      secondaryHostnames: (input.secondaryHostnames ?? []).map((h) => h.toLowerCase()),
      originGroup: input.originGroup ?? row.origin_group_id,
      originProtocol: input.originProtocol ?? DEFAULTS.originProtocol,
      active: input.active ?? DEFAULTS.active,
      sslEnabled: input.sslEnabled ?? false,
      sslData: input.sslData ?? null,
      proxySslEnabled: input.proxy_ssl_enabled ?? false,
      proxySslCa: input.proxy_ssl_ca ?? null,
      proxySslData: input.proxy_ssl_data ?? null,
      primaryResource: null,
      name: input.name ?? DEFAULTS.name,
      description: input.description ?? DEFAULTS.description,
    };
  }

  private async save(
    principal: Principal,
    row: ResourceRow,
    candidate: Candidate,
    options: StoredOptions,
    apiDomain: boolean,
    optionErrors: FieldError[],
  ): Promise<ResourceResult> {
    const errors = [...optionErrors, ...(await this.linkErrors(principal.clientId, candidate, options, row, true))];
    if (errors.length > 0) throw refused(errors);
    const fields = this.fields(candidate, options, apiDomain, row.shielding_pop);
    try {
      await this.store.update(principal.clientId, row.id, fields, this.clock.now());
    } catch (error) {
      if (isUniqueViolation(error)) throw taken('Another CDN resource');
      throw error;
    }
    await this.afterChange(principal.clientId, row.id, row);
    return this.get(principal, row.id);
  }

  /** Every check that needs other objects: host names taken, the group, certificates, the primary, options. */
  private async linkErrors(clientId: number, c: Candidate, options: StoredOptions, self: ResourceRow | undefined, checkGroup: boolean): Promise<FieldError[]> {
    const errors = [...secondaryErrors(c.cname, c.secondaryHostnames), ...switchErrors(c)];
    errors.push(...takenErrors(c, await this.store.hostnameOwners([c.cname, ...c.secondaryHostnames]), self?.id));
    if (checkGroup) errors.push(...(await this.groupErrors(clientId, c)));
    errors.push(...(await this.certificateErrors(clientId, c, self)));
    if (c.primaryResource !== null && !self) {
      const primary = await this.store.find(clientId, c.primaryResource);
      if (!primary) errors.push(bodyField(['primary_resource'], 'No CDN resource with this ID in the account'));
      else if (primary.primary_resource !== null)
        errors.push(bodyField(['primary_resource'], 'This resource is itself a reserve resource and cannot be a main one'));
    }
    errors.push(...optionProblems([], options, { sslEnabled: c.sslEnabled }));
    if (self) errors.push(...(await this.ruleConflicts(clientId, self.id, options)));
    return errors;
  }

  private async groupErrors(clientId: number, c: Candidate): Promise<FieldError[]> {
    const group = await this.groups.view(clientId, c.originGroup);
    if (!group) return [bodyField(['originGroup'], 'No origin group with this ID in the account')];
    if (c.originProtocol === 'MATCH' && group.sources.some((s) => portOf(s) !== null)) {
      return [bodyField(['originProtocol'], 'MATCH chooses the origin port, but an origin of the group has one: remove the ports or choose HTTP or HTTPS')];
    }
    return [];
  }

  private async certificateErrors(clientId: number, c: Candidate, self: ResourceRow | undefined): Promise<FieldError[]> {
    const errors: FieldError[] = [];
    if (c.sslData !== null) {
      const certificate = await this.ssl.find(clientId, c.sslData);
      if (!certificate) errors.push(bodyField(['sslData'], 'No SSL certificate with this ID in the account'));
      else if (certificate.automated === 1) {
        const users = (await this.store.where(clientId, 'ssl_data', c.sslData)).filter((r) => r.id !== self?.id);
        if (users.length > 0)
          errors.push(bodyField(['sslData'], `A Let's Encrypt certificate serves one resource, and resource ${users[0].id} has this one`, 'conflict'));
        if (c.secondaryHostnames.some((h) => h.startsWith('*.')))
          errors.push(bodyField(['sslData'], "A Let's Encrypt certificate cannot cover a wildcard host name: upload your own certificate"));
      }
    }
    if (c.proxySslData !== null && !(await this.ssl.find(clientId, c.proxySslData)))
      errors.push(bodyField(['proxy_ssl_data'], 'No SSL certificate with this ID in the account'));
    if (c.proxySslCa !== null && !(await this.cas.find(clientId, c.proxySslCa)))
      errors.push(bodyField(['proxy_ssl_ca'], 'No trusted CA certificate with this ID in the account'));
    return errors;
  }

  /** New resource options must not conflict with an option a rule of the resource sets. */
  private async ruleConflicts(clientId: number, resourceId: number, options: StoredOptions): Promise<FieldError[]> {
    const errors: FieldError[] = [];
    for (const rule of await this.rules.ofResource(clientId, resourceId)) {
      for (const conflict of inheritedConflicts(options, parseOptions(rule.options))) {
        errors.push(
          bodyField(
            ['options', conflict.inherited],
            `Rule ${rule.id} (${rule.name}) enables ${conflict.own}, which cannot be used together with ${conflict.inherited}: turn it OFF in that rule first`,
            'conflict',
          ),
        );
      }
    }
    return errors;
  }

  private fields(c: Candidate, options: StoredOptions, apiDomain: boolean, shieldingPop: number | null): ResourceFields {
    return {
      cname: c.cname,
      name: c.name,
      description: c.description,
      origin_group_id: c.originGroup,
      origin_protocol: c.originProtocol,
      active: c.active ? 1 : 0,
      secondary_hostnames: JSON.stringify(c.secondaryHostnames),
      ssl_enabled: c.sslEnabled ? 1 : 0,
      ssl_data: c.sslData,
      proxy_ssl_enabled: c.proxySslEnabled ? 1 : 0,
      proxy_ssl_ca: c.proxySslCa,
      proxy_ssl_data: c.proxySslData,
      primary_resource: c.primaryResource,
      waap_api_domain_enabled: apiDomain ? 1 : 0,
      options: JSON.stringify(options),
      shielding_pop: shieldingPop,
    };
  }

  /** Let's Encrypt issuing and the WAAP link follow a change of the resource. */
  private async afterChange(clientId: number, id: number, before: ResourceRow | undefined): Promise<void> {
    const after = (await this.store.find(clientId, id))!;
    const leBefore = before && before.ssl_enabled === 1 ? before.ssl_data : null;
    const leAfter = after.ssl_enabled === 1 ? after.ssl_data : null;
    if (leBefore !== null && leBefore !== leAfter) await this.ssl.detached(clientId, leBefore);
    const hostnamesChanged = before !== undefined && hostnamesOf(before).join() !== hostnamesOf(after).join();
    if (leAfter !== null && (leAfter !== leBefore || hostnamesChanged)) {
      await this.ssl.attached(clientId, leAfter, { id, hostnames: hostnamesOf(after), active: after.active === 1 });
    }
    const waapBefore = before !== undefined && isActive(parseOptions(before.options).waap);
    const waapAfter = isActive(parseOptions(after.options).waap);
    if (waapBefore !== waapAfter) await this.notifyWaap({ clientId, resourceId: id, cname: after.cname, enabled: waapAfter });
  }

  private async notifyWaap(change: WaapChange): Promise<void> {
    for (const listener of this.waapListeners) await listener(change);
  }

  private async result(row: ResourceRow): Promise<ResourceResult> {
    const [group, rules, reserves] = await Promise.all([
      this.groups.view(row.client_id, row.origin_group_id),
      this.rules.ofResource(row.client_id, row.id),
      this.store.where(row.client_id, 'primary_resource', row.id),
    ]);
    const resource = toResource(row, {
      groupName: group?.name ?? '',
      rules: rules.map((r) => toRule(r, row.origin_protocol)),
      hasReserves: reserves.length > 0,
      now: this.clock.now(),
    });
    return { resource, deprecations: deprecationsOf(parseOptions(row.options)) };
  }
}
