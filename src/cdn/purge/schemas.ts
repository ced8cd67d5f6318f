// Request and response schemas of purge, prefetch and the purge history.
import { Type } from 'typebox';
import { StringEnum } from '../../platform/schema.js';
import { ListOf } from '../http.js';
import { MAX_LENGTH, PURGE_LIMITS } from '../limits.js';

const Path = Type.String({ maxLength: MAX_LENGTH.url });

export const PurgeBody = Type.Object(
  {
    urls: Type.Optional(
      Type.Array(Path, {
        maxItems: PURGE_LIMITS.urlsPerRequest,
        description: `Purge by URL: paths with their query strings, at most ${PURGE_LIMITS.urlsPerRequest}`,
      }),
    ),
    paths: Type.Optional(
      Type.Array(Path, {
        maxItems: PURGE_LIMITS.patternsPerRequest,
        description: `Purge by pattern (* only at the end), at most ${PURGE_LIMITS.patternsPerRequest}; an empty array purges everything`,
      }),
    ),
  },
  { description: 'One of urls and paths' },
);

export const PrefetchBody = Type.Object({
  paths: Type.Array(Path, {
    minItems: 1,
    maxItems: PURGE_LIMITS.prefetchPathsPerRequest,
    description: `Files to load into the cache, at most ${PURGE_LIMITS.prefetchPathsPerRequest}`,
  }),
});

export const PURGE_TYPES = ['purge_by_url', 'purge_by_pattern', 'purge_all'] as const;
export const PURGE_STATUSES = ['In progress', 'Successful', 'Failed'] as const;

export const PurgeStatusSchema = Type.Object({
  purge_id: Type.Integer(),
  status: StringEnum(PURGE_STATUSES),
  resource: Type.Object({ id: Type.Integer(), cname: Type.String() }),
  payload: Type.Object({ urls: Type.Optional(Type.Array(Type.String())), paths: Type.Optional(Type.Array(Type.String())) }),
  created: Type.String({ description: 'ISO 8601' }),
  purge_type: StringEnum(PURGE_TYPES),
});

export const PurgeStatusQuery = Type.Object({
  cname: Type.Optional(Type.String({ maxLength: MAX_LENGTH.hostname, description: 'Purges of the resource with this cname' })),
  status: Type.Optional(Type.String({ maxLength: 64, description: 'In progress, Successful or Failed' })),
  purge_type: Type.Optional(Type.String({ maxLength: 64, description: 'purge_by_url, purge_by_pattern or purge_all' })),
  from_created: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'Purges made at or after this time' })),
  to_created: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'Purges made at or before this time' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: `Page size; above ${PURGE_LIMITS.historyPage} it is lowered to ${PURGE_LIMITS.historyPage}` }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
});

export const PurgeStatusList = ListOf(PurgeStatusSchema, 'Purges, newest first: an array, or a page when limit is given');
