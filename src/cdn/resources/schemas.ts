// Request and response schemas of CDN resources. Bodies are open objects: unknown fields, and the
// read-only fields of the answer, are ignored. Field names as the reference spells them (camelCase and
// snake_case mixed).
import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { ListOf, PageQuery } from '../http.js';
import { MAX_LENGTH, QUOTAS } from '../limits.js';
import { ResourceOptionsInput, ResourceOptionsOutput } from '../options/catalogue.js';
import { ResourceRuleSchema } from '../resource-rules/schemas.js';
import { PROTOCOLS } from '../rule-templates/schemas.js';

export const STATUSES = ['active', 'suspended', 'processed', 'deleted'] as const;

const Hostname = Type.String({ maxLength: MAX_LENGTH.hostname });
const Id = (description: string) => Nullable(Type.Integer({ minimum: 1 }), { description });

const fields = {
  originGroup: Type.Integer({ minimum: 1, description: 'Origin group ID' }),
  active: Type.Boolean({ description: 'false: content is not delivered (and the resource may be deleted)' }),
  originProtocol: StringEnum(PROTOCOLS, { description: "Protocol toward the origin; MATCH uses the end user's" }),
  name: Nullable(Type.String({ maxLength: MAX_LENGTH.name }), { description: 'CDN resource name' }),
  description: Type.String({ maxLength: MAX_LENGTH.description, description: 'Free comment' }),
  secondaryHostnames: Type.Array(Hostname, {
    maxItems: QUOTAS.secondaryHostnames,
    description: `Additional delivery domains, at most ${QUOTAS.secondaryHostnames}`,
  }),
  sslEnabled: Type.Boolean({ description: 'HTTPS delivery' }),
  sslData: Id('SSL certificate for HTTPS delivery (needs sslEnabled)'),
  proxy_ssl_enabled: Type.Boolean({ description: "Verify the origin's certificate" }),
  proxy_ssl_ca: Id('Trusted CA certificate that verifies the origin (needs proxy_ssl_enabled)'),
  proxy_ssl_data: Id('SSL certificate that verifies the origin (needs proxy_ssl_enabled)'),
  waap_api_domain_enabled: Type.Boolean({ description: 'The WAAP domain of the resource is an API domain' }),
  options: ResourceOptionsInput,
};
const optional = Type.Partial(Type.Object(fields));

export const ResourceCreate = Type.Object({
  ...optional.properties,
  cname: Type.String({ maxLength: MAX_LENGTH.hostname, description: 'Delivery domain, unique across all accounts' }),
  origin: Type.Optional(
    Type.String({ maxLength: MAX_LENGTH.hostname, description: 'Origin host[:port]; a group holding it is created. Exactly one of origin and originGroup' }),
  ),
  primary_resource: Type.Optional(Id('Main resource whose cache zone this (reserve) resource shares')),
});
export type ResourceCreateInput = Static<typeof ResourceCreate>;

export const ResourceReplace = Type.Object({ ...optional.properties, originGroup: fields.originGroup });
const { waap_api_domain_enabled: _notInPatch, ...patchFields } = optional.properties;
export const ResourcePatch = Type.Object(patchFields);
export type ResourceInput = Static<typeof optional>;

