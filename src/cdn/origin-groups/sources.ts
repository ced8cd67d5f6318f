// The origins of a group as sent, checked and turned into what is stored: host origins ("host" or
// "host:port"), S3 buckets and FastEdge applications, and the deprecated group-wide S3 credentials.
// Pure functions (input in, stored value and field errors out), unit-tested in sources.test.ts.
import { bodyField, type FieldError } from '../../platform/errors.js';
import { isDomain, parseSource, SOURCE_MESSAGES } from '../hosts.js';
import type { AuthInputValue, SourceInputValue } from './schemas.js';

/** The placeholder answered instead of S3 keys; sent back, it means "keep the stored key". */
export const SECRET = 'SECRET_VALUE';

export interface S3Config {
  s3_type: 'amazon' | 'other';
  s3_bucket_name: string;
  s3_region?: string | null;
  s3_storage_hostname?: string | null;
  s3_access_key_id: string;
  s3_secret_access_key: string;
  s3_auth_type: string;
}

interface Common {
  backup: boolean;
  enabled: boolean;
  host_header_override: string | null;
}

export type StoredSource =
  (Common & { source: string }) | (Common & { origin_type: 's3'; config: S3Config }) | (Common & { origin_type: 'fastedge'; config: { app_id: string } });

export type StoredAuth = Required<Pick<AuthInputValue, 's3_type' | 's3_access_key_id' | 's3_secret_access_key' | 's3_bucket_name'>> &
  Pick<AuthInputValue, 's3_storage_hostname' | 's3_region'>;

const ACCESS_KEY = /^[A-Za-z0-9:_-]{4,255}$/;
const SECRET_KEY = /^[A-Za-z0-9+/:_-]{16,255}$/;
const LEGACY_ACCESS_KEY = /^[A-Za-z0-9:_-]{3,512}$/;
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

const missing = (path: (string | number)[]) => bodyField(path, 'Field required', 'missing');

/** The kind of a sent source: its origin_type, or what its fields show. */
function kindOf(source: SourceInputValue): 'host' | 's3' | 'fastedge' {
  if (source.origin_type) return source.origin_type;
  if (source.source === undefined && source.config) return source.config.app_id !== undefined ? 'fastedge' : 's3';
  return 'host';
}

function s3Config(config: SourceInputValue['config'], at: (string | number)[], kept: S3Config | undefined, errors: FieldError[]): S3Config | undefined {
  if (!config) {
    errors.push(bodyField([...at, 'config'], 'An S3 origin needs its config (s3_type, s3_bucket_name, s3_access_key_id, s3_secret_access_key)', 'missing'));
    return undefined;
  }
  const before = errors.length;
  for (const field of ['s3_type', 's3_bucket_name', 's3_access_key_id', 's3_secret_access_key'] as const) {
    if (config[field] === undefined || config[field] === '') errors.push(missing([...at, 'config', field]));
  }
  // A key sent back as the masked placeholder keeps the key stored for the same bucket.
  const accessKey = config.s3_access_key_id === SECRET && kept ? kept.s3_access_key_id : config.s3_access_key_id;
  const secretKey = config.s3_secret_access_key === SECRET && kept ? kept.s3_secret_access_key : config.s3_secret_access_key;
  if (accessKey !== undefined && accessKey !== '' && !ACCESS_KEY.test(accessKey)) {
    errors.push(bodyField([...at, 'config', 's3_access_key_id'], 'From 4 to 255 Latin letters, digits, colons, dashes and underscores'));
  }
  if (secretKey !== undefined && secretKey !== '' && !SECRET_KEY.test(secretKey)) {
    errors.push(bodyField([...at, 'config', 's3_secret_access_key'], 'From 16 to 255 Latin letters, digits, pluses, slashes, colons, dashes and underscores'));
  }
  if (config.s3_type === 'amazon' && !config.s3_region) errors.push(bodyField([...at, 'config', 's3_region'], 'Required when s3_type is amazon', 'missing'));
  if (config.s3_type === 'amazon' && config.s3_region && !AWS_REGION.test(config.s3_region))
    errors.push(bodyField([...at, 'config', 's3_region'], 'Not an AWS region name, such as eu-west-1'));
  if (config.s3_type === 'other' && !config.s3_storage_hostname)
    errors.push(bodyField([...at, 'config', 's3_storage_hostname'], 'Required when s3_type is other', 'missing'));
  if (config.s3_type === 'other' && config.s3_storage_hostname && !isDomain(config.s3_storage_hostname)) {
    errors.push(bodyField([...at, 'config', 's3_storage_hostname'], 'Must be a domain name'));
  }
  if (errors.length > before) return undefined;
  return {
    s3_type: config.s3_type!,
    s3_bucket_name: config.s3_bucket_name!,
    ...(config.s3_region !== undefined ? { s3_region: config.s3_region } : {}),
    ...(config.s3_storage_hostname !== undefined ? { s3_storage_hostname: config.s3_storage_hostname } : {}),
    s3_access_key_id: accessKey!,
    s3_secret_access_key: secretKey!,
    s3_auth_type: config.s3_auth_type ?? 'awsSignatureV4',
  };
}

