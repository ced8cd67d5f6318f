// The published GraphQL schema of the advanced analytics API, built with graphql-js types so every
// type, field and argument carries its description (introspection and the docs' SDL show them).
import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
} from 'graphql';
import { DEVICES, RETENTION_DAYS } from '../records/model.js';
import { DEFAULT_LIMIT, GRANULARITY_MS, MAX_LIMIT, SORTS, type AnalyticsService, type StatisticsArgs, type StatisticsReport } from './service.js';
import type { GroupRow } from './store.js';

export interface AnalyticsContext {
  clientId: number;
  analytics: AnalyticsService;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function parseDateTime(value: unknown): number {
  if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError(`DateTime must be an ISO 8601 date or date-time with a zone, e.g. "2026-11-01T00:00:00Z"; got ${JSON.stringify(value)}.`);
  }
  return Date.parse(value);
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant as ISO 8601 text with a zone designator, e.g. `2026-11-01T00:00:00Z`; a bare date means midnight UTC. Always answered in UTC.',
  serialize: (value) => new Date(value as number).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseLong(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new GraphQLError(`Long must be an integer up to 2^53-1; got ${JSON.stringify(value)}.`);
  return value;
}

const Long = new GraphQLScalarType({
  name: 'Long',
  description: 'An integer that may exceed 32 bits (byte and request counts), sent as a JSON number; exact up to 2^53-1.',
  serialize: (value) => Number(value),
  parseValue: parseLong,
  parseLiteral: (ast) => parseLong(ast.kind === Kind.INT ? Number(ast.value) : undefined),
});

const Dimension = new GraphQLEnumType({
  name: 'Dimension',
  description: 'What statistics can be grouped by.',
  values: {
    COUNTRY: { value: 'country', description: "Country of the visitor (ISO 3166-1 alpha-2), from the client IP's location." },
    DIRECTORY: { value: 'directory', description: 'First-level directory of the requested path: `/images/a.png` is in `/images/`, `/index.html` in `/`.' },
    BROWSER: { value: 'browser', description: 'Browser family from the User-Agent (Chrome, Safari, Firefox, ...).' },
    DEVICE: { value: 'device', description: 'Device type from the User-Agent (see DeviceType).' },
    OS: { value: 'os', description: 'Operating system family from the User-Agent (Windows, Android, iOS, ...).' },
  },
});

const DEVICE_TEXT: Record<(typeof DEVICES)[number], string> = {
  desktop: 'Desktop or laptop computer.',
  mobile: 'Phone.',
  tablet: 'Tablet.',
  tv: 'Smart TV or set-top box.',
  bot: 'Crawler or other automated client.',
  other: 'Anything else, or unknown.',
};

const DeviceType = new GraphQLEnumType({
  name: 'DeviceType',
  description: 'Kind of device that sent the request.',
  values: Object.fromEntries(DEVICES.map((d) => [d.toUpperCase(), { value: d, description: DEVICE_TEXT[d] }])),
});

const GRANULARITY_TEXT: Record<keyof typeof GRANULARITY_MS, string> = {
  MINUTE: '1 minute.',
  FIVE_MINUTES: '5 minutes.',
  FIFTEEN_MINUTES: '15 minutes.',
  HOUR: '1 hour.',
  SIX_HOURS: '6 hours (00:00, 06:00, 12:00, 18:00 UTC).',
  DAY: '1 day (UTC).',
};

const Granularity = new GraphQLEnumType({
  name: 'Granularity',
  description: 'Length of the time buckets rows are grouped into. Buckets start at multiples of their length since the Unix epoch (UTC).',
  values: Object.fromEntries(
    Object.keys(GRANULARITY_MS).map((name) => [name, { value: name, description: GRANULARITY_TEXT[name as keyof typeof GRANULARITY_MS] }]),
  ),
});

const SORT_TEXT = { bucket: 'time bucket (needs a granularity)', requests: 'requests', traffic: 'traffic', unique_visitors: 'unique visitors' } as const;

const RowOrder = new GraphQLEnumType({
  name: 'RowOrder',
  description: 'Order of the rows. Ties are broken by time bucket, then by the grouped dimensions, ascending.',
  values: Object.fromEntries(
    Object.entries(SORTS).map(([name, sort]) => [
      name,
      { value: name, description: `By ${SORT_TEXT[sort.key]}, ${sort.descending ? 'largest (newest) first' : 'smallest (oldest) first'}.` },
    ]),
  ),
});

const list = <T extends GraphQLScalarType | GraphQLEnumType | GraphQLObjectType>(type: T) => new GraphQLList(new GraphQLNonNull(type));

const TrafficFilter = new GraphQLInputObjectType({
  name: 'TrafficFilter',
  description: 'Restricts the records counted. Fields combine with AND; values within one field with OR. An absent or null field does not filter.',
  fields: {
    resourceIds: { type: list(Long), description: 'CDN resource IDs.' },
    hosts: { type: list(GraphQLString), description: 'Requested host names (case-insensitive).' },
    countries: { type: list(GraphQLString), description: 'ISO 3166-1 alpha-2 country codes (case-insensitive).' },
    directories: { type: list(GraphQLString), description: "Path prefixes starting with '/': `/images/` keeps `/images/a.png` and `/images/2026/b.png`." },
    browsers: { type: list(GraphQLString), description: 'Browser families, exactly as grouped (e.g. `Chrome`).' },
    devices: { type: list(DeviceType), description: 'Device types.' },
    operatingSystems: { type: list(GraphQLString), description: 'Operating-system families, exactly as grouped (e.g. `Android`).' },
  },
});

const statsFields = {
  requests: { type: new GraphQLNonNull(Long), description: 'Number of requests.' },
  traffic: { type: new GraphQLNonNull(Long), description: 'Bytes sent to visitors.' },
  uniqueVisitors: {
    type: new GraphQLNonNull(Long),
    description:
      'Distinct visitors (visitor ID, else client IP) in the scope of this object. Not additive: the visitors of a window are not the sum of its buckets.',
  },
};

const TrafficTotals = new GraphQLObjectType({
  name: 'TrafficTotals',
  description: 'Statistics of the whole window after filtering, whatever the grouping.',
  fields: statsFields,
});

const TrafficRow = new GraphQLObjectType<GroupRow>({
  name: 'TrafficRow',
  description: 'Statistics of one group. A dimension field is null when the query did not group by it; `time` is null without a granularity.',
  fields: {
    time: { type: DateTime, description: 'Start of the time bucket.', resolve: (row) => row.bucket },
    country: { type: GraphQLString, description: 'Country code (ISO 3166-1 alpha-2).' },
    directory: { type: GraphQLString, description: 'First-level directory, e.g. `/images/`; `/` for files at the root.' },
    browser: { type: GraphQLString, description: 'Browser family.' },
    device: { type: DeviceType, description: 'Device type.' },
    os: { type: GraphQLString, description: 'Operating system family.' },
    ...statsFields,
  },
});

const TrafficStatistics = new GraphQLObjectType<StatisticsReport>({
  name: 'TrafficStatistics',
  description: 'Statistics of a window. Only the parts selected are computed.',
  fields: {
    from: { type: new GraphQLNonNull(DateTime), description: 'Start of the window (inclusive).' },
    to: { type: new GraphQLNonNull(DateTime), description: 'End of the window (exclusive).' },
    granularity: { type: Granularity, description: 'The granularity asked for, null without one.' },
    groupBy: { type: new GraphQLNonNull(list(Dimension)), description: 'The dimensions grouped by.' },
    totals: {
      type: new GraphQLNonNull(TrafficTotals),
      description: 'Statistics of the whole window (unique visitors distinct over the window).',
      resolve: (report) => report.totals(),
    },
    rows: {
      type: new GraphQLNonNull(list(TrafficRow)),
      description: 'One row per group, after orderBy, offset and limit.',
      resolve: (report) => report.rows(),
    },
    rowCount: {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'Number of groups before offset and limit (for paging).',
      resolve: (report) => report.rowCount(),
    },
  },
});

const Query = new GraphQLObjectType<unknown, AnalyticsContext>({
  name: 'Query',
  description: 'Advanced CDN analytics: unique visitors, traffic and requests of your CDN resources.',
  fields: {
    statistics: {
      type: new GraphQLNonNull(TrafficStatistics),
      description: `Statistics of the access records in [from, to), filtered, grouped by dimensions and by time bucket. \`from\` may reach at most ${RETENTION_DAYS} days back.`,
      args: {
        from: { type: new GraphQLNonNull(DateTime), description: 'Start of the window (inclusive).' },
        to: { type: new GraphQLNonNull(DateTime), description: 'End of the window (exclusive).' },
        filter: { type: TrafficFilter, description: 'Which records to count; all of the window by default.' },
        groupBy: {
          type: list(Dimension),
          defaultValue: [],
          description: 'Dimensions to group by, in the order given; none gives one row per bucket (or one row).',
        },
        granularity: { type: Granularity, description: 'Also group by time bucket of this length.' },
        orderBy: { type: RowOrder, description: 'Default: TIME_ASC with a granularity, REQUESTS_DESC without.' },
        limit: { type: GraphQLInt, defaultValue: DEFAULT_LIMIT, description: `Maximum rows, 1 to ${MAX_LIMIT}.` },
        offset: { type: GraphQLInt, defaultValue: 0, description: 'Rows to skip.' },
      },
      resolve: (_root, args, context) => context.analytics.statistics(context.clientId, args as StatisticsArgs),
    },
    retentionDays: {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'How many days back statistics are kept and can be queried.',
      resolve: () => RETENTION_DAYS,
    },
  },
});

export const analyticsSchema = new GraphQLSchema({ query: Query, description: 'Edgeplane advanced CDN analytics (POST /cdn/advanced/v2/query).' });
