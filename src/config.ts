// The only reader of process.env. One table of settings drives the environment variables, the CLI flags
// and `edgeplane --help`, so a setting cannot exist in one place and not the others.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Type, type Static } from 'typebox';
import { validate } from './config-validate.js';

/**
 * PostgreSQL connections a process opens at most. Five, not node-postgres' ten: on a database of two
 * cores (CI's, a laptop's) concurrent creates of one client queue on its quota row, and ten backends
 * waiting there cost PostgreSQL about a fifth more CPU a create than five, for 3-6% fewer creates a
 * second (bench/README.md, "PostgreSQL reads pipelined on shared connections; five pooled connections").
 */
export const DEFAULT_DATABASE_POOL = 5;
/** Shared PostgreSQL connections that statements outside transactions are pipelined on (src/platform/db/pipelined.ts). */
export const DEFAULT_DATABASE_PIPE = 2;
/**
 * How long (ms) a PostgreSQL statement of ours waits for a lock (a row another session holds) before it
 * fails, and its request with it, as a 503 to retry. Without a limit, a row held by a `psql` session left
 * open kept the requests that write it waiting until that session ended, each holding its connection.
 * Far above what our own transactions hold a row for (a create holds its client's quota row for one round
 * trip); Kysely's migration lock sets its own.
 */
export const DEFAULT_DATABASE_LOCK_TIMEOUT = 5_000;

