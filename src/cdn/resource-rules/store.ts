// SQL for the rules of CDN resources, always by client and resource. No rules (of the business) here.
import type { Generated, Kysely } from 'kysely';
import { countRows, selectRows } from '../../platform/db/templates.js';

export interface RuleRow {
  id: number;
  client_id: number;
  resource_id: number;
  name: string;
  rule: string;
  rule_type: number;
  weight: number;
  active: number;
  override_origin_protocol: string | null;
  origin_group_id: number | null;
  /** JSON object of the options that are set (ON or OFF). */
  options: string;
  created_at: number;
  updated_at: number;
}

export type RuleFields = Omit<RuleRow, 'id' | 'client_id' | 'resource_id' | 'created_at' | 'updated_at'>;

interface Tables {
  cdn_resource_rules: Omit<RuleRow, 'id'> & { id: Generated<number> };
}

const normalise = (r: RuleRow): RuleRow => ({
  ...r,
  id: Number(r.id),
  client_id: Number(r.client_id),
  resource_id: Number(r.resource_id),
  rule_type: Number(r.rule_type),
  weight: Number(r.weight),
  active: Number(r.active),
  origin_group_id: r.origin_group_id === null ? null : Number(r.origin_group_id),
});

export class RuleStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  /** Every rule of a resource, oldest first (at most the quota per resource). */
  async ofResource(clientId: number, resourceId: number): Promise<RuleRow[]> {
    const rows = await selectRows<RuleRow>(this.db, 'cdn_resource_rules', { client_id: clientId, resource_id: resourceId }, 'id');
    return rows.map(normalise);
  }

  /** Every rule of the client, for presenting many resources at once. */
  async ofClient(clientId: number): Promise<RuleRow[]> {
    const rows = await selectRows<RuleRow>(this.db, 'cdn_resource_rules', { client_id: clientId }, 'id');
    return rows.map(normalise);
  }

  async count(clientId: number, resourceId: number): Promise<number> {
    return countRows(this.db, 'cdn_resource_rules', { client_id: clientId, resource_id: resourceId });
  }

  async countUsingGroup(clientId: number, groupId: number): Promise<number> {
    const row = await this.db
      .selectFrom('cdn_resource_rules')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('origin_group_id', '=', groupId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async find(clientId: number, resourceId: number, id: number): Promise<RuleRow | undefined> {
    const [row] = await selectRows<RuleRow>(this.db, 'cdn_resource_rules', { client_id: clientId, resource_id: resourceId, id });
    return row && normalise(row);
  }

  async insert(clientId: number, resourceId: number, fields: RuleFields, now: number): Promise<number> {
    const row = await this.db
      .insertInto('cdn_resource_rules')
      .values({ ...fields, client_id: clientId, resource_id: resourceId, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async update(clientId: number, resourceId: number, id: number, fields: RuleFields, now: number): Promise<void> {
    await this.db
      .updateTable('cdn_resource_rules')
      .set({ ...fields, updated_at: now })
      .where('client_id', '=', clientId)
      .where('resource_id', '=', resourceId)
      .where('id', '=', id)
      .execute();
  }

  async delete(clientId: number, resourceId: number, id: number): Promise<void> {
    await this.db.deleteFrom('cdn_resource_rules').where('client_id', '=', clientId).where('resource_id', '=', resourceId).where('id', '=', id).execute();
  }
}
