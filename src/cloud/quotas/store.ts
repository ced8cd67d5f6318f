// SQL for per-client quota limits.
import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../platform/db/index.js';
import { type FinalStatement, sqlNumber, sqlLiteral } from '../../platform/db/final-statement.js';
import { QueryTemplate } from '../../platform/db/templates.js';
import { type KindUsage, type ResourceKind, ResourceStore } from '../common/resource-store.js';

/** The SQLSTATE of cloud_quota_check's failure (migration 019). */
const QUOTA_EXCEEDED = 'EPQ01';

/** cloud_usage's column for each KindUsage count. */
const USAGE_COLUMNS = { n: 'n', vcpus: 'vcpus', ram: 'ram_mb', size: 'size_gb', publicPorts: 'public_ports' } as const;

/** One quota a check compares: the usage column that counts it, times `scale`, plus `amount`, against its limit. */
export interface QuotaCheckItem {
  name: string;
  kind: ResourceKind;
  column: keyof typeof USAGE_COLUMNS;
  scale: number;
  amount: number;
}

/** A quota a check found over its limit. */
export interface OverQuota {
  name: string;
  requested: number;
  usage: number;
  limit: number;
}

/** What a quota check reads while it holds the client's quota row. */
export interface HeldQuota {
  limits: Record<string, number>;
  /** The region's usage rows of the kinds asked for. */
  usage: KindUsage[];
}

interface Tables {
  cloud_quotas: { client_id: number; limits: string; updated_at: number };
}

/** A client's quota row, read by every create's quota check (compiled once, see QueryTemplate). */
const quotaRow = (db: Kysely<any>, clientId: string) => db.selectFrom('cloud_quotas').select('limits').where('client_id', '=', clientId);
const QUOTA_ROW = new QueryTemplate(['clientId'], (db, v) => quotaRow(db, v.clientId));
/** The same, locked until the transaction ends (PostgreSQL). */
const QUOTA_ROW_FOR_UPDATE = new QueryTemplate(['clientId'], (db, v) => quotaRow(db, v.clientId).forUpdate());

export class QuotaStore {
  private readonly db: Kysely<Tables>;

  constructor(
    db: Kysely<any>,
    private readonly engine: Engine,
  ) {
    this.db = db as Kysely<Tables>;
  }

  withDb(db: Kysely<any>): QuotaStore {
    return new QuotaStore(db, this.engine);
  }

  async get(clientId: number): Promise<Record<string, number> | undefined> {
    const row = await this.db.selectFrom('cloud_quotas').select('limits').where('client_id', '=', clientId).executeTakeFirst();
    return row ? (JSON.parse(row.limits) as Record<string, number>) : undefined;
  }

  async put(clientId: number, limits: Record<string, number>, now: number): Promise<void> {
    await this.db
      .insertInto('cloud_quotas')
      .values({ client_id: clientId, limits: JSON.stringify(limits), updated_at: now })
      .onConflict((oc) => oc.column('client_id').doUpdateSet({ limits: JSON.stringify(limits), updated_at: now }))
      .execute();
  }

  /**
   * Locks the client's quota row until the transaction ends (PostgreSQL), so two processes finishing
   * tasks of one client check their quota one after the other. SQLite transactions are serial already.
   */
  private async lock(clientId: number, defaults: Record<string, number>, now: number): Promise<Record<string, number>> {
    const held = this.engine === 'postgres' ? QUOTA_ROW_FOR_UPDATE : QUOTA_ROW;
    const read = async () => (await held.execute<{ limits: string }>(this.db, { clientId })).rows[0];
    let row = await read();
    if (!row) {
      // First check for this client: create its row (a racing process may do the same), then lock it.
      await this.db
        .insertInto('cloud_quotas')
        .values({ client_id: clientId, limits: JSON.stringify(defaults), updated_at: now })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .execute();
      row = await read();
      if (!row) throw new Error(`the quota row of client ${clientId} was not created`);
    }
    return JSON.parse(row.limits) as Record<string, number>;
  }

  /**
   * Locks the client's quota row until the transaction ends (see `lock`), then reads its limits and its
   * usage of the kinds given in a region. On PostgreSQL that is one round trip (migrations 014 and 018's
   * function), so the row is held over one round trip fewer.
   */
  async hold(clientId: number, regionId: number, kinds: ResourceKind[], defaults: Record<string, number>, now: number): Promise<HeldQuota> {
    if (this.engine === 'postgres') {
      const { rows } = await sql<{
        held_limits: string;
        kind_usage: { kind: string; n: number; vcpus: number; ram_mb: number; size_gb: number; public_ports: number }[];
      }>`
        select * from cloud_quota_hold(${clientId}, ${regionId}, ${kinds}, ${JSON.stringify(defaults)}, ${now})`.execute(this.db);
      const [row] = rows;
      const usage = row.kind_usage.map((u) => ({
        regionId,
        kind: u.kind,
        n: Number(u.n),
        vcpus: Number(u.vcpus),
        ram: Number(u.ram_mb),
        size: Number(u.size_gb),
        publicPorts: Number(u.public_ports),
      }));
      return { limits: JSON.parse(row.held_limits) as Record<string, number>, usage };
    }
    const limits = await this.lock(clientId, defaults, now);
    return { limits, usage: await new ResourceStore(this.db).usage(clientId, [regionId], kinds) };
  }

  /**
   * PostgreSQL: the statement that holds the client's quota row and fails with QUOTA_EXCEEDED when
   * `items` would go over a limit in the region (migration 019), values written in: it is sent with the
   * COMMIT (platform/db/final-statement.ts). `overOf` reads its failure.
   */
  checkStatement(
    clientId: number,
    regionId: number,
    items: readonly QuotaCheckItem[],
    defaults: Record<string, number>,
    now: number,
  ): Omit<FinalStatement, 'failure'> {
    const checks = JSON.stringify(items.map(({ name, kind, column, scale, amount }) => [name, kind, USAGE_COLUMNS[column], scale, amount]));
    const limits = JSON.stringify(defaults);
    return {
      query: sql`select cloud_quota_check(${clientId}, ${regionId}, ${limits}, ${now}, ${checks}::json)`,
      text: `select cloud_quota_check(${sqlNumber(clientId)}, ${sqlNumber(regionId)}, ${sqlLiteral(limits)}, ${sqlNumber(now)}, ${sqlLiteral(checks)})`,
    };
  }

  /** What a failed `checkStatement` found over its limits; undefined for any other error. */
  static overOf(error: unknown): { regionId: number; over: OverQuota[] } | undefined {
    const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
    if (code !== QUOTA_EXCEEDED || typeof detail !== 'string') return undefined;
    const found = JSON.parse(detail) as { region: number; over: [string, number, number, number][] };
    return { regionId: found.region, over: found.over.map(([name, requested, usage, limit]) => ({ name, requested, usage, limit })) };
  }

  /** Whether quota checks wait for the end of their transaction (PostgreSQL, see QuotaService.check). */
  get checksAtCommit(): boolean {
    return this.engine === 'postgres';
  }
}
