import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { filterQuery, timeQuery } from '../request-events/schemas.js';
import { TRAFFIC_FIELDS } from '../request-events/log/index.js';

export const STAT_DIMENSIONS = ['country', 'rule', 'org', 'ip', 'useragent', 'target'] as const;
export type StatDimension = (typeof STAT_DIMENSIONS)[number];

export const StatsParams = Type.Object({ dimension: StringEnum(STAT_DIMENSIONS) });

export const StatsQuery = Type.Object({
  ...timeQuery,
  domains: Type.Optional(filterQuery.domains),
  ips: Type.Optional(filterQuery.ips),
  security_rule_names: Type.Optional(filterQuery.security_rule_names),
  order_by: Type.Optional(StringEnum(['total.desc', 'threats.desc'] as const, { default: 'total.desc' })),
});

const Pair = Type.Array(Type.Union([Type.String(), Type.Integer()]), { minItems: 2, maxItems: 2, description: '[key, count]' });
export const SimpleStats = Type.Object({
  total: Type.Array(Pair),
  blocked: Type.Array(Pair),
  suppressed: Type.Array(Pair, { description: 'Monitored: would have been blocked outside monitoring mode' }),
  allowed: Type.Array(Pair),
  reference: Nullable(
    Type.Record(Type.String(), Type.Union([Type.Object({ country: Type.String(), org: Type.String() }), Type.Object({ domain_id: Type.Integer() })])),
  ),
});

export const TrafficQuery = Type.Object({
  ...timeQuery,
  domains: Type.Optional(filterQuery.domains),
  resolution: StringEnum(['daily', 'hourly', 'minutely'] as const),
  bucket_size: Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400] })),
});

export const TrafficSeries = Type.Array(
  Type.Object({
    timestamp: Type.Integer({ description: 'Start of the bucket, UNIX seconds' }),
    ...Object.fromEntries(TRAFFIC_FIELDS.map((f) => [f, Type.Integer()])),
  }),
);
