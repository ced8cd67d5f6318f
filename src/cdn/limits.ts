// The CDN product's limits in one place (docs/cdn.md lists them). Where the reference states a figure it
// is used; the others are Edgeplane's own defaults, chosen so one client cannot grow a collection, a
// string or a request without bound.

/** Objects one client may own. */
export const QUOTAS = {
  ruleTemplates: 500,
  originGroups: 500,
  resources: 500,
  /** Rules of one CDN resource. */
  rulesPerResource: 100,
  sslCertificates: 500,
  caCertificates: 500,
  /** Sources in one origin group (the reference's origins_in_group_limit). */
  sourcesPerGroup: 10,
  /** Additional CNAMEs of one resource (the reference's limit). */
  secondaryHostnames: 10,
  /** Purge and prefetch records kept per client for the purge history (oldest dropped first). */
  purgeHistory: 5000,
} as const;

/** Maximum string lengths where the reference states none. */
export const MAX_LENGTH = {
  /** Names of templates, rules, groups, certificates, resources. */
  name: 255,
  /** A host name (RFC 1035: 253 characters) with room for a port. */
  hostname: 255,
  description: 1024,
  /** Short values inside options (domains, header names, query parameter names, file types). */
  short: 255,
  /** A URL path in a purge or prefetch request, or a URI given to a control call. */
  url: 2048,
  /** A PEM certificate chain, or a private key. */
  pem: 65_536,
} as const;

/** Items in one array inside options where the reference states no limit. */
export const MAX_ITEMS = 100;

/** Purge and prefetch limits stated by the reference: per request, and requests per resource per minute. */
export const PURGE_LIMITS = {
  urlsPerRequest: 100,
  patternsPerRequest: 10,
  prefetchPathsPerRequest: 100,
  perMinute: { purge_by_url: 2, purge_by_pattern: 1, purge_all: 1, prefetch: 1 },
  /** The purge history's page size: default and maximum (larger `limit` values are lowered to it). */
  historyPage: 100,
} as const;

/** How long things take on the server clock. */
export const DURATIONS_MS = {
  /** A new resource is `processed` this long before it is `active` (the reference: about fifteen minutes). */
  resourcePropagation: 15 * 60_000,
  /** A purge is `In progress` this long before it is `Successful`. */
  purge: 30_000,
  /** A Let's Encrypt issuing attempt runs this long before the certificate is issued. */
  letsEncryptIssue: 5 * 60_000,
  /** Validity of an issued Let's Encrypt certificate. */
  letsEncryptValidity: 90 * 86_400_000,
} as const;
