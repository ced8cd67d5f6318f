// PostgreSQL only: one statement that locks a client's quota row and then reads its limits and its
// usage in a region. A create task's quota check holds that row until its transaction commits, so
// creates of one client (from any process) wait for each other from the lock to the commit; taking the
// lock and reading the usage as two statements kept the row held over one more round trip through a
// busy event loop. The usage cannot be read by the locking statement itself: under READ COMMITTED a
// statement that waited for a lock still reads a snapshot taken before it waited, and would miss what
// the task that held the row committed. A function's statements each take a snapshot of their own, so
// the reads after the lock see it. SQLite needs none of this (its write transactions are serial).
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

export const holdFunction = sql`create function cloud_quota_hold(p_client bigint, p_region bigint, p_kinds text[], p_ports boolean, p_defaults text, p_now bigint)
  returns table (held_limits text, kind_usage json, public_ports bigint) language plpgsql as $$
  declare
    held text;
  begin
    select q.limits into held from cloud_quotas q where q.client_id = p_client for update;
    if not found then
      -- The client's first check: create its row (a racing process may do the same), then lock it.
      insert into cloud_quotas (client_id, limits, updated_at) values (p_client, p_defaults, p_now) on conflict (client_id) do nothing;
      select q.limits into held from cloud_quotas q where q.client_id = p_client for update;
    end if;
    return query select held,
      (select coalesce(json_agg(json_build_object('kind', u.kind, 'n', u.n, 'vcpus', u.vcpus, 'ram_mb', u.ram_mb, 'size_gb', u.size_gb)), '[]'::json)
        from cloud_usage u where u.client_id = p_client and u.region_id = p_region and u.kind = any(p_kinds)),
      case when p_ports then
        (select count(*) from cloud_resources r
          where r.client_id = p_client and r.region_id = p_region and r.kind = 'port' and r.ready = 1 and r.parent_id is null)
      end;
  end $$`;

export function cloudQuotaHold(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      if (engine === 'postgres') await holdFunction.execute(db);
    },
    async down(db: Kysely<any>) {
      if (engine === 'postgres') await sql`drop function cloud_quota_hold(bigint, bigint, text[], boolean, text, bigint)`.execute(db);
    },
  };
}
