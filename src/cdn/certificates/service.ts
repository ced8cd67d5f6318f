// SSL certificates of CDN resources: uploaded ones, really parsed and checked (PEM, key pair, expiry,
// optionally a trusted root), and Let's Encrypt ones, issued on the server clock once attached to a
// resource (lets-encrypt.ts). Names unique in the account, a quota, no deletion while a resource uses one.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { bodyField, type FieldError, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { limitReached, refused, stateRefusal } from '../errors.js';
import { type ListRequest, pageOf } from '../http.js';
import { QUOTAS } from '../limits.js';
import { isUniqueViolation } from '../unique.js';
import { cancelRunning, isRunning, ISSUER, issued, issuingStatus, parseAttempts, startAttempt } from './lets-encrypt.js';
import { chainIsOrdered, chainsToTrustedRoot, factsOf, keyMatches, parseChain, parseKey } from './pem.js';
import type { CertificateFilters, SslAnswer, SslCreateInput, SslReplaceInput } from './schemas.js';
import type { SslFields, SslRow, SslStore } from './store.js';

/** What the certificate rules need to know of the CDN resources. */
export interface CertificateUsage {
  /** Resources using the certificate for delivery (sslData) or toward the origin (proxy_ssl_data). */
  resourcesWithCertificate(clientId: number, certificateId: number): Promise<{ id: number; cname: string; status: string }[]>;
  /** Certificate ids in use by any resource of the client. */
  certificatesInUse(clientId: number): Promise<Set<number>>;
  /** Certificate ids one resource uses. */
  certificatesOfResource(clientId: number, resourceId: number): Promise<Set<number>>;
  /** A resource to issue a Let's Encrypt certificate for. */
  issuingTarget(clientId: number, resourceId: number): Promise<{ id: number; hostnames: string[]; active: boolean } | undefined>;
}

const iso = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString());

/** The checked facts of an uploaded certificate and key, or every problem with them. */
export function checkUpload(
  certificate: string | undefined,
  privateKey: string | undefined,
  validateRootCa: boolean,
  now: number,
): { fields?: Pick<SslFields, 'cert_issuer' | 'cert_subject_cn' | 'cert_subject_alt' | 'validity_not_before' | 'validity_not_after'>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (certificate === undefined) errors.push(bodyField(['sslCertificate'], 'Field required', 'missing'));
  if (privateKey === undefined) errors.push(bodyField(['sslPrivateKey'], 'Field required', 'missing'));
  if (certificate === undefined || privateKey === undefined) return { errors };
  const chain = parseChain(certificate);
  const key = parseKey(privateKey);
  if ('problem' in chain) errors.push(bodyField(['sslCertificate'], chain.problem));
  if ('problem' in key) errors.push(bodyField(['sslPrivateKey'], key.problem));
  if ('problem' in chain || 'problem' in key) return { errors };
  const leaf = chain.value[0];
  const facts = factsOf(leaf);
  if (!keyMatches(leaf, key.value)) errors.push(bodyField(['sslPrivateKey'], 'The private key does not belong to the certificate', 'conflict'));
  if (facts.notAfter <= now) errors.push(bodyField(['sslCertificate'], `The certificate expired on ${new Date(facts.notAfter).toISOString()}`));
  if (!chainIsOrdered(chain.value))
    errors.push(bodyField(['sslCertificate'], "Each certificate of the chain must be followed by the one that signed it, the domain's certificate first"));
  else if (validateRootCa && !chainsToTrustedRoot(chain.value))
    errors.push(bodyField(['sslCertificate'], 'The chain does not lead to a trusted certificate authority (validate_root_ca is true)'));
  if (errors.length > 0) return { errors };
  return {
    fields: {
      cert_issuer: facts.issuer,
      cert_subject_cn: facts.subjectCn,
      cert_subject_alt: facts.subjectAlt,
      validity_not_before: facts.notBefore,
      validity_not_after: facts.notAfter,
    },
    errors,
  };
}

