// SQL for projects. Scoped by client on every read.
import { type Generated, type Kysely, sql } from 'kysely';
import { QueryTemplate, templateOf } from '../../platform/db/templates.js';

export interface ProjectRow {
  id: number;
  client_id: number;
  name: string;
  description: string | null;
  is_default: number;
  state: string;
  task_id: string | null;
  created_at: number;
  deleted_at: number | null;
}

interface Tables {
  cloud_projects: Omit<ProjectRow, 'id'> & { id: Generated<number> };
}

export interface ProjectFilter {
  name?: string;
  includeDeleted?: boolean;
  orderBy?: 'created_at.asc' | 'created_at.desc' | 'name.asc' | 'name.desc';
}

/** Every cloud request in a project reads it first: compiled once (see QueryTemplate). */
const PROJECT_BY_ID = new QueryTemplate(['clientId', 'id'], (db, v) =>
  db.selectFrom('cloud_projects').selectAll().where('client_id', '=', v.clientId).where('id', '=', v.id),
);

/**
 * A filter's shape: whether deleted projects count and whether a name is asked for. Filters of one shape
 * make the same SQL, so a list's count and page are compiled once per shape (templateOf), as task lists.
 */
function shapeOf(clientId: number, filter: ProjectFilter) {
  const includeDeleted = Boolean(filter.includeDeleted);
  const named = Boolean(filter.name);
  return {
    key: `${includeDeleted}\u0000${named}`,
    names: named ? ['clientId', 'name'] : ['clientId'],
    values: { clientId, name: filter.name },
    /** The projects that pass the filter, with a template's placeholders for the values. */
    filtered(db: Kysely<Tables>, v: Readonly<Record<string, string>>) {
      let q = db.selectFrom('cloud_projects').where('client_id', '=', v.clientId as unknown as number);
      if (!includeDeleted) q = q.where('deleted_at', 'is', null);
      if (named) q = q.where('name', '=', v.name);
      return q;
    },
  };
}

export class ProjectStore {
  private readonly db: Kysely<Tables>;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
  }

  /** The same queries inside a caller's transaction. */
  withDb(db: Kysely<any>): ProjectStore {
    return new ProjectStore(db);
  }

  async insert(row: Omit<ProjectRow, 'id'>): Promise<number> {
    const inserted = await this.db.insertInto('cloud_projects').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  async get(clientId: number, id: number): Promise<ProjectRow | undefined> {
    const { rows } = await PROJECT_BY_ID.execute<ProjectRow>(this.db, { clientId, id });
    return rows[0];
  }

  async findDefault(clientId: number): Promise<ProjectRow | undefined> {
    // `is_default = 1` written out: SQLite prepares a statement again at every run when a bound value
    // meets the WHERE of a partial index (cloud_projects_one_default), as `is_default = ?` would.
    return this.db
      .selectFrom('cloud_projects')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('is_default', '=', sql.lit(1))
      .executeTakeFirst() as Promise<ProjectRow | undefined>;
  }

  async count(clientId: number, filter: ProjectFilter): Promise<number> {
    const shape = shapeOf(clientId, filter);
    const template = templateOf(`cloud_projects.count\u0000${shape.key}`, shape.names, (db, v) =>
      shape.filtered(db as Kysely<Tables>, v).select((eb) => eb.fn.countAll<number>().as('n')),
    );
    const { rows } = await template.execute<{ n: number | string }>(this.db, shape.values);
    return Number(rows[0].n);
  }

  async list(clientId: number, filter: ProjectFilter, page: { limit: number; offset: number }): Promise<ProjectRow[]> {
    const [field, dir] = (filter.orderBy ?? 'created_at.asc').split('.') as ['created_at' | 'name', 'asc' | 'desc'];
    const shape = shapeOf(clientId, filter);
    const template = templateOf(`cloud_projects.list\u0000${shape.key}\u0000${field}\u0000${dir}`, [...shape.names, 'limit', 'offset'], (db, v) =>
      shape
        .filtered(db as Kysely<Tables>, v)
        .selectAll()
        .orderBy(field, dir)
        .orderBy('id', dir)
        .limit(v.limit as unknown as number)
        .offset(v.offset as unknown as number),
    );
    return (await template.execute<ProjectRow>(this.db, { ...shape.values, ...page })).rows;
  }

  async update(clientId: number, id: number, values: Partial<ProjectRow>): Promise<void> {
    await this.db.updateTable('cloud_projects').set(values).where('client_id', '=', clientId).where('id', '=', id).execute();
  }

  async countActive(clientId: number): Promise<number> {
    return this.count(clientId, {});
  }
}
