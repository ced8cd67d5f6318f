// SQL over `cloud_resources`, the one table every simulated cloud resource lives in. Every read is
// scoped by client, project and region: another client's object is simply not found.
import { type Kysely, sql } from 'kysely';
import { isTransaction, writeAtEnd } from '../../platform/db/final-statement.js';
import { insertRow, insertRowQuery, listed, QueryTemplate, templateOf, updateRow, updateRowQuery } from '../../platform/db/templates.js';
import { TaskFailure } from '../../platform/tasks/types.js';

/** Rows of one insert statement: 18 columns each, well within both engines' limits on parameters. */
const INSERT_ROWS = 500;

export type ResourceKind =
  | 'network'
  | 'subnet'
  | 'port'
  | 'instance'
  | 'volume'
  | 'floatingip'
  | 'k8s_cluster'
  | 'k8s_pool'
  | 'image'
  | 'snapshot'
  | 'security_group'
  | 'security_group_rule'
  | 'ssh_key'
  | 'loadbalancer'
  | 'lb_listener'
  | 'lb_pool'
  | 'lb_member'
  | 'lb_healthmonitor'
  | 'l7policy'
  | 'l7rule'
  | 'router'
  | 'file_share'
  | 'sfs_access_rule'
  | 'servergroup';

/** Resources of a project that live in no region (SSH keys) are stored under this region ID. */
export const NO_REGION = 0;

export interface ResourceRow {
  id: string;
  kind: ResourceKind;
  client_id: number;
  project_id: number;
  region_id: number;
  name: string;
  status: string;
  /** The resource this one lives in (subnet -> network, port -> network). */
  parent_id: string | null;
  /** The resource this one is attached to (port/volume/floating IP -> instance). */
  owner_id: string | null;
  vcpus: number;
  ram_mb: number;
  size_gb: number;
  /** 1 once its create task has finished: counts toward quotas and may be used by others. */
  ready: number;
  creator_task_id: string | null;
  /** The task currently working on the resource, null when none. */
  task_id: string | null;
  /** JSON of the kind-specific fields. */
  attrs: string;
  created_at: number;
  updated_at: number;
}

export interface Scope {
  clientId: number;
  projectId: number;
  regionId: number;
}

/** A client's use of one kind in one region, kept by the database's triggers (migrations 013 and 018). */
interface UsageRow {
  client_id: number;
  region_id: number;
  kind: string;
  n: number;
  vcpus: number;
  ram_mb: number;
  size_gb: number;
  public_ports: number;
}

/** What the quota service reads of a usage row. */
export interface KindUsage {
  regionId: number;
  kind: string;
  n: number;
  vcpus: number;
  ram: number;
  size: number;
  /** Of the `port` row: the ports without a parent (the client's public addresses). */
  publicPorts: number;
}

interface Tables {
  cloud_resources: ResourceRow;
  cloud_usage: UsageRow;
}

export interface ListFilter {
  /** `created_at.asc` (default), `created_at.desc`, `name.asc`, `name.desc`. */
  orderBy?: string;
  parentId?: string;
  ownerId?: string;
  name?: string;
  status?: string;
  /** Only records whose owner is set (true) or not (false). */
  owned?: boolean;
}

/** An instance's host, as the hosts' index (migration 015) holds it: the text must stay the index's. */
const INSTANCE_HOST = sql<string | null>`json_extract(attrs, '$.host')`;

/**
 * A template's placeholders, by name (see QueryTemplate): the reads below are built once from them, so
 * they use an untyped Kysely; each read's rows are typed where it is run.
 */
type Placeholders = Readonly<Record<string, string>>;

/** The rows of one kind in a client's project and region: what every read of a resource starts from. */
function inScope(db: Kysely<any>, v: Placeholders) {
  return db
    .selectFrom('cloud_resources')
    .selectAll()
    .where('client_id', '=', v.clientId)
    .where('project_id', '=', v.projectId)
    .where('region_id', '=', v.regionId)
    .where('kind', '=', v.kind);
}

// The reads of every GET of a resource (and of most writes' checks), compiled once (templates.ts).
const SCOPE_NAMES = ['clientId', 'projectId', 'regionId', 'kind'] as const;
const RESOURCE_IN_SCOPE = new QueryTemplate([...SCOPE_NAMES, 'id'], (db, v) => inScope(db, v).where('id', '=', v.id));
const RESOURCE_BY_NAME = new QueryTemplate([...SCOPE_NAMES, 'name'], (db, v) => inScope(db, v).where('name', '=', v.name));
const RESOURCE_BY_ID = new QueryTemplate(['id'], (db, v) => db.selectFrom('cloud_resources').selectAll().where('id', '=', v.id));
const ALL_IN_SCOPE = new QueryTemplate(SCOPE_NAMES, (db, v) => inScope(db, v).orderBy('created_at').orderBy('id'));

