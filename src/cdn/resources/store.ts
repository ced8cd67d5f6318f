// SQL for CDN resources and the host names they answer for. A resource and its host names are written
// together in one transaction; the unique index on cdn_hostnames.hostname makes a host name belong to
// one resource across all clients. No rules here.
import type { Generated, Kysely, Transaction } from 'kysely';
import { countRows, selectRows } from '../../platform/db/templates.js';
import type { AsClient } from '../../platform/db/client-shares.js';

export interface ResourceRow {
  id: number;
  client_id: number;
  cname: string;
  name: string | null;
  description: string;
  origin_group_id: number;
  origin_protocol: string;
  active: number;
  /** JSON array of strings. */
  secondary_hostnames: string;
  ssl_enabled: number;
  ssl_data: number | null;
  proxy_ssl_enabled: number;
  proxy_ssl_ca: number | null;
  proxy_ssl_data: number | null;
  primary_resource: number | null;
  waap_api_domain_enabled: number;
  /** JSON object of the options that are set. */
  options: string;
  shielding_pop: number | null;
  created_at: number;
  updated_at: number;
}

export type ResourceFields = Omit<ResourceRow, 'id' | 'client_id' | 'created_at' | 'updated_at'>;

interface HostnameRow {
  id: number;
  client_id: number;
  resource_id: number;
  hostname: string;
  kind: 'cname' | 'secondary';
}

interface Tables {
  cdn_resources: Omit<ResourceRow, 'id'> & { id: Generated<number> };
  cdn_hostnames: Omit<HostnameRow, 'id'> & { id: Generated<number> };
  cdn_resource_rules: { id: Generated<number>; client_id: number; resource_id: number };
}

const num = (v: number | null) => (v === null ? null : Number(v));
const normalise = (r: ResourceRow): ResourceRow => ({
  ...r,
  id: Number(r.id),
  client_id: Number(r.client_id),
  origin_group_id: Number(r.origin_group_id),
  active: Number(r.active),
  ssl_enabled: Number(r.ssl_enabled),
  ssl_data: num(r.ssl_data),
  proxy_ssl_enabled: Number(r.proxy_ssl_enabled),
  proxy_ssl_ca: num(r.proxy_ssl_ca),
  proxy_ssl_data: num(r.proxy_ssl_data),
  primary_resource: num(r.primary_resource),
  waap_api_domain_enabled: Number(r.waap_api_domain_enabled),
  shielding_pop: num(r.shielding_pop),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/** Every host name of a resource: its cname first, then its secondary host names. */
export function hostnamesOf(row: Pick<ResourceRow, 'cname' | 'secondary_hostnames'>): string[] {
  return [row.cname, ...(JSON.parse(row.secondary_hostnames) as string[])];
}

export class ResourceStore {
  private readonly db: Kysely<Tables>;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as Kysely<Tables>;
  }

  /** Every resource of the client, oldest first (a client has at most its quota of them). */
  async all(clientId: number): Promise<ResourceRow[]> {
    const rows = await selectRows<ResourceRow>(this.db, 'cdn_resources', { client_id: clientId }, 'id');
    return rows.map(normalise);
  }

  async count(clientId: number): Promise<number> {
    return countRows(this.db, 'cdn_resources', { client_id: clientId });
  }

  async find(clientId: number, id: number): Promise<ResourceRow | undefined> {
    const [row] = await selectRows<ResourceRow>(this.db, 'cdn_resources', { client_id: clientId, id });
    return row && normalise(row);
  }

  /** Resources of the client whose column equals the value (links to groups, certificates, a primary). */
  async where(
    clientId: number,
    column: 'origin_group_id' | 'ssl_data' | 'proxy_ssl_data' | 'proxy_ssl_ca' | 'primary_resource',
    value: number,
  ): Promise<ResourceRow[]> {
    const rows = await this.db.selectFrom('cdn_resources').selectAll().where('client_id', '=', clientId).where(column, '=', value).orderBy('id').execute();
    return rows.map(normalise);
  }

  /** Resources (of any client) holding one of these host names, with the name each holds. */
  async hostnameOwners(hostnames: string[]): Promise<{ hostname: string; resource_id: number }[]> {
    if (hostnames.length === 0) return [];
    const rows = await this.db.selectFrom('cdn_hostnames').select(['hostname', 'resource_id']).where('hostname', 'in', hostnames).execute();
    return rows.map((r) => ({ hostname: r.hostname, resource_id: Number(r.resource_id) }));
  }

  async insert(clientId: number, fields: ResourceFields, now: number): Promise<number> {
    return this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('cdn_resources')
          .values({ ...fields, client_id: clientId, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const id = Number(row.id);
        await this.writeHostnames(trx, clientId, id, fields);
        return id;
      }),
    );
  }

  async update(clientId: number, id: number, fields: ResourceFields, now: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('cdn_resources')
          .set({ ...fields, updated_at: now })
          .where('client_id', '=', clientId)
          .where('id', '=', id)
          .execute();
        await trx.deleteFrom('cdn_hostnames').where('resource_id', '=', id).execute();
        await this.writeHostnames(trx, clientId, id, fields);
      }),
    );
  }

  async setShielding(clientId: number, id: number, pop: number | null, now: number): Promise<void> {
    await this.db.updateTable('cdn_resources').set({ shielding_pop: pop, updated_at: now }).where('client_id', '=', clientId).where('id', '=', id).execute();
  }

  /** Deletes the resource with its host names and rules. */
  async delete(clientId: number, id: number): Promise<void> {
    await this.asClient(clientId, () =>
      this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('cdn_resource_rules').where('client_id', '=', clientId).where('resource_id', '=', id).execute();
        await trx.deleteFrom('cdn_hostnames').where('client_id', '=', clientId).where('resource_id', '=', id).execute();
        await trx.deleteFrom('cdn_resources').where('client_id', '=', clientId).where('id', '=', id).execute();
      }),
    );
  }

  private async writeHostnames(
    trx: Transaction<Tables>,
    clientId: number,
    resourceId: number,
    fields: Pick<ResourceFields, 'cname' | 'secondary_hostnames'>,
  ): Promise<void> {
    const [cname, ...secondary] = hostnamesOf(fields);
    await trx
      .insertInto('cdn_hostnames')
      .values([
        { client_id: clientId, resource_id: resourceId, hostname: cname, kind: 'cname' as const },
        ...secondary.map((hostname) => ({ client_id: clientId, resource_id: resourceId, hostname, kind: 'secondary' as const })),
      ])
      .execute();
  }
}
