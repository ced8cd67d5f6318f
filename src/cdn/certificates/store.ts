// SQL for SSL certificates and trusted CA certificates, always by client. No rules here.
import type { Generated, Kysely } from 'kysely';

export interface SslRow {
  id: number;
  client_id: number;
  name: string;
  automated: number;
  certificate: string | null;
  private_key: string | null;
  cert_issuer: string;
  cert_subject_cn: string;
  cert_subject_alt: string;
  validity_not_before: number | null;
  validity_not_after: number | null;
  le_resource_id: number | null;
  /** JSON array of Let's Encrypt issuing attempts. */
  le_attempts: string;
  created_at: number;
  updated_at: number;
}

export interface CaRow {
  id: number;
  client_id: number;
  name: string;
  certificate: string;
  cert_issuer: string;
  cert_subject_cn: string;
  cert_subject_alt: string;
  validity_not_before: number;
  validity_not_after: number;
  created_at: number;
  updated_at: number;
}

export type SslFields = Omit<SslRow, 'id' | 'client_id' | 'created_at' | 'updated_at'>;
export type CaFields = Omit<CaRow, 'id' | 'client_id' | 'created_at' | 'updated_at'>;

interface Tables {
  cdn_ssl_certificates: Omit<SslRow, 'id'> & { id: Generated<number> };
  cdn_ca_certificates: Omit<CaRow, 'id'> & { id: Generated<number> };
}

const num = (v: number | null) => (v === null ? null : Number(v));
const sslRow = (r: SslRow): SslRow => ({
  ...r,
  id: Number(r.id),
  client_id: Number(r.client_id),
  automated: Number(r.automated),
  validity_not_before: num(r.validity_not_before),
  validity_not_after: num(r.validity_not_after),
  le_resource_id: num(r.le_resource_id),
});
const caRow = (r: CaRow): CaRow => ({
  ...r,
  id: Number(r.id),
  client_id: Number(r.client_id),
  validity_not_before: Number(r.validity_not_before),
  validity_not_after: Number(r.validity_not_after),
});

type Table = 'cdn_ssl_certificates' | 'cdn_ca_certificates';

/** The statements both certificate tables share. */
class CertificateTable<Row, Fields> {
  constructor(
    protected readonly db: Kysely<Tables>,
    private readonly table: Table,
    private readonly normalise: (row: any) => Row,
  ) {}

  async all(clientId: number): Promise<Row[]> {
    const rows = await this.db.selectFrom(this.table).selectAll().where('client_id', '=', clientId).orderBy('id').execute();
    return rows.map(this.normalise);
  }

  async count(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom(this.table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async find(clientId: number, id: number): Promise<Row | undefined> {
    const row = await this.db.selectFrom(this.table).selectAll().where('client_id', '=', clientId).where('id', '=', id).executeTakeFirst();
    return row && this.normalise(row);
  }

  async nameTaken(clientId: number, name: string, exceptId?: number): Promise<boolean> {
    let query = this.db.selectFrom(this.table).select('id').where('client_id', '=', clientId).where('name', '=', name);
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  async insert(clientId: number, fields: Fields, now: number): Promise<number> {
    const row = await this.db
      .insertInto(this.table)
      .values({ ...(fields as object), client_id: clientId, created_at: now, updated_at: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async update(clientId: number, id: number, fields: Partial<Fields>, now: number): Promise<void> {
    await this.db
      .updateTable(this.table)
      .set({ ...(fields as object), updated_at: now } as never)
      .where('client_id', '=', clientId)
      .where('id', '=', id)
      .execute();
  }

  async delete(clientId: number, id: number): Promise<void> {
    await this.db.deleteFrom(this.table).where('client_id', '=', clientId).where('id', '=', id).execute();
  }
}

export class SslStore extends CertificateTable<SslRow, SslFields> {
  constructor(db: Kysely<any>) {
    super(db as Kysely<Tables>, 'cdn_ssl_certificates', sslRow);
  }
}

export class CaStore extends CertificateTable<CaRow, CaFields> {
  constructor(db: Kysely<any>) {
    super(db as Kysely<Tables>, 'cdn_ca_certificates', caRow);
  }
}