/** The fields of a ListFilter compared with a value (`owned` only picks `is` or `is not null`, and the order is the caller's). */
const FILTER_VALUES = ['parentId', 'ownerId', 'name', 'status'] as const;

/**
 * A filter's shape: which of its values are set, and `owned`. Filters of one shape make the same SQL, so
 * their count and list are compiled once per shape (templateOf); `filter` rebuilds the filter from a
 * template's placeholders.
 */
function shapeOf(filter: ListFilter) {
  const names = FILTER_VALUES.filter((name) => filter[name]);
  return {
    key: `${names.join(',')}\u0000${filter.owned ?? ''}`,
    names,
    filter: (values: Placeholders): ListFilter => ({
      ...Object.fromEntries(names.map((name) => [name, values[name]])),
      owned: filter.owned,
    }),
  };
}

/** The rows of one kind in a scope that pass a filter (a template's placeholders for the values). */
function filteredIn(db: Kysely<any>, values: Placeholders, filter: ListFilter) {
  let q = inScope(db, values);
  if (filter.parentId) q = q.where('parent_id', '=', filter.parentId);
  if (filter.ownerId) q = q.where('owner_id', '=', filter.ownerId);
  if (filter.name) q = q.where('name', '=', filter.name);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.owned !== undefined) q = q.where('owner_id', filter.owned ? 'is not' : 'is', null);
  return q;
}

/**
 * Rows a transaction inserted through a ResourceStore, by id, while no store has changed them since. In
 * instant mode a create's task runs inside the transaction that wrote its row (TaskEngine.submit) and
 * reads it back at once (a round trip on PostgreSQL), and a row left for the end (insertAtEnd) is not in
 * the database before then: only here. Keyed by the transaction's
 * Kysely object (Kysely hands a new one to each transaction, and to each connection scope that
 * transactionEndingWith begins one on), so nothing outlives it; only transactions are kept (isTransaction),
 * and every change a store makes in the transaction forgets what it touches.
 * Other SQL writes no cloud_resources row inside a create's transaction.
 */
const insertedIn = new WeakMap<Kysely<any>, Map<string, ResourceRow>>();

export class ResourceStore {
  readonly db: Kysely<Tables>;
  /** This transaction's inserted rows (none outside a transaction). */
  private readonly inserted: Map<string, ResourceRow> | undefined;

  constructor(db: Kysely<any>) {
    this.db = db as Kysely<Tables>;
    if (isTransaction(db)) {
      let rows = insertedIn.get(db);
      if (!rows) insertedIn.set(db, (rows = new Map()));
      this.inserted = rows;
    }
  }

  /**
   * Inserts rows in one statement (a few hundred at a time): a create that makes several rows (an
   * instance with its volume and ports, a cluster with its nodes) pays one round trip, not one a row.
   */
  async insert(...rows: ResourceRow[]): Promise<void> {
    if (rows.length === 1) await insertRow(this.db, 'cloud_resources', rows[0]);
    else
      for (let i = 0; i < rows.length; i += INSERT_ROWS)
        await this.db
          .insertInto('cloud_resources')
          .values(rows.slice(i, i + INSERT_ROWS))
          .execute();
    for (const row of rows) this.inserted?.set(row.id, { ...row });
  }

  /**
   * One row's insert, left for the end of the transaction (writeAtEnd): for a create whose transaction
   * reads its row only by `byId`, which answers it at once, and changes it only by `updateAtEnd` (an
   * `update` or `delete` would find no row yet). SQL in the transaction does not see it before.
   */
  async insertAtEnd(row: ResourceRow): Promise<void> {
    await writeAtEnd(this.db, insertRowQuery(this.db, 'cloud_resources', row));
    this.inserted?.set(row.id, { ...row });
  }

  async get(kind: ResourceKind, scope: Scope, id: string): Promise<ResourceRow | undefined> {
    const { rows } = await RESOURCE_IN_SCOPE.execute<ResourceRow>(this.db, { ...scope, kind, id });
    return rows[0];
  }

  async getByName(kind: ResourceKind, scope: Scope, name: string): Promise<ResourceRow | undefined> {
    const { rows } = await RESOURCE_BY_NAME.execute<ResourceRow>(this.db, { ...scope, kind, name });
    return rows[0];
  }

  /** A row by id alone: for task modules, whose task row already proves the scope. */
  async byId(id: string): Promise<ResourceRow | undefined> {
    const inserted = this.inserted?.get(id);
    if (inserted) return { ...inserted };
    return (await RESOURCE_BY_ID.execute<ResourceRow>(this.db, { id })).rows[0];
  }