const ReadOnly = {
  id: Type.Integer({ description: 'CDN resource ID' }),
  cname: Type.String(),
  active: Type.Boolean(),
  enabled: Type.Boolean({ description: 'Always true: the resource can be changed' }),
  status: StringEnum(STATUSES, { description: 'processed (just created), active, or suspended (active is false)' }),
  deleted: Type.Boolean({ description: 'Always false' }),
  client: Type.Integer({ description: 'Owner client ID' }),
  name: Nullable(Type.String()),
  description: Type.String(),
  created: Type.String({ description: 'Creation time, ISO 8601' }),
  updated: Type.String({ description: 'Last change, ISO 8601' }),
  originGroup: Type.Integer(),
  originGroup_name: Type.String(),
  originProtocol: StringEnum(PROTOCOLS),
  secondaryHostnames: Type.Array(Type.String()),
  shielded: Type.Boolean({ description: 'Origin shielding is on' }),
  shield_dc: Nullable(Type.String(), { description: 'Shielding location data center' }),
  shield_enabled: Type.Boolean(),
  shield_routing_map: Nullable(Type.Integer(), { description: 'Always null' }),
  sslEnabled: Type.Boolean(),
  sslData: Nullable(Type.Integer()),
  proxy_ssl_enabled: Type.Boolean(),
  proxy_ssl_ca: Nullable(Type.Integer()),
  proxy_ssl_data: Nullable(Type.Integer()),
  preset_applied: Type.Boolean({ description: 'Always false (presets are not modelled)' }),
  vp_enabled: Type.Boolean({ description: 'Always false' }),
  full_custom_enabled: Type.Boolean({ description: 'Always false' }),
  can_purge_by_urls: Type.Boolean({ description: 'Always true' }),
  suspend_date: Nullable(Type.String(), { description: 'Always null' }),
  suspended: Type.Boolean({ description: 'Always false (no automatic suspension)' }),
  primary_resource: Nullable(Type.Integer()),
  is_primary: Nullable(Type.Boolean(), { description: 'true: main resource of reserve ones; false: a reserve; null: neither' }),
  waap_domain_id: Nullable(Type.String(), { description: 'Always null here: the WAAP product lists the domain' }),
  rules: Type.Array(ResourceRuleSchema, { description: "The resource's rules" }),
  options: ResourceOptionsOutput,
};

export const ResourceSchema = Type.Object(ReadOnly, { description: 'CDN resource' });
export type Resource = Static<typeof ResourceSchema>;

export const ResourceParams = Type.Object({ resource_id: Type.Integer({ description: 'CDN resource ID' }) });

const DateText = Type.String({ format: 'date-time', maxLength: 64 });

export const ResourceListQuery = Type.Object({
  deleted: Type.Optional(Type.Boolean({ description: 'true finds nothing: deleted resources are gone' })),
  enabled: Type.Optional(Type.Boolean()),
  originGroup: Type.Optional(Type.Integer()),
  originGroup__in: Type.Optional(Type.String({ maxLength: 1024, description: 'Comma-separated origin group IDs' })),
  sslEnabled: Type.Optional(Type.Boolean()),
  sslData: Type.Optional(Type.Integer()),
  sslData_in: Type.Optional(Type.String({ maxLength: 1024, description: 'Comma-separated SSL certificate IDs' })),
  min_created: Type.Optional(DateText),
  max_created: Type.Optional(DateText),
  min_updated: Type.Optional(DateText),
  max_updated: Type.Optional(DateText),
  cname: Type.Optional(Type.String({ maxLength: MAX_LENGTH.hostname })),
  secondaryHostnames: Type.Optional(Type.String({ maxLength: MAX_LENGTH.hostname })),
  vp_enabled: Type.Optional(Type.Boolean()),
  rules: Type.Optional(Type.String({ maxLength: 300, description: 'Resources with a rule of this name or pattern' })),
  shielded: Type.Optional(Type.Boolean()),
  shield_dc: Type.Optional(Type.String({ maxLength: MAX_LENGTH.short })),
  suspend: Type.Optional(Type.Boolean({ description: 'true finds nothing: no suspension is scheduled' })),
  suspended: Type.Optional(Type.Boolean()),
  status: Type.Optional(StringEnum(STATUSES)),
  active: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: MAX_LENGTH.name, description: 'Part of the name, any case' })),
  originProtocol: Type.Optional(StringEnum(PROTOCOLS)),
  is_primary: Type.Optional(Type.Boolean()),
  ...PageQuery,
});
export type ResourceFilters = Omit<Static<typeof ResourceListQuery>, 'limit' | 'offset'>;

export const ResourceList = ListOf(ResourceSchema, 'CDN resources: an array, or a page when limit is given');

export const ShieldingSchema = Type.Object({ shielding_pop: Nullable(Type.Integer(), { description: 'Shielding location ID; null = no shielding' }) });
export const ShieldingLocation = Type.Object({ id: Type.Integer(), datacenter: Type.String(), country: Type.String(), city: Type.String() });
export const ShieldingLocationList = ListOf(ShieldingLocation, 'Origin shielding locations: an array, or a page when limit is given');
