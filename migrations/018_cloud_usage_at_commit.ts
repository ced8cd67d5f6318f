// Two changes to what cloud_usage keeps (migration 013), for one purpose: a create's quota check that holds
// the client's quota row for as short a time as possible.
//
// - `public_ports`: the client's public addresses in the region (ready ports without a network of the
//   client's, so without a parent), kept on the region's `port` row by the same triggers. A quota check
//   counted those rows instead (the index it read is dropped), a cost that grew with every address, and
//   a count of rows would also see the ports its own transaction had just made ready.
// - PostgreSQL: the trigger runs when the transaction commits (a deferred constraint trigger) instead of
//   at each row's write. Updating a client's usage row locks it until the commit, so every create of one
//   client waited for the one before it from its finishing write to its COMMIT; and a quota check (which
//   locks the client's quota row until the commit as well) had to come before that write. Now the usage
//   rows are locked only while committing, and the tasks whose check guards nothing after it check just
//   before their COMMIT (QuotaService.checkAtCommit, TaskContext.beforeCommit), reading the usage as the
//   other transactions left it: one round trip and the COMMIT while the quota row is held, instead of
//   four. Usage read inside a transaction that changed resources does not include that transaction's
//   changes on PostgreSQL; only those checks read it so.
//   SQLite's transactions are serial: its triggers stay immediate and its checks run where they are made.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';
import { dropSqliteTriggers, postgresTriggers as triggersOf013, sqliteTriggers as sqliteTriggersOf013 } from './013_cloud_usage.js';
import { holdFunction as holdOf014 } from './014_cloud_quota_hold.js';

const isPublicPort = (row: 'new' | 'old', engine: Engine) =>
  engine === 'postgres' ? sql.raw(`(${row}.kind = 'port' and ${row}.parent_id is null)::int`) : sql.raw(`(${row}.kind = 'port' and ${row}.parent_id is null)`);

const sqliteTriggers = [
  sql`create trigger cloud_usage_insert after insert on cloud_resources when new.ready = 1 begin
    insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb, public_ports)
    values (new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb, ${isPublicPort('new', 'sqlite')})
    on conflict (client_id, region_id, kind) do update set
      n = n + 1, vcpus = vcpus + excluded.vcpus, ram_mb = ram_mb + excluded.ram_mb, size_gb = size_gb + excluded.size_gb,
      public_ports = public_ports + excluded.public_ports;
  end`,
  sql`create trigger cloud_usage_delete after delete on cloud_resources when old.ready = 1 begin
    update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb,
      public_ports = public_ports - ${isPublicPort('old', 'sqlite')}
    where client_id = old.client_id and region_id = old.region_id and kind = old.kind;
  end`,
  sql`create trigger cloud_usage_update after update of ready, vcpus, ram_mb, size_gb, client_id, region_id, kind, parent_id on cloud_resources
    when old.ready = 1 or new.ready = 1 begin
    update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb,
      public_ports = public_ports - ${isPublicPort('old', 'sqlite')}
    where old.ready = 1 and client_id = old.client_id and region_id = old.region_id and kind = old.kind;
    insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb, public_ports)
    select new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb, ${isPublicPort('new', 'sqlite')} where new.ready = 1
    on conflict (client_id, region_id, kind) do update set
      n = n + 1, vcpus = vcpus + excluded.vcpus, ram_mb = ram_mb + excluded.ram_mb, size_gb = size_gb + excluded.size_gb,
      public_ports = public_ports + excluded.public_ports;
  end`,
];