export const TASK_MODES = ['instant', 'realistic', 'manual'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;

interface Setting {
  flag: string;
  env: string;
  description: string;
  /** The values a setting takes, for errors and help, when its schema alone does not say it plainly. */
  values?: string;
}

/** Every setting: its CLI flag, its environment variable and what it does. Defaults live in the schema. */
export const SETTINGS = {
  host: { flag: '--host <address>', env: 'EDGEPLANE_HOST', description: 'address to listen on' },
  port: { flag: '--port <number>', env: 'EDGEPLANE_PORT', description: 'TCP port (0 picks a free one)' },
  dataDir: { flag: '--data-dir <path>', env: 'EDGEPLANE_DATA_DIR', description: 'folder of the embedded SQLite database' },
  memory: { flag: '--memory', env: 'EDGEPLANE_MEMORY', description: 'keep everything in memory (nothing survives a restart)' },
  databaseUrl: { flag: '--database-url <url>', env: 'EDGEPLANE_DATABASE_URL', description: 'postgres://... to use PostgreSQL instead of SQLite' },
  databaseSchema: { flag: '--database-schema <name>', env: 'EDGEPLANE_DATABASE_SCHEMA', description: 'PostgreSQL schema to use (created if missing)' },
  databasePool: {
    flag: '--database-pool <number>',
    env: 'EDGEPLANE_DATABASE_POOL',
    description: 'PostgreSQL: connections for transactions this process opens at most (raise it for a database server with more cores)',
  },
  databasePipe: {
    flag: '--database-pipe <number>',
    env: 'EDGEPLANE_DATABASE_PIPE',
    description: 'PostgreSQL: shared connections that statements outside transactions are pipelined on (0: none, each goes over the pool)',
  },
  databaseLockTimeout: {
    flag: '--database-lock-timeout <ms>',
    env: 'EDGEPLANE_DATABASE_LOCK_TIMEOUT',
    description: 'PostgreSQL: how long a statement waits for a row another session holds before its request answers 503 to retry (0: as long as it takes)',
  },
  databaseStatements: {
    flag: '--database-statements <number>',
    env: 'EDGEPLANE_DATABASE_STATEMENTS',
    description: 'PostgreSQL: distinct statements each connection prepares once and keeps (0: none, for a pooler that cannot keep them)',
  },
  adminToken: {
    flag: '--admin-token <token>',
    env: 'EDGEPLANE_ADMIN_TOKEN',
    description: 'operator token for /_edgeplane (when generated, printed at the first start)',
  },
  apiKey: {
    flag: '--api-key <token>',
    env: 'EDGEPLANE_API_KEY',
    description: 'API token of the demo account made on an empty database (when generated, printed then)',
  },
  applyApiKey: {
    flag: '--apply-api-key',
    env: 'EDGEPLANE_APPLY_API_KEY',
    description: 'on a database made by an earlier start, add --api-key to the demo account when it is not a token there yet',
  },
  logLevel: { flag: '--log-level <level>', env: 'EDGEPLANE_LOG_LEVEL', description: `log level (${LOG_LEVELS.join(', ')})` },
  logFormat: {
    flag: '--log-format <format>',
    env: 'EDGEPLANE_LOG_FORMAT',
    description: `log format (${LOG_FORMATS.join(', ')}): auto is pretty on a terminal, JSON lines otherwise`,
  },
  logRequests: { flag: '--log-requests', env: 'EDGEPLANE_LOG_REQUESTS', description: 'log every request (halves throughput)' },
  bodyLimit: { flag: '--body-limit <bytes>', env: 'EDGEPLANE_BODY_LIMIT', description: 'largest accepted request body' },
  taskMode: { flag: '--task-mode <mode>', env: 'EDGEPLANE_TASK_MODE', description: `cloud task progression (${TASK_MODES.join(', ')})` },
  taskSpeed: { flag: '--task-speed <factor>', env: 'EDGEPLANE_TASK_SPEED', description: 'realistic mode: durations are divided by this factor' },
  journalSize: { flag: '--journal-size <entries>', env: 'EDGEPLANE_JOURNAL_SIZE', description: 'requests kept in the request journal (0 turns it off)' },
  journalBodies: {
    flag: '--journal-bodies',
    env: 'EDGEPLANE_JOURNAL_BODIES',
    description: 'keep request and response bodies in the journal (secrets redacted)',
  },
  journalBodyLimit: {
    flag: '--journal-body-limit <bytes>',
    env: 'EDGEPLANE_JOURNAL_BODY_LIMIT',
    description: 'largest body kept in the journal; longer ones are cut',
  },
  seed: { flag: '--seed <file>', env: 'EDGEPLANE_SEED', description: 'JSON seed file applied at start (clients, tokens, product data)' },
  requestTimeout: {
    flag: '--request-timeout <ms>',
    env: 'EDGEPLANE_REQUEST_TIMEOUT',
    description: 'longest time a client may take to send headers and body; slower clients are disconnected',
  },
  connectionTimeout: { flag: '--connection-timeout <ms>', env: 'EDGEPLANE_CONNECTION_TIMEOUT', description: 'an idle connection is closed after this long' },
  keepAliveTimeout: {
    flag: '--keep-alive-timeout <ms>',
    env: 'EDGEPLANE_KEEP_ALIVE_TIMEOUT',
    description: 'how long a kept-alive connection waits for its next request',
  },
  maxHeaderSize: {
    flag: '--max-header-size <bytes>',
    env: 'EDGEPLANE_MAX_HEADER_SIZE',
    description: 'largest request line plus headers (longer URLs or headers get 431)',
  },
  rateLimit: {
    flag: '--rate-limit <per-second>',
    env: 'EDGEPLANE_RATE_LIMIT',
    description: 'requests per second allowed per API token (0 turns limiting off); excess gets 429 with Retry-After',
  },
  rateLimitBurst: {
    flag: '--rate-limit-burst <requests>',
    env: 'EDGEPLANE_RATE_LIMIT_BURST',
    description: 'requests a token may send at once before the rate applies (0: one second of the rate)',
  },
  cors: {
    flag: '--cors <origins>',
    env: 'EDGEPLANE_CORS',
    description: 'browser origins allowed to call the API (CORS)',
    values: "local (http(s)://localhost, 127.0.0.1 or [::1], any port), '*' (any), off, or origins separated by commas (http://host:port)",
  },
  exitWithParent: {
    flag: '--exit-with-parent',
    env: 'EDGEPLANE_EXIT_WITH_PARENT',
    description: 'stop when the process that started the server exits (set by `npm start`)',
  },
  queryThreads: {
    flag: '--query-threads <number>',
    env: 'EDGEPLANE_QUERY_THREADS',
    description: 'reader threads for the WAAP request log (0: read on the main thread; in-memory SQLite always does)',
  },
  dnsPort: {
    flag: '--dns-port <port>',
    env: 'EDGEPLANE_DNS_PORT',
    description: 'port of the authoritative DNS server for the hosted zones, UDP and TCP, on --host (0: off)',
  },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

// One item: a keyword, or an origin (scheme, host, optional port; no path). Items are separated by commas.
const CORS_ITEM = String.raw`(local|\*|off|https?://[^\s,/]+)`;
const CORS_PATTERN = String.raw`^\s*${CORS_ITEM}(\s*,\s*${CORS_ITEM})*\s*$`;

export const ConfigSchema = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1', minLength: 1 }),
    port: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
    dataDir: Type.String({ default: './.edgeplane', minLength: 1 }),
    memory: Type.Boolean({ default: false }),
    databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
    databaseSchema: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' })),
    databasePool: Type.Integer({ default: DEFAULT_DATABASE_POOL, minimum: 1, maximum: 1_000 }),
    databasePipe: Type.Integer({ default: DEFAULT_DATABASE_PIPE, minimum: 0, maximum: 64 }),
    databaseLockTimeout: Type.Integer({ default: DEFAULT_DATABASE_LOCK_TIMEOUT, minimum: 0, maximum: 3_600_000 }),
    databaseStatements: Type.Integer({ default: 400, minimum: 0, maximum: 10_000 }),
    adminToken: Type.Optional(Type.String({ minLength: 16 })),
    apiKey: Type.Optional(Type.String({ minLength: 8, maxLength: 512 })),
    applyApiKey: Type.Boolean({ default: false }),
    logLevel: Type.Enum([...LOG_LEVELS], { default: 'info' }),
    logFormat: Type.Enum([...LOG_FORMATS], { default: 'auto' }),
    logRequests: Type.Boolean({ default: false }),
    bodyLimit: Type.Integer({ default: 1_048_576, minimum: 1024, maximum: 1_073_741_824 }),
    taskMode: Type.Enum([...TASK_MODES], { default: 'instant' }),
    taskSpeed: Type.Number({ default: 1, exclusiveMinimum: 0, maximum: 1_000_000 }),
    journalSize: Type.Integer({ default: 1000, minimum: 0, maximum: 1_000_000 }),
    journalBodies: Type.Boolean({ default: false }),
    journalBodyLimit: Type.Integer({ default: 4096, minimum: 0, maximum: 1_048_576 }),
    seed: Type.Optional(Type.String({ minLength: 1 })),
    requestTimeout: Type.Integer({ default: 30_000, minimum: 100, maximum: 3_600_000 }),
    connectionTimeout: Type.Integer({ default: 120_000, minimum: 100, maximum: 3_600_000 }),
    keepAliveTimeout: Type.Integer({ default: 72_000, minimum: 100, maximum: 3_600_000 }),
    maxHeaderSize: Type.Integer({ default: 16_384, minimum: 1024, maximum: 1_048_576 }),
    rateLimit: Type.Number({ default: 0, minimum: 0, maximum: 1_000_000 }),
    rateLimitBurst: Type.Integer({ default: 0, minimum: 0, maximum: 10_000_000 }),
    cors: Type.String({ default: 'local', pattern: CORS_PATTERN }),
    exitWithParent: Type.Boolean({ default: false }),
    queryThreads: Type.Integer({ default: 2, minimum: 0, maximum: 64 }),
    dnsPort: Type.Integer({ default: 0, minimum: 0, maximum: 65535 }),
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;

export class ConfigError extends Error {}

/** A setting's default, as `edgeplane serve --help` shows it (undefined: none, or generated). */
export function settingDefault(name: SettingName): unknown {
  return (ConfigSchema.properties[name] as { default?: unknown }).default;
}

/** The flag (without its argument) of a setting, e.g. `--task-mode`. */
export function flagOf(name: SettingName): string {
  return SETTINGS[name].flag.split(' ')[0];
}

/** One line per problem, naming both spellings of the setting, the value given and what would do. */
function describeProblem(error: ErrorObject, raw: Record<string, unknown>): string {
  const name = error.instancePath.slice(1) as SettingName;
  if (!(name in SETTINGS)) return `${name || 'configuration'}: ${error.message}`;
  const setting: Setting = SETTINGS[name];
  const given = raw[name] === undefined ? '' : ` (got ${JSON.stringify(String(raw[name]))})`;
  const where = `${flagOf(name)} / ${setting.env}`;
  if (error.keyword === 'enum') return `${where}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}${given}`;
  if (error.keyword === 'type' && (error.params as { type: string }).type === 'boolean') return `${where}: must be true or false${given}`;
  if (setting.values) return `${where}: must be ${setting.values}${given}`;
  return `${where}: ${error.message}${given}`;
}

// ConfigSchema's validator, compiled ahead of time (scripts/config-validator.ts): compiling it at every
// start was 10-16 ms of a start-up profile. Defaults filled in, text coerced to numbers and booleans, every problem listed.
const validateConfig = validate as unknown as ValidateFunction;

/** Environment first, then explicit overrides (CLI flags, or a test's options) on top. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<SettingName, unknown>> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const fromEnv = env[setting.env];
    if (fromEnv !== undefined && fromEnv !== '') raw[name] = fromEnv;
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value !== undefined) raw[name] = value;
  }
  if (!validateConfig(raw)) {
    const problems = (validateConfig.errors ?? []).map((error) => describeProblem(error, raw));
    throw new ConfigError(`invalid configuration:\n  ${[...new Set(problems)].join('\n  ')}`);
  }
  return Object.freeze(raw as Static<typeof ConfigSchema>);
}

/** Where the `edgeplane clock|faults|journal|state|seed` commands find a running server. */
export function controlTarget(env: NodeJS.ProcessEnv = process.env): { url: string; adminToken?: string } {
  return { url: env.EDGEPLANE_URL || `http://127.0.0.1:${env.EDGEPLANE_PORT || 8080}`, adminToken: env.EDGEPLANE_ADMIN_TOKEN || undefined };
}

/** Read by the test suite only: which engine the suite runs on. Lives here to keep env access in one file. */
export function testDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.EDGEPLANE_TEST_DATABASE_URL || undefined;
}

/**
 * Read by the catalogue test only: the provider's OpenAPI document to re-derive reference/catalogue.json
 * from, when a developer has it (the drift check). Unset in a user's clone: the test then checks the
 * committed catalogue's integrity instead.
 */
export function referenceSourcePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.EDGEPLANE_REFERENCE_OPENAPI || undefined;
}
