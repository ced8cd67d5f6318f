// Schemas shared by every cloud resource, and the limits the reference does not state (docs/cloud.md,
// "Limits"): every string a client sends has a maximum length, every collection a maximum size.
import { Type, type TSchema, type TSchemaOptions } from 'typebox';
import { Nullable } from '../../platform/schema.js';

/** Bounds of our own where the reference declares none. */
export const LIMITS = {
  /** Free text: descriptions, usernames, passwords, flavor and version names. */
  text: 255,
  /** Cloud-init user data (base64), as the compute service bounds it. */
  userData: 65_536,
  /** Tags on one resource. */
  tags: 100,
  /** Items of a list in a body (volumes of an instance, rules of a group...) unless the reference bounds it. */
  items: 100,
  /** Comma-separated ID lists in query strings (`volumes=`, `snapshots=`). */
  idList: 3_700,
  /** An OpenSSH public key (an RSA key of 16384 bits fits). */
  publicKey: 16_384,
  /** A download URL. */
  url: 2_048,
} as const;

/** How the reference names cloud resources: 3 to 63 characters, letters, digits, space . _ - */
export const NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z 0-9._\\-]{1,61}[a-zA-Z0-9._]$';
export const ResourceName = (options: TSchemaOptions = {}) => Type.String({ pattern: NAME_PATTERN, maxLength: 63, ...options });

/** A string bounded by `maxLength` (default: LIMITS.text). */
export const Text = (maxLength: number = LIMITS.text, options: TSchemaOptions = {}) => Type.String({ maxLength, ...options });

/** A UUID (the reference's `uuid4`). */
export const Uuid = (options: TSchemaOptions = {}) => Type.String({ format: 'uuid', maxLength: 36, ...options });

/** IPv4 or IPv6 address / network in text (what the reference calls ipvanyaddress / ipvanynetwork). */
export const IpAddress = (options: TSchemaOptions = {}) => Type.String({ maxLength: 45, ...options });
export const IpNetwork = (options: TSchemaOptions = {}) => Type.String({ maxLength: 49, ...options });

export const ProjectRegionParams = Type.Object({
  project_id: Type.Integer({ minimum: 1, description: 'Project ID' }),
  region_id: Type.Integer({ minimum: 1, description: 'Region ID' }),
});

export const UuidParam = <Name extends string>(name: Name, description: string) =>
  Type.Object({
    project_id: Type.Integer({ minimum: 1, description: 'Project ID' }),
    region_id: Type.Integer({ minimum: 1, description: 'Region ID' }),
    ...keyed(name, Uuid({ description })),
  });

/**
 * `{ [name]: schema }`, typed with its key so that routes see `request.params[name]`: TypeScript types
 * an object with a computed key as having every string key.
 */
function keyed<Name extends string, S extends TSchema>(name: Name, schema: S): Record<Name, S> {
  return { [name]: schema } as Record<Name, S>;
}

/** What every asynchronous call answers: the task to poll, and the ID of the resource it is about. */
export const TaskIdList = Type.Object(
  {
    tasks: Type.Array(Type.String(), { description: 'Tasks to poll at GET /cloud/v1/tasks/{task_id} until FINISHED or ERROR' }),
    id: Type.String({ description: 'ID of the resource the task is about' }),
  },
  { description: 'Task IDs of an asynchronous operation' },
);

/**
 * The response of a call that answers no body: `{"type": "null"}` in the document, as `Type.Null()`
 * has it, but typed `undefined` so that the typed reply is sent empty (`reply.send()`), not `null`.
 */
export const NoBody = () => Type.Unsafe<undefined>({ type: 'null' });

export const TagSchema = Type.Object({ key: Type.String(), value: Type.String(), read_only: Type.Boolean() });

/** Fields every regional cloud record carries: where it lives and which tasks made and last changed it. */
export const regionalRecordFields = {
  tags: Type.Array(TagSchema),
  project_id: Type.Integer(),
  region_id: Type.Integer(),
  region: Type.String(),
  creator_task_id: Nullable(Type.String()),
  task_id: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
};

/** The same, but tags, for the records that show tags another way (`tags_v2`, plain strings) or none. */
const { tags: _tags, ...placedRecord } = regionalRecordFields;
export const placedRecordFields = { ...placedRecord, updated_at: Type.String({ format: 'date-time' }) };

const TAG_KEY = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s=]+$' };
const TAG_VALUE = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^ \\t\\n\\r\\f\\v]([^\\t\\n\\r\\f\\v]*[^ \\t\\n\\r\\f\\v])?$' };

/** Tags of a create request: `{key: value}`, keys without spaces or `=`. */
export const TagsInput = Type.Unsafe<Record<string, string>>({
  type: 'object',
  propertyNames: TAG_KEY,
  additionalProperties: TAG_VALUE,
  maxProperties: LIMITS.tags,
  description: `Key-value tags (at most ${LIMITS.tags})`,
});

/**
 * Tags of an update, a JSON merge patch: a key with a value sets it, a key with null removes it, and
 * `tags: null` removes every tag.
 */
export const TagsPatch = Nullable(
  Type.Unsafe<Record<string, string | null>>({
    type: 'object',
    propertyNames: TAG_KEY,
    additionalProperties: { anyOf: [TAG_VALUE, { type: 'null' }] },
    maxProperties: LIMITS.tags,
    description: 'Tags to set (a value) or remove (null)',
  }),
);

/** Pages of the cloud lists: `limit` up to 1000 (the reference's default unless given), `offset`. */
export const pageQuery = (defaultLimit = 1000) => ({
  limit: Type.Integer({ minimum: 0, maximum: 1000, default: defaultLimit }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
});

export const CLOUD_TAG = 'Cloud';