/** One sent source as stored, or undefined with its errors pushed. */
function readSource(input: SourceInputValue, i: number, stored: StoredSource[], errors: FieldError[]): StoredSource | undefined {
  const at = ['sources', i];
  const common: Common = { backup: input.backup ?? false, enabled: input.enabled ?? true, host_header_override: input.host_header_override ?? null };
  const kind = kindOf(input);
  if (kind === 'fastedge') {
    if (!input.config?.app_id) {
      errors.push(missing([...at, 'config', 'app_id']));
      return undefined;
    }
    return { ...common, origin_type: 'fastedge', config: { app_id: input.config.app_id } };
  }
  if (kind === 's3') {
    const kept = stored.find(
      (s): s is Extract<StoredSource, { origin_type: 's3' }> =>
        'origin_type' in s && s.origin_type === 's3' && s.config.s3_bucket_name === input.config?.s3_bucket_name,
    );
    const config = s3Config(input.config, at, kept?.config, errors);
    return config && { ...common, origin_type: 's3', config };
  }
  if (input.source === undefined) {
    errors.push(missing([...at, 'source']));
    return undefined;
  }
  const parsed = parseSource(input.source);
  if ('problem' in parsed) {
    errors.push(bodyField([...at, 'source'], SOURCE_MESSAGES[parsed.problem]));
    return undefined;
  }
  return { ...common, source: input.source };
}

/** Duplicates: a host origin twice, or one S3 bucket twice, in the same group. */
function duplicateErrors(sources: (StoredSource | undefined)[]): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  sources.forEach((s, i) => {
    if (!s) return;
    const key = 'source' in s ? `host:${s.source.toLowerCase()}` : s.origin_type === 's3' ? `s3:${s.config.s3_bucket_name}` : undefined;
    if (key === undefined) return;
    if (seen.has(key))
      errors.push(
        bodyField(
          ['sources', i, 'source' in s ? 'source' : 'config'],
          'source' in s ? 'This origin is already in the group' : 'This S3 bucket is already in the group',
          'conflict',
        ),
      );
    seen.add(key);
  });
  return errors;
}

/** A group needs an origin that is used in normal operation: enabled, and not a backup. */
function activeOriginErrors(sources: StoredSource[]): FieldError[] {
  if (sources.length === 0) return [bodyField(['sources'], 'A group needs at least one origin', 'missing')];
  if (sources.length === 1 && sources[0].backup) return [bodyField(['sources', 0, 'backup'], 'The only origin of a group cannot be a backup')];
  if (!sources.some((s) => s.enabled)) return [bodyField(['sources'], 'At least one origin must be enabled')];
  if (!sources.some((s) => s.enabled && !s.backup)) return [bodyField(['sources'], 'At least one enabled origin must not be a backup')];
  return [];
}

