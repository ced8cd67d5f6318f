import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, CLOSED } from '../../platform/schema.js';

export const DOMAIN_STATUSES = ['active', 'bypass', 'monitor', 'locked'] as const;
export const DOMAIN_ORDERINGS = ['id', 'name', 'status', 'created_at', '-id', '-name', '-status', '-created_at'] as const;

const domainFields = {
  id: Type.Integer({ exclusiveMinimum: 0, description: 'The domain ID' }),
  name: Type.String({ maxLength: 255 }),
  status: StringEnum(DOMAIN_STATUSES),
  custom_page_set: Nullable(Type.Integer()),
  created_at: Type.String({ format: 'date-time' }),
  aliases: Type.Array(Type.String(), { description: "CNAME aliases of the domain's CDN resource" }),
};

export const DomainSummary = Type.Object(domainFields);
export type DomainSummary = Static<typeof DomainSummary>;

const Quota = Type.Object({ allowed: Type.Integer(), current: Type.Integer() });
export const DomainDetail = Type.Object({ ...domainFields, quotas: Nullable(Type.Record(Type.String(), Quota)) });
export type DomainDetail = Static<typeof DomainDetail>;

export const DomainListQuery = Type.Object({
  ids: Type.Optional(Type.Array(Type.Integer({ exclusiveMinimum: 0 }))),
  name: Type.Optional(Type.String({ description: "Domain name; '*' is a wildcard" })),
  status: Type.Optional(StringEnum(DOMAIN_STATUSES)),
  ordering: Type.Optional(StringEnum(DOMAIN_ORDERINGS)),
  limit: Type.Integer({ minimum: 0, maximum: 100, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 100000, default: 0 }),
});
export type DomainListQuery = Static<typeof DomainListQuery>;

export const DomainPage = Type.Object({
  count: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  results: Type.Array(DomainSummary),
});

export const DomainParams = Type.Object({ domain_id: Type.Integer({ exclusiveMinimum: 0 }) });

// The reference declares this body closed: an unknown field is refused.
export const DomainUpdate = Type.Object({ status: StringEnum(['active', 'monitor'] as const) }, CLOSED);

export const DomainCreate = Type.Object(
  {
    client_id: Type.Integer({ exclusiveMinimum: 0 }),
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?$' }),
    status: Type.Optional(StringEnum(DOMAIN_STATUSES)),
    aliases: Type.Optional(Type.Array(Type.String({ maxLength: 255 }))),
    custom_page_set: Type.Optional(Nullable(Type.Integer())),
  },
  { additionalProperties: false },
);
export type DomainCreate = Static<typeof DomainCreate>;