  async count(kind: ResourceKind, scope: Scope, filter: ListFilter = {}): Promise<number> {
    const shape = shapeOf(filter);
    const template = templateOf(`cloud_resources.count\u0000${shape.key}`, [...SCOPE_NAMES, ...shape.names], (db, v) =>
      filteredIn(db, v, shape.filter(v))
        .clearSelect()
        .select((eb) => eb.fn.countAll<number>().as('n')),
    );
    const { rows } = await template.execute<{ n: number | string }>(this.db, { ...scope, kind, ...filter });
    return Number(rows[0].n);
  }

  async list(kind: ResourceKind, scope: Scope, filter: ListFilter, page: { limit: number; offset: number }): Promise<ResourceRow[]> {
    const [field, dir] = (filter.orderBy ?? 'created_at.asc').split('.');
    const column = field === 'name' ? 'name' : 'created_at';
    const direction = dir === 'desc' ? 'desc' : 'asc';
    const shape = shapeOf(filter);
    const template = templateOf(
      `cloud_resources.list\u0000${shape.key}\u0000${column}\u0000${direction}`,
      [...SCOPE_NAMES, ...shape.names, 'limit', 'offset'],
      (db, v) =>
        filteredIn(db, v, shape.filter(v))
          .orderBy(column, direction)
          .orderBy('id', direction)
          .limit(v.limit as unknown as number)
          .offset(v.offset as unknown as number),
    );
    return (await template.execute<ResourceRow>(this.db, { ...scope, kind, ...filter, ...page })).rows;
  }

  /** Every record of a kind in the scope, oldest first: for lists filtered on attributes SQL does not index. */
  async all(kind: ResourceKind, scope: Scope): Promise<ResourceRow[]> {
    return (await ALL_IN_SCOPE.execute<ResourceRow>(this.db, { ...scope, kind })).rows;
  }

  /**
   * vCPUs of a client's placed instances in a region, summed by host, one instance left out (the one
   * being placed). Read in SQL (json_extract, migration 015 on PostgreSQL): placing an instance read
   * every instance of the region and parsed its attributes, a cost that grew with each one placed.
   */
  async hostLoad(clientId: number, regionId: number, leftOut: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('cloud_resources')
      .select((eb) => [INSTANCE_HOST.as('host'), eb.fn.sum<number>('vcpus').as('vcpus')])
      .where('client_id', '=', clientId)
      .where('region_id', '=', regionId)
      .where('kind', '=', 'instance')
      .where('id', '<>', leftOut)
      .where(INSTANCE_HOST, '<>', '')
      .groupBy(INSTANCE_HOST)
      .execute();
    return new Map(rows.map((r) => [r.host!, Number(r.vcpus)]));
  }