export class SslService {
  constructor(
    private readonly store: SslStore,
    private readonly usage: CertificateUsage,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, filters: CertificateFilters, list: ListRequest): Promise<Page<SslAnswer>> {
    const clientId = principal.clientId;
    const [rows, used] = await Promise.all([this.store.all(clientId), this.usage.certificatesInUse(clientId)]);
    const ofResource = filters.resource_id === undefined ? undefined : await this.usage.certificatesOfResource(clientId, filters.resource_id);
    const lte = filters.validity_not_after_lte === undefined ? undefined : Date.parse(filters.validity_not_after_lte);
    const answers = rows.map((row) => this.present(row, used.has(row.id)));
    const wanted = answers.filter((c) => {
      if (filters.automated !== undefined && c.automated !== filters.automated) return false;
      if (ofResource && !ofResource.has(c.id)) return false;
      if (lte !== undefined && (c.validity_not_after === '' || Date.parse(c.validity_not_after) > lte)) return false;
      return true;
    });
    return pageOf(wanted, list);
  }

  async get(principal: Principal, id: number): Promise<SslAnswer> {
    const row = await this.owned(principal.clientId, id);
    return this.present(row, (await this.usage.resourcesWithCertificate(principal.clientId, id)).length > 0);
  }

  async create(principal: Principal, input: SslCreateInput): Promise<SslAnswer> {
    const clientId = principal.clientId;
    let fields: SslFields;
    if (input.automated === true) {
      fields = {
        name: input.name,
        automated: 1,
        certificate: null,
        private_key: null,
        cert_issuer: '',
        cert_subject_cn: '',
        cert_subject_alt: '',
        validity_not_before: null,
        validity_not_after: null,
        le_resource_id: null,
        le_attempts: '[]',
      };
    } else {
      const upload = checkUpload(input.sslCertificate, input.sslPrivateKey, input.validate_root_ca === true, this.clock.now());
      if (!upload.fields) throw refused(upload.errors);
      fields = {
        name: input.name,
        automated: 0,
        certificate: input.sslCertificate!,
        private_key: input.sslPrivateKey!,
        ...upload.fields,
        le_resource_id: null,
        le_attempts: '[]',
      };
    }
    await this.checkName(clientId, input.name);
    if ((await this.store.count(clientId)) >= QUOTAS.sslCertificates) {
      throw limitReached('bad_request', `The account already has ${QUOTAS.sslCertificates} SSL certificates, its limit: delete one to add another`);
    }
    const id = await this.write(() => this.store.insert(clientId, fields, this.clock.now()));
    return this.get(principal, id);
  }

  /** PUT: a new certificate and key (and name) for an uploaded certificate. */
  async replace(principal: Principal, id: number, input: SslReplaceInput): Promise<SslAnswer> {
    const row = await this.owned(principal.clientId, id);
    if (row.automated === 1)
      throw refused([bodyField(['sslCertificate'], "A Let's Encrypt certificate is issued by the CDN and cannot be replaced by an upload")]);
    const upload = checkUpload(input.sslCertificate, input.sslPrivateKey, input.validate_root_ca === true, this.clock.now());
    if (!upload.fields) throw refused(upload.errors);
    await this.checkName(principal.clientId, input.name, id);
    await this.write(() =>
      this.store.update(
        principal.clientId,
        id,
        { name: input.name, certificate: input.sslCertificate, private_key: input.sslPrivateKey, ...upload.fields },
        this.clock.now(),
      ),
    );
    return this.get(principal, id);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    await this.owned(principal.clientId, id);
    const users = await this.usage.resourcesWithCertificate(principal.clientId, id);
    if (users.length > 0) throw stateRefusal(`The certificate is used by CDN resource ${users.map((r) => r.id).join(', ')}: detach it before deleting it`);
    await this.store.delete(principal.clientId, id);
  }

  async usageOf(principal: Principal, id: number): Promise<{ resources: { id: number; cname: string; status: string }[] }> {
    await this.owned(principal.clientId, id);
    return { resources: await this.usage.resourcesWithCertificate(principal.clientId, id) };
  }

  /** A certificate of the client a resource may use, or undefined. */
  async find(clientId: number, id: number): Promise<SslRow | undefined> {
    return this.store.find(clientId, id);
  }

  /** A Let's Encrypt certificate was attached to a resource: issuing starts. */
  async attached(clientId: number, id: number, resource: { id: number; hostnames: string[]; active: boolean }): Promise<void> {
    const row = await this.store.find(clientId, id);
    if (!row || row.automated !== 1) return;
    const now = this.clock.now();
    const attempts = startAttempt(cancelRunning(parseAttempts(row.le_attempts), now), resource, now);
    await this.store.update(clientId, id, { le_resource_id: resource.id, le_attempts: JSON.stringify(attempts) }, now);
  }

