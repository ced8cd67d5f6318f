// Trusted CA certificates: certificates a CDN resource uses to verify its origin (proxy_ssl_ca). Parsed
// and checked like uploaded SSL certificates (readable PEM, not expired); only the name changes later.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { bodyField, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { limitReached, refused, stateRefusal } from '../errors.js';
import { type ListRequest, pageOf } from '../http.js';
import { QUOTAS } from '../limits.js';
import { isUniqueViolation } from '../unique.js';
import { factsOf, parseChain } from './pem.js';
import type { CaAnswer, CertificateFilters } from './schemas.js';
import type { CaRow, CaStore } from './store.js';

/** What the CA rules need to know of the CDN resources. */
export interface CaUsage {
  resourcesWithCa(clientId: number, caId: number): Promise<number[]>;
  casInUse(clientId: number): Promise<Set<number>>;
  caOfResource(clientId: number, resourceId: number): Promise<number | null>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class CaService {
  constructor(
    private readonly store: CaStore,
    private readonly usage: CaUsage,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, filters: CertificateFilters, list: ListRequest): Promise<Page<CaAnswer>> {
    const clientId = principal.clientId;
    const [rows, used] = await Promise.all([this.store.all(clientId), this.usage.casInUse(clientId)]);
    const ofResource = filters.resource_id === undefined ? undefined : await this.usage.caOfResource(clientId, filters.resource_id);
    const lte = filters.validity_not_after_lte === undefined ? undefined : Date.parse(filters.validity_not_after_lte);
    const wanted = rows.filter((row) => {
      // Every trusted CA is uploaded: asking for automated ones finds none.
      if (filters.automated === true) return false;
      if (filters.resource_id !== undefined && ofResource !== row.id) return false;
      return lte === undefined || row.validity_not_after <= lte;
    });
    return pageOf(
      wanted.map((row) => this.present(row, used.has(row.id))),
      list,
    );
  }

  async get(principal: Principal, id: number): Promise<CaAnswer> {
    const row = await this.owned(principal.clientId, id);
    return this.present(row, (await this.usage.resourcesWithCa(principal.clientId, id)).length > 0);
  }

  /** A CA certificate of the client a resource may use, or undefined. */
  async find(clientId: number, id: number): Promise<CaRow | undefined> {
    return this.store.find(clientId, id);
  }

  async create(principal: Principal, input: { name: string; sslCertificate: string }): Promise<CaAnswer> {
    const chain = parseChain(input.sslCertificate);
    if ('problem' in chain) throw refused([bodyField(['sslCertificate'], chain.problem)]);
    const facts = factsOf(chain.value[0]);
    if (facts.notAfter <= this.clock.now()) throw refused([bodyField(['sslCertificate'], `The certificate expired on ${iso(facts.notAfter)}`)]);
    await this.checkName(principal.clientId, input.name);
    if ((await this.store.count(principal.clientId)) >= QUOTAS.caCertificates) {
      throw limitReached('bad_request', `The account already has ${QUOTAS.caCertificates} trusted CA certificates, its limit: delete one to add another`);
    }
    const fields = {
      name: input.name,
      certificate: input.sslCertificate,
      cert_issuer: facts.issuer,
      cert_subject_cn: facts.subjectCn,
      cert_subject_alt: facts.subjectAlt,
      validity_not_before: facts.notBefore,
      validity_not_after: facts.notAfter,
    };
    const id = await this.write(() => this.store.insert(principal.clientId, fields, this.clock.now()));
    return this.get(principal, id);
  }

  async rename(principal: Principal, id: number, name: string): Promise<CaAnswer> {
    await this.owned(principal.clientId, id);
    await this.checkName(principal.clientId, name, id);
    await this.write(() => this.store.update(principal.clientId, id, { name }, this.clock.now()));
    return this.get(principal, id);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    await this.owned(principal.clientId, id);
    const users = await this.usage.resourcesWithCa(principal.clientId, id);
    if (users.length > 0)
      throw stateRefusal(`The CA certificate is used by CDN resource ${users.join(', ')} to verify its origin: detach it before deleting it`);
    await this.store.delete(principal.clientId, id);
  }

  private present(row: CaRow, used: boolean): CaAnswer {
    return {
      id: row.id,
      name: row.name,
      deleted: false,
      cert_issuer: row.cert_issuer,
      cert_subject_cn: row.cert_subject_cn,
      cert_subject_alt: row.cert_subject_alt,
      validity_not_before: iso(row.validity_not_before),
      validity_not_after: iso(row.validity_not_after),
      sslCertificateChain: row.certificate,
      hasRelatedResources: used,
    };
  }

  private async owned(clientId: number, id: number): Promise<CaRow> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('CA certificate');
    return row;
  }

  private async checkName(clientId: number, name: string, exceptId?: number): Promise<void> {
    if (await this.store.nameTaken(clientId, name, exceptId))
      throw refused([bodyField(['name'], 'Another CA certificate of the account has this name', 'conflict')]);
  }

  private async write<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isUniqueViolation(error)) throw refused([bodyField(['name'], 'Another CA certificate of the account has this name', 'conflict')]);
      throw error;
    }
  }
}