/** The sources to store and every problem with them. `stored` (the group's current sources) keeps masked keys. */
export function readSources(input: SourceInputValue[], stored: StoredSource[]): { sources: StoredSource[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const read = input.map((s, i) => readSource(s, i, stored, errors));
  errors.push(...duplicateErrors(read));
  const sources = read.filter((s): s is StoredSource => s !== undefined);
  if (errors.length === 0) errors.push(...activeOriginErrors(sources));
  return { sources, errors };
}

/** The deprecated group-wide credentials, checked. */
export function readAuth(input: AuthInputValue | null | undefined, kept: StoredAuth | null): { auth?: StoredAuth; errors: FieldError[] } {
  if (!input) return { errors: [bodyField(['auth'], 'auth_type awsSignatureV4 needs auth with the S3 credentials', 'missing')] };
  const errors: FieldError[] = [];
  for (const field of ['s3_type', 's3_access_key_id', 's3_secret_access_key', 's3_bucket_name'] as const) {
    if (!input[field]) errors.push(missing(['auth', field]));
  }
  const accessKey = input.s3_access_key_id === SECRET && kept ? kept.s3_access_key_id : input.s3_access_key_id;
  const secretKey = input.s3_secret_access_key === SECRET && kept ? kept.s3_secret_access_key : input.s3_secret_access_key;
  if (accessKey && !LEGACY_ACCESS_KEY.test(accessKey))
    errors.push(bodyField(['auth', 's3_access_key_id'], 'From 3 to 512 Latin letters, digits, colons, dashes and underscores'));
  if (secretKey && input.s3_type === 'amazon' && !/^[A-Za-z0-9+/:_-]{40}$/.test(secretKey)) {
    errors.push(
      bodyField(['auth', 's3_secret_access_key'], 'An Amazon secret access key has 40 Latin letters, digits, pluses, slashes, colons, dashes and underscores'),
    );
  }
  if (secretKey && input.s3_type === 'other' && !SECRET_KEY.test(secretKey))
    errors.push(bodyField(['auth', 's3_secret_access_key'], 'From 16 to 255 Latin letters, digits, pluses, slashes, colons, dashes and underscores'));
  if (input.s3_type === 'amazon' && !input.s3_region) errors.push(bodyField(['auth', 's3_region'], 'Required when s3_type is amazon', 'missing'));
  if (input.s3_type === 'amazon' && input.s3_region && !AWS_REGION.test(input.s3_region))
    errors.push(bodyField(['auth', 's3_region'], 'Not an AWS region name, such as eu-west-1'));
  if (input.s3_type === 'other' && !input.s3_storage_hostname)
    errors.push(bodyField(['auth', 's3_storage_hostname'], 'Required when s3_type is other', 'missing'));
  if (errors.length > 0) return { errors };
  return {
    auth: {
      s3_type: input.s3_type!,
      s3_access_key_id: accessKey!,
      s3_secret_access_key: secretKey!,
      s3_bucket_name: input.s3_bucket_name!,
      ...(input.s3_storage_hostname !== undefined ? { s3_storage_hostname: input.s3_storage_hostname } : {}),
      ...(input.s3_region !== undefined ? { s3_region: input.s3_region } : {}),
    },
    errors,
  };
}

/** A source as answered: S3 keys masked. */
export function maskSource(source: StoredSource): StoredSource {
  if (!('origin_type' in source) || source.origin_type !== 's3') return source;
  return { ...source, config: { ...source.config, s3_access_key_id: SECRET, s3_secret_access_key: SECRET } };
}

export function maskAuth(auth: StoredAuth): StoredAuth {
  return { ...auth, s3_access_key_id: SECRET, s3_secret_access_key: SECRET };
}

/** The port of a host origin, if it has one. */
export function portOf(source: StoredSource): number | null {
  if (!('source' in source)) return null;
  const parsed = parseSource(source.source);
  return 'problem' in parsed ? null : parsed.port;
}
