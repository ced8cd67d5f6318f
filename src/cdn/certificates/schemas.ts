// Request and response schemas of SSL certificates (/cdn/sslData: uploaded, or issued by Let's Encrypt)
// and trusted CA certificates (/cdn/sslCertificates: used to verify origins). Bodies are open objects.
import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/schema.js';
import { ListOf, PageQuery } from '../http.js';
import { MAX_LENGTH } from '../limits.js';

const Name = Type.String({ maxLength: MAX_LENGTH.name, description: 'Certificate name, unique in the account' });
const Pem = (description: string) => Type.String({ maxLength: MAX_LENGTH.pem, description });

export const SslCreate = Type.Object({
  name: Name,
  sslCertificate: Type.Optional(Pem("The certificate chain in PEM, the domain's certificate first")),
  sslPrivateKey: Type.Optional(Pem("The certificate's private key in PEM (not encrypted)")),
  validate_root_ca: Type.Optional(Type.Boolean({ description: 'true: the chain must lead to a trusted certificate authority' })),
  automated: Type.Optional(Type.Boolean({ description: "true: a Let's Encrypt certificate, issued once attached to a CDN resource" })),
});
export type SslCreateInput = Static<typeof SslCreate>;

export const SslReplace = Type.Object({
  name: Name,
  sslCertificate: Pem("The certificate chain in PEM, the domain's certificate first"),
  sslPrivateKey: Pem("The certificate's private key in PEM (not encrypted)"),
  validate_root_ca: Type.Optional(Type.Boolean({ description: 'true: the chain must lead to a trusted certificate authority' })),
});
export type SslReplaceInput = Static<typeof SslReplace>;

const facts = {
  id: Type.Integer(),
  name: Type.String(),
  deleted: Type.Boolean({ description: 'Always false (deprecated)' }),
  cert_issuer: Type.String({ description: 'Issuer common name ("" until a Let\'s Encrypt certificate is issued)' }),
  cert_subject_cn: Type.String({ description: 'Subject common name' }),
  cert_subject_alt: Type.String({ description: 'Subject alternative names, comma-separated' }),
  validity_not_before: Type.String({ description: 'Start of validity, ISO 8601 ("" until issued)' }),
  validity_not_after: Type.String({ description: 'End of validity, ISO 8601 ("" until issued)' }),
  sslCertificateChain: Type.String({ description: 'Deprecated: the certificate chain in PEM' }),
  hasRelatedResources: Type.Boolean({ description: 'Whether a CDN resource uses the certificate' }),
};

export const SslSchema = Type.Object(
  { ...facts, automated: Type.Boolean({ description: "true: issued by Let's Encrypt" }) },
  { description: 'SSL certificate' },
);
export type SslAnswer = Static<typeof SslSchema>;

export const SslParams = Type.Object({ ssl_id: Type.Integer({ description: 'SSL certificate ID' }) });
export const CertParams = Type.Object({ cert_id: Type.Integer({ description: 'SSL certificate ID' }) });

export const CertificateListQuery = Type.Object({
  automated: Type.Optional(Type.Boolean({ description: "Let's Encrypt certificates (true) or uploaded ones (false)" })),
  validity_not_after_lte: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: 'Certificates valid until at most this time' })),
  resource_id: Type.Optional(Type.Integer({ description: 'Certificates used by this CDN resource' })),
  ...PageQuery,
});
export type CertificateFilters = { automated?: boolean; validity_not_after_lte?: string; resource_id?: number };

export const SslList = ListOf(SslSchema, 'SSL certificates: an array, or a page when limit is given');

export const UsageSchema = Type.Object({
  resources: Type.Array(Type.Object({ id: Type.Integer(), cname: Type.String(), status: Type.String() }), {
    description: 'CDN resources using the certificate',
  }),
});

const Attempt = Type.Object({
  id: Type.Integer(),
  status: Type.String({ description: 'Done, Failed or Cancelled' }),
  error: Type.String(),
  details: Type.String(),
  created: Type.String(),
  retry_after: Type.String(),
});

export const IssuingStatusSchema = Type.Object({
  id: Type.Optional(Type.Integer({ description: 'The latest attempt' })),
  statuses: Type.Optional(Type.Array(Attempt, { description: 'Finished attempts, oldest first' })),
  latest_status: Type.Optional(Attempt),
  started: Type.Optional(Type.String()),
  finished: Type.Optional(Type.String({ description: 'Absent while an attempt runs' })),
  active: Type.Optional(Type.Boolean({ description: 'Whether an attempt is running' })),
  attempts_count: Type.Optional(Type.Integer()),
  next_attempt_time: Type.Optional(Nullable(Type.String())),
  resource: Type.Optional(Type.Integer({ description: 'The CDN resource the certificate is issued for' })),
});

export const IssuingStatusQuery = Type.Object({
  exclude: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20, description: 'Fields left out of the answer' })),
});

export const CaCreate = Type.Object({ name: Name, sslCertificate: Pem('The CA certificate in PEM') });
export const CaReplace = Type.Object({ name: Name });
export const CaSchema = Type.Object(facts, { description: 'Trusted CA certificate' });
export type CaAnswer = Static<typeof CaSchema>;
export const CaParams = Type.Object({ id: Type.Integer({ description: 'CA certificate ID' }) });
export const CaList = ListOf(CaSchema, 'Trusted CA certificates: an array, or a page when limit is given');
