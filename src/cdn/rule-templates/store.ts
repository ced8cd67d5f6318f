// SQL for rule templates. A client sees its own templates and the system ones (is_default = 1);
// it can change only its own. No rules here: the service decides.
import type { Generated, Kysely } from 'kysely';
import { QueryTemplate } from '../../platform/db/templates.js';
import type { ListRequest } from '../http.js';

export interface RuleTemplateRow {
  id: number;
  client_id: number;
  name: string;
  rule: string;
  rule_type: number;
  weight: number;
  override_origin_protocol: string | null;
  /** JSON object of the options that are set (ON or OFF). */
  options: string;
  is_default: number;
  /** Identity of a system template; null for custom ones. */
  system_key: string | null;
  deleted: number;
  created_at: number;
  updated_at: number;
}

export type RuleTemplateFields = Pick<RuleTemplateRow, 'name' | 'rule' | 'rule_type' | 'weight' | 'override_origin_protocol' | 'options'>;

interface Tables {
  cdn_rule_templates: Omit<RuleTemplateRow, 'id'> & { id: Generated<number> };
}

/** Numbers come back as strings from PostgreSQL bigint columns. */
function normalise(row: RuleTemplateRow): RuleTemplateRow {
  return { ...row, id: Number(row.id), client_id: Number(row.client_id), weight: Number(row.weight), rule_type: Number(row.rule_type) };
}

/** The templates a client sees: its own and the system ones, not deleted. */
const visible = (db: Kysely<any>, clientId: string) =>
  db
    .selectFrom('cdn_rule_templates')
    .where('deleted', '=', 0)
    .where((eb) => eb.or([eb('client_id', '=', clientId), eb('is_default', '=', 1)]));

// The reads of every template request and of rule matching: compiled once (see QueryTemplate), not built
// by Kysely on each request.
const VISIBLE_COUNT = new QueryTemplate(['clientId'], (db, v) => visible(db, v.clientId).select((eb) => eb.fn.countAll<number>().as('n')));
const VISIBLE_PAGE = new QueryTemplate(['clientId', 'limit', 'offset'], (db, v) =>
  visible(db, v.clientId)
    .selectAll()
    .orderBy('id')
    .limit(v.limit as unknown as number)
    .offset(v.offset as unknown as number),
);
const VISIBLE_RULES = new QueryTemplate(['clientId'], (db, v) => visible(db, v.clientId).select(['id', 'rule', 'rule_type', 'weight']));
const VISIBLE_BY_ID = new QueryTemplate(['clientId', 'id'], (db, v) => visible(db, v.clientId).selectAll().where('id', '=', v.id));

export class RuleTemplateStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  async count(clientId: number): Promise<number> {
    const { rows } = await VISIBLE_COUNT.execute<{ n: number | string }>(this.db, { clientId });
    return Number(rows[0].n);
  }

  /** The client's custom templates (system ones are not counted against its quota). */
  async countOwn(clientId: number): Promise<number> {
    const row = await this.db
      .selectFrom('cdn_rule_templates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('client_id', '=', clientId)
      .where('is_default', '=', 0)
      .where('deleted', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(clientId: number, page: ListRequest): Promise<RuleTemplateRow[]> {
    // Without a limit, every template after the offset (SQL needs a LIMIT with OFFSET; the quota bounds them).
    const { rows } = await VISIBLE_PAGE.execute<RuleTemplateRow>(this.db, { clientId, limit: page.limit ?? Number.MAX_SAFE_INTEGER, offset: page.offset });
    return rows.map(normalise);
  }

  /** What rule matching needs of every template the client sees. */
  async rules(clientId: number): Promise<{ id: number; rule: string; ruleType: number; weight: number }[]> {
    const { rows } = await VISIBLE_RULES.execute<{ id: number; rule: string; rule_type: number; weight: number }>(this.db, { clientId });
    return rows.map((r) => ({ id: Number(r.id), rule: r.rule, ruleType: Number(r.rule_type), weight: Number(r.weight) }));
  }

  async find(clientId: number, id: number): Promise<RuleTemplateRow | undefined> {
    const [row] = (await VISIBLE_BY_ID.execute<RuleTemplateRow>(this.db, { clientId, id })).rows;
    return row && normalise(row);
  }

  async insert(clientId: number, fields: RuleTemplateFields, now: number): Promise<number> {
    const row = await this.db
      .insertInto('cdn_rule_templates')
      .values({ ...fields, client_id: clientId, is_default: 0, system_key: null, deleted: 0, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async countSystem(): Promise<number> {
    const row = await this.db
      .selectFrom('cdn_rule_templates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('is_default', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Writes system templates that are missing; concurrent writers (several nodes) meet on system_key. */
  async insertSystem(rows: (RuleTemplateFields & { system_key: string; client_id: number })[], now: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('cdn_rule_templates')
      .values(rows.map((row) => ({ ...row, is_default: 1, deleted: 0, created_at: now, updated_at: now })))
      .onConflict((oc) => oc.column('system_key').doNothing())
      .execute();
  }

  /** Changes a custom template of the client; system templates are never touched. */
  async update(clientId: number, id: number, fields: RuleTemplateFields, now: number): Promise<void> {
    await this.db
      .updateTable('cdn_rule_templates')
      .set({ ...fields, updated_at: now })
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .where('is_default', '=', 0)
      .where('deleted', '=', 0)
      .execute();
  }

  /** Deletes a custom template of the client (system templates are never touched). */
  async delete(clientId: number, id: number): Promise<void> {
    await this.db.deleteFrom('cdn_rule_templates').where('id', '=', id).where('client_id', '=', clientId).where('is_default', '=', 0).execute();
  }
}
