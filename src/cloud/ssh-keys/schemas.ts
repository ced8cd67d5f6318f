import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../platform/schema.js';
import { LIMITS, NAME_PATTERN, Text } from '../common/schemas.js';

const KeyName = Type.String({ minLength: 1, maxLength: 255, pattern: NAME_PATTERN });

const keyFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  public_key: Type.String(),
  fingerprint: Type.String({ description: 'MD5 of the key, colon-separated hex' }),
  shared_in_project: Type.Boolean({ description: 'Visible to every user of the project (else to its creator only)' }),
  state: StringEnum(['ACTIVE', 'DELETING']),
};

// The reference declares both records closed (no other fields).
export const SshKeySchema = Type.Object(
  { ...keyFields, project_id: Nullable(Type.Integer()), created_at: Nullable(Type.String({ format: 'date-time' })) },
  { additionalProperties: false, description: 'An SSH key of a project' },
);

export const CreatedSshKeySchema = Type.Object(
  {
    ...keyFields,
    project_id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    private_key: Nullable(Type.String({ description: 'Only when the key pair was generated: shown this once' })),
  },
  { additionalProperties: false, description: 'A new SSH key' },
);

export const SshKeyCreateBody = Type.Object({
  name: KeyName,
  public_key: Type.Optional(
    Text(LIMITS.publicKey, { description: 'OpenSSH public key (ed25519, ecdsa, rsa of at least 2048 bits); omit to have a key pair generated' }),
  ),
  shared_in_project: Type.Optional(Type.Boolean({ default: true })),
});

export const SshKeyUpdateBody = Type.Object({ shared_in_project: Type.Boolean() });

export const SshKeyListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  name: Type.Optional(Text()),
  order_by: Type.Optional(StringEnum(['created_at.asc', 'created_at.desc', 'name.asc', 'name.desc'])),
});

export const ProjectParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }) });
export const SshKeyParams = Type.Object({ project_id: Type.Integer({ minimum: 1 }), ssh_key_id: Type.String({ format: 'uuid', maxLength: 36 }) });
