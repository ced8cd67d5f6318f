// What each client uses of each kind of cloud resource in each region (count, vCPUs, RAM, size), kept
// by the database itself: triggers on cloud_resources add a row's figures when it becomes ready and take
// them away when it stops being ready, changes size or goes. Every create task checks its quota against
// this; counting the client's resources instead took half of the server's CPU at 10,000 networks
// (linear in them, even with a covering index). The triggers run in the writing transaction, so the
// figures can never disagree with the rows, whatever code path (or a state import) wrote them.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

export const sqliteTriggers = [
  sql`create trigger cloud_usage_insert after insert on cloud_resources when new.ready = 1 begin
    insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb)
    values (new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb)
    on conflict (client_id, region_id, kind) do update set
      n = n + 1, vcpus = vcpus + excluded.vcpus, ram_mb = ram_mb + excluded.ram_mb, size_gb = size_gb + excluded.size_gb;
  end`,
  sql`create trigger cloud_usage_delete after delete on cloud_resources when old.ready = 1 begin
    update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb
    where client_id = old.client_id and region_id = old.region_id and kind = old.kind;
  end`,
  sql`create trigger cloud_usage_update after update of ready, vcpus, ram_mb, size_gb, client_id, region_id, kind on cloud_resources
    when old.ready = 1 or new.ready = 1 begin
    update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb
    where old.ready = 1 and client_id = old.client_id and region_id = old.region_id and kind = old.kind;
    insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb)
    select new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb where new.ready = 1
    on conflict (client_id, region_id, kind) do update set
      n = n + 1, vcpus = vcpus + excluded.vcpus, ram_mb = ram_mb + excluded.ram_mb, size_gb = size_gb + excluded.size_gb;
  end`,
];

/** Drops the SQLite triggers above (or migration 018's, which have the same names). */
export async function dropSqliteTriggers(db: Kysely<any>): Promise<void> {
  for (const name of ['cloud_usage_insert', 'cloud_usage_delete', 'cloud_usage_update']) await sql`drop trigger ${sql.ref(name)}`.execute(db);
}

export const postgresTriggers = [
  sql`create function cloud_usage_track() returns trigger language plpgsql as $$
  begin
    if tg_op in ('UPDATE', 'DELETE') and old.ready = 1 then
      update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb
      where client_id = old.client_id and region_id = old.region_id and kind = old.kind;
    end if;
    if tg_op in ('INSERT', 'UPDATE') and new.ready = 1 then
      insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb)
      values (new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb)
      on conflict (client_id, region_id, kind) do update set
        n = cloud_usage.n + 1, vcpus = cloud_usage.vcpus + excluded.vcpus, ram_mb = cloud_usage.ram_mb + excluded.ram_mb,
        size_gb = cloud_usage.size_gb + excluded.size_gb;
    end if;
    return null;
  end $$`,
  sql`create trigger cloud_usage_track after insert or delete or update of ready, vcpus, ram_mb, size_gb, client_id, region_id, kind
    on cloud_resources for each row execute function cloud_usage_track()`,
];

export function cloudUsage(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('cloud_usage')
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('region_id', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .addColumn('vcpus', 'bigint', (c) => c.notNull())
        .addColumn('ram_mb', 'bigint', (c) => c.notNull())
        .addColumn('size_gb', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('cloud_usage_pk', ['client_id', 'region_id', 'kind'])
        .execute();
      // What the resources already there use, before the triggers keep it.
      await sql`insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb)
        select client_id, region_id, kind, count(*), sum(vcpus), sum(ram_mb), sum(size_gb)
        from cloud_resources where ready = 1 group by client_id, region_id, kind`.execute(db);
      for (const statement of engine === 'postgres' ? postgresTriggers : sqliteTriggers) await statement.execute(db);
    },
    async down(db: Kysely<any>) {
      if (engine === 'postgres') {
        await sql`drop trigger cloud_usage_track on cloud_resources`.execute(db);
        await sql`drop function cloud_usage_track()`.execute(db);
      } else {
        await dropSqliteTriggers(db);
      }
      await db.schema.dropTable('cloud_usage').execute();
    },
  };
}