  /** A Let's Encrypt certificate was detached: a running attempt is cancelled. */
  async detached(clientId: number, id: number): Promise<void> {
    const row = await this.store.find(clientId, id);
    if (!row || row.automated !== 1) return;
    const now = this.clock.now();
    await this.store.update(clientId, id, { le_resource_id: null, le_attempts: JSON.stringify(cancelRunning(parseAttempts(row.le_attempts), now)) }, now);
  }

  async renew(principal: Principal, id: number): Promise<void> {
    const { row, resource } = await this.issuing(principal, id);
    const attempts = parseAttempts(row.le_attempts);
    if (isRunning(attempts.at(-1), this.clock.now()))
      throw refused([bodyField(['resource'], "A Let's Encrypt certificate is being issued for the resource: wait until it finishes")]);
    await this.store.update(principal.clientId, id, { le_attempts: JSON.stringify(startAttempt(attempts, resource, this.clock.now())) }, this.clock.now());
  }

  async forceRetry(principal: Principal, id: number): Promise<void> {
    const { row, resource } = await this.issuing(principal, id);
    const attempts = parseAttempts(row.le_attempts);
    const latest = attempts.at(-1);
    if (isRunning(latest, this.clock.now())) throw refused([bodyField(['certificate'], 'An issuing attempt is running: wait until it finishes')]);
    if (latest?.outcome === 'done' && latest.cancelled_at === undefined)
      throw refused([bodyField(['certificate'], 'The certificate was issued: there is nothing to retry')]);
    await this.store.update(principal.clientId, id, { le_attempts: JSON.stringify(startAttempt(attempts, resource, this.clock.now())) }, this.clock.now());
  }

  async status(principal: Principal, id: number, exclude: string[]): Promise<Record<string, unknown>> {
    const { row } = await this.issuing(principal, id);
    const attempts = parseAttempts(row.le_attempts);
    if (attempts.length === 0) throw refused([bodyField(['certificate'], 'Issuing has not started: attach the certificate to a CDN resource with sslEnabled')]);
    const answer: Record<string, unknown> = issuingStatus(attempts, this.clock.now());
    for (const field of exclude) delete answer[field];
    return answer;
  }

  /** A Let's Encrypt certificate attached to a resource, for renew, retry and status. */
  private async issuing(principal: Principal, id: number) {
    const row = await this.owned(principal.clientId, id);
    if (row.automated !== 1) throw refused([bodyField(['certificate'], "Not a Let's Encrypt certificate")]);
    const resource = row.le_resource_id === null ? undefined : await this.usage.issuingTarget(principal.clientId, row.le_resource_id);
    if (!resource) throw refused([bodyField(['certificate'], 'The certificate is not attached to a CDN resource')]);
    return { row, resource };
  }

  private present(row: SslRow, used: boolean): SslAnswer {
    const base = { id: row.id, name: row.name, deleted: false, hasRelatedResources: used, automated: row.automated === 1 };
    if (row.automated !== 1) {
      return {
        ...base,
        cert_issuer: row.cert_issuer,
        cert_subject_cn: row.cert_subject_cn,
        cert_subject_alt: row.cert_subject_alt,
        validity_not_before: iso(row.validity_not_before),
        validity_not_after: iso(row.validity_not_after),
        sslCertificateChain: row.certificate ?? '',
      };
    }
    const now = issued(parseAttempts(row.le_attempts), this.clock.now());
    return {
      ...base,
      cert_issuer: now ? ISSUER : '',
      cert_subject_cn: now?.hostnames[0] ?? '',
      cert_subject_alt: now?.hostnames.join(',') ?? '',
      validity_not_before: now ? iso(now.notBefore) : '',
      validity_not_after: now ? iso(now.notAfter) : '',
      sslCertificateChain: '',
    };
  }

  private async owned(clientId: number, id: number): Promise<SslRow> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('SSL certificate');
    return row;
  }

  private async checkName(clientId: number, name: string, exceptId?: number): Promise<void> {
    if (await this.store.nameTaken(clientId, name, exceptId))
      throw refused([bodyField(['name'], 'Another SSL certificate of the account has this name', 'conflict')]);
  }

  private async write<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isUniqueViolation(error)) throw refused([bodyField(['name'], 'Another SSL certificate of the account has this name', 'conflict')]);
      throw error;
    }
  }
}