  /**
   * The hosts of a placement group's placed members in a project's region. The instance being placed
   * is never one of them: a new one has no host yet, and one moved in was in no group.
   */
  async groupHosts(scope: Scope, groupId: string): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('cloud_resources')
      .select(INSTANCE_HOST.as('host'))
      .distinct()
      .where('client_id', '=', scope.clientId)
      .where('project_id', '=', scope.projectId)
      .where('region_id', '=', scope.regionId)
      .where('kind', '=', 'instance')
      .where(sql`json_extract(attrs, '$.servergroup_id')`, '=', groupId)
      .where(INSTANCE_HOST, '<>', '')
      .execute();
    return new Set(rows.map((r) => r.host!));
  }

  async children(parentId: string, kind?: ResourceKind): Promise<ResourceRow[]> {
    return this.related('parent_id', parentId, kind);
  }

  async attachedTo(ownerId: string, kind?: ResourceKind): Promise<ResourceRow[]> {
    return this.related('owner_id', ownerId, kind);
  }

  /** The rows whose `column` (parent or owner) is `id`, of one kind or any, oldest first. */
  private async related(column: 'parent_id' | 'owner_id', id: string, kind?: ResourceKind): Promise<ResourceRow[]> {
    const template = templateOf(`cloud_resources.${column}\u0000${kind ? 'kind' : 'any'}`, kind ? ['id', 'kind'] : ['id'], (db, v) => {
      const q = db.selectFrom('cloud_resources').selectAll().where(column, '=', v.id);
      return (kind ? q.where('kind', '=', v.kind) : q).orderBy('created_at').orderBy('id');
    });
    return (await template.execute<ResourceRow>(this.db, { id, kind })).rows;
  }

  async update(id: string, values: Partial<ResourceRow>): Promise<void> {
    this.inserted?.delete(id);
    await updateRow(this.db, 'cloud_resources', 'id', id, values);
  }

  /**
   * `update`, left for the end of the transaction (writeAtEnd): a create's last write. SQL in the
   * transaction reads the row as it was until then; `byId` answers a row the transaction inserted as updated.
   */
  async updateAtEnd(id: string, values: Partial<ResourceRow>): Promise<void> {
    const inserted = this.inserted?.get(id);
    if (inserted) this.inserted!.set(id, { ...inserted, ...values });
    await writeAtEnd(this.db, updateRowQuery(this.db, 'cloud_resources', 'id', id, values));
  }

  async delete(id: string): Promise<void> {
    this.inserted?.delete(id);
    await this.db.deleteFrom('cloud_resources').where('id', '=', id).execute();
  }

  async deleteMany(ids: string[]): Promise<void> {
    for (const id of ids) this.inserted?.delete(id);
    if (ids.length > 0) await this.db.deleteFrom('cloud_resources').where('id', 'in', ids).execute();
  }

  /** Everything a task wrote ahead of itself: what a failed create task must remove. */
  async deleteCreatedBy(taskId: string): Promise<void> {
    this.inserted?.clear();
    await this.db.deleteFrom('cloud_resources').where('creator_task_id', '=', taskId).where('ready', '=', 0).execute();
  }

  async updateCreatedBy(taskId: string, values: Partial<ResourceRow>): Promise<void> {
    this.inserted?.clear();
    await this.db.updateTable('cloud_resources').set(values).where('creator_task_id', '=', taskId).execute();
  }

  async deleteProject(clientId: number, projectId: number): Promise<number> {
    this.inserted?.clear();
    const result = await this.db.deleteFrom('cloud_resources').where('client_id', '=', clientId).where('project_id', '=', projectId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Usage of a client in the regions given: finished resources of each kind, and the summed sizes, as
   * the database keeps them (cloud_usage, maintained by triggers on this table: migrations 013 and 018).
   * On PostgreSQL the triggers run at commit: a transaction does not see its own changes here.
   */
  async usage(clientId: number, regionIds: number[], kinds?: ResourceKind[]): Promise<KindUsage[]> {
    // Every create's quota check reads this: compiled once per length of its lists (see templateOf).
    const regions = listed('region', regionIds);
    const kindList = kinds && listed('kind', kinds);
    const template = templateOf(
      `cloud_usage\u0000${regionIds.length}\u0000${kinds?.length ?? 'all'}`,
      ['clientId', ...regions.names, ...(kindList?.names ?? [])],
      (db, v) => {
        const q = db
          .selectFrom('cloud_usage')
          .select(['region_id', 'kind', 'n', 'vcpus', 'ram_mb', 'size_gb', 'public_ports'])
          .where('client_id', '=', v.clientId)
          .where(
            'region_id',
            'in',
            regions.names.map((name) => v[name]),
          );
        return kindList
          ? q.where(
              'kind',
              'in',
              kindList.names.map((name) => v[name]),
            )
          : q;
      },
    );
    const { rows } = await template.execute<UsageRow>(this.db, { clientId, ...regions.values, ...kindList?.values });
    return rows.map((r) => ({
      regionId: Number(r.region_id),
      kind: r.kind,
      n: Number(r.n),
      vcpus: Number(r.vcpus),
      ram: Number(r.ram_mb),
      size: Number(r.size_gb),
      publicPorts: Number(r.public_ports),
    }));
  }
}

/** A new row in the state its create request writes it (not ready, held by its task). */
export function newRow(
  scope: Scope,
  kind: ResourceRow['kind'],
  id: string,
  name: string,
  status: string,
  taskId: string,
  attrs: unknown,
  now: number,
  extra: Partial<ResourceRow> = {},
): ResourceRow {
  return {
    id,
    kind,
    client_id: scope.clientId,
    project_id: scope.projectId,
    region_id: scope.regionId,
    name,
    status,
    parent_id: null,
    owner_id: null,
    vcpus: 0,
    ram_mb: 0,
    size_gb: 0,
    ready: 0,
    creator_task_id: taskId,
    task_id: taskId,
    attrs: JSON.stringify(attrs),
    created_at: now,
    updated_at: now,
    ...extra,
  };
}

/**
 * The row a finishing create task works on. It can be gone when its project was deleted meanwhile:
 * the task then fails instead of naming a resource that does not exist.
 */
export async function pendingRow(store: ResourceStore, id: string, what: string): Promise<ResourceRow> {
  const row = await store.byId(id);
  if (!row) throw new TaskFailure(`${what} ${id} was deleted (with its project) before it could be created`);
  return row;
}

export function attrsOf<T>(row: ResourceRow): T {
  return JSON.parse(row.attrs) as T;
}