const postgresFunction = sql`create or replace function cloud_usage_track() returns trigger language plpgsql as $$
  begin
    if tg_op in ('UPDATE', 'DELETE') and old.ready = 1 then
      update cloud_usage set n = n - 1, vcpus = vcpus - old.vcpus, ram_mb = ram_mb - old.ram_mb, size_gb = size_gb - old.size_gb,
        public_ports = public_ports - ${isPublicPort('old', 'postgres')}
      where client_id = old.client_id and region_id = old.region_id and kind = old.kind;
    end if;
    if tg_op in ('INSERT', 'UPDATE') and new.ready = 1 then
      insert into cloud_usage (client_id, region_id, kind, n, vcpus, ram_mb, size_gb, public_ports)
      values (new.client_id, new.region_id, new.kind, 1, new.vcpus, new.ram_mb, new.size_gb, ${isPublicPort('new', 'postgres')})
      on conflict (client_id, region_id, kind) do update set
        n = cloud_usage.n + 1, vcpus = cloud_usage.vcpus + excluded.vcpus, ram_mb = cloud_usage.ram_mb + excluded.ram_mb,
        size_gb = cloud_usage.size_gb + excluded.size_gb, public_ports = cloud_usage.public_ports + excluded.public_ports;
    end if;
    return null;
  end $$`;

/** The quota hold of migration 014, with the public addresses read from the usage rows instead of counted. */
const postgresHold = sql`create function cloud_quota_hold(p_client bigint, p_region bigint, p_kinds text[], p_defaults text, p_now bigint)
  returns table (held_limits text, kind_usage json) language plpgsql as $$
  declare
    held text;
  begin
    select q.limits into held from cloud_quotas q where q.client_id = p_client for update;
    if not found then
      insert into cloud_quotas (client_id, limits, updated_at) values (p_client, p_defaults, p_now) on conflict (client_id) do nothing;
      select q.limits into held from cloud_quotas q where q.client_id = p_client for update;
    end if;
    return query select held,
      (select coalesce(json_agg(json_build_object('kind', u.kind, 'n', u.n, 'vcpus', u.vcpus, 'ram_mb', u.ram_mb, 'size_gb', u.size_gb,
          'public_ports', u.public_ports)), '[]'::json)
        from cloud_usage u where u.client_id = p_client and u.region_id = p_region and u.kind = any(p_kinds));
  end $$`;

export function cloudUsageAtCommit(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      await sql`alter table cloud_usage add column public_ports bigint not null default 0`.execute(db);
      await sql`update cloud_usage set public_ports = (select count(*) from cloud_resources r
          where r.client_id = cloud_usage.client_id and r.region_id = cloud_usage.region_id and r.kind = 'port' and r.ready = 1 and r.parent_id is null)
        where kind = 'port'`.execute(db);
      // Only that count read this index (migrations 016 and 017): every port written no longer updates it.
      await sql`drop index cloud_resources_ports`.execute(db);
      if (engine === 'postgres') {
        await sql`drop trigger cloud_usage_track on cloud_resources`.execute(db);
        await postgresFunction.execute(db);
        await sql`create constraint trigger cloud_usage_track after insert or delete or update of ready, vcpus, ram_mb, size_gb, client_id, region_id, kind, parent_id
          on cloud_resources deferrable initially deferred for each row execute function cloud_usage_track()`.execute(db);
        await sql`drop function cloud_quota_hold(bigint, bigint, text[], boolean, text, bigint)`.execute(db);
        await postgresHold.execute(db);
      } else {
        await dropSqliteTriggers(db);
        for (const statement of sqliteTriggers) await statement.execute(db);
      }
    },
    async down(db: Kysely<any>) {
      // Migration 013's triggers and 014's hold, without the column.
      if (engine === 'postgres') {
        await sql`drop function cloud_quota_hold(bigint, bigint, text[], text, bigint)`.execute(db);
        await holdOf014.execute(db);
        await sql`drop trigger cloud_usage_track on cloud_resources`.execute(db);
        await sql`drop function cloud_usage_track()`.execute(db);
        for (const statement of triggersOf013) await statement.execute(db);
      } else {
        await dropSqliteTriggers(db);
        for (const statement of sqliteTriggersOf013) await statement.execute(db);
      }
      await sql`alter table cloud_usage drop column public_ports`.execute(db);
      await (
        engine === 'postgres'
          ? sql`create index cloud_resources_ports on cloud_resources (client_id, region_id, parent_id) where kind = 'port'`
          : sql`create index cloud_resources_ports on cloud_resources (client_id, region_id, kind, parent_id)`
      ).execute(db);
    },
  };
}
