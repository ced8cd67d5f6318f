// HTTP surface of DNSSEC: turn it on or off, read the DS record, read the parent-DS scan.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../platform/auth/plugin.js';
import { ERRORS, VALIDATED } from '../common/http.js';
import { ZoneParams } from '../zones/schemas.js';
import type { DnssecService } from './service.js';
import { typed } from '../../platform/typed.js';

const TAGS = ['DNS zones'];
const PATH = '/dns/v2/zones/:name/dnssec';

const dsFields = {
  uuid: Type.String(),
  algorithm: Type.String({ description: 'DNSSEC algorithm number (13: ECDSA P-256 with SHA-256)' }),
  key_type: Type.String(),
  flags: Type.Integer({ description: '257: a key-signing key' }),
  key_tag: Type.Integer(),
  public_key: Type.String({ description: 'The DNSKEY public key, base64' }),
  digest: Type.String({ description: 'The DS digest, hexadecimal' }),
  digest_type: Type.String({ description: 'DS digest type (2: SHA-256)' }),
  digest_algorithm: Type.String(),
  ds: Type.String({ description: 'The whole DS record, as a zone file writes it' }),
};

const DsSchema = Type.Object(dsFields);
const ToggleResult = Type.Object({ ...Object.fromEntries(Object.entries(dsFields).map(([k, v]) => [k, Type.Optional(v)])), message: Type.String() });
const ToggleBody = Type.Object({
  enabled: Type.Optional(Type.Boolean({ description: 'true turns DNSSEC on, false off (required)' })),
  force_disable: Type.Optional(Type.Boolean({ description: 'Withdraw the key at once even while the parent zone still holds its DS record' })),
});
const ParentDs = Type.Object({
  has_valid_parent_ds: Type.Boolean(),
  parent_zone: Type.String(),
  scanned_at: Type.String({ format: 'date-time' }),
});

export function dnssecRoutes(fastify: FastifyInstance, dnssec: DnssecService): void {
  const app = typed(fastify);
  app.get(
    PATH,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.dnssec.get',
        tags: TAGS,
        summary: "The zone's DS record (DNSSEC must be on)",
        params: ZoneParams,
        response: { 200: DsSchema, ...ERRORS },
      },
    },
    async (request) => dnssec.ds(principalOf(request), request.params.name),
  );

  app.patch(
    PATH,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.dnssec.toggle',
        tags: TAGS,
        summary: 'Turn DNSSEC on or off',
        params: ZoneParams,
        body: ToggleBody,
        response: { 200: ToggleResult, ...ERRORS },
      },
    },
    async (request) => dnssec.toggle(principalOf(request), request.params.name, request.body),
  );

  app.get(
    `${PATH}/parent-ds`,
    {
      ...VALIDATED,
      schema: {
        operationId: 'dns.dnssec.parentDs',
        tags: TAGS,
        summary: 'Whether the parent zone holds the DS record',
        params: ZoneParams,
        response: { 200: ParentDs, ...ERRORS },
      },
    },
    async (request) => dnssec.parentDs(principalOf(request), request.params.name),
  );
}
