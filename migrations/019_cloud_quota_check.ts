// PostgreSQL only: a create's quota check as one statement that fails when the create would go over a
// limit, so that it can travel with the transaction's COMMIT in one message (QuotaService.checkAtCommit,
// platform/db/final-statement.ts). The check locks the client's quota row until the commit, and every other
// create of the client waits for that lock: sent as a statement of its own, the row stayed held while its
// answer waited for a turn of a busy event loop and the COMMIT made a round trip of its own. A statement
// that only answered the usage could not be sent with the COMMIT, since the commit must not happen when
// the answer says "over".
//
// It takes the lock as migration 018's cloud_quota_hold does, then, in a statement of its own (which sees
// what the lock's previous holder committed), compares each asked amount plus the usage with its limit.
// Which usage column counts each quota comes from the caller (`p_checks`: [name, kind, column, scale,
// amount] for each), so the mapping lives in one place (cloud/quotas/service.ts). When something is over,
// it raises SQLSTATE EPQ01 with the region and, for each quota over, [name, requested, in use, limit] as
// JSON in its detail.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

const checkFunction = sql`create function cloud_quota_check(p_client bigint, p_region bigint, p_defaults text, p_now bigint,
  p_checks json)
  returns void language plpgsql as $$
  declare
    held json;
    over json;
  begin
    select q.limits::json into held from cloud_quotas q where q.client_id = p_client for update;
    if not found then
      -- The client's first check: create its row (a racing process may do the same), then lock it.
      insert into cloud_quotas (client_id, limits, updated_at) values (p_client, p_defaults, p_now) on conflict (client_id) do nothing;
      select q.limits::json into held from cloud_quotas q where q.client_id = p_client for update;
    end if;
    -- A statement of its own, after the lock: it reads what the lock's previous holder committed.
    select json_agg(json_build_array(c.name, c.amount, c.used, c.quota_limit) order by c.at) into over
      from (
        select e.value->>0 as name, e.value->>1 as kind, e.value->>2 as col, (e.value->>3)::numeric as scale, (e.value->>4)::numeric as amount, e.at
        from json_array_elements(p_checks) with ordinality as e(value, at)
      ) q,
      lateral (
        select q.name, q.amount, q.at,
          coalesce((select case q.col when 'n' then u.n when 'vcpus' then u.vcpus when 'ram_mb' then u.ram_mb when 'size_gb' then u.size_gb
              else u.public_ports end
            from cloud_usage u where u.client_id = p_client and u.region_id = p_region and u.kind = q.kind), 0) * q.scale as used,
          coalesce((held->>q.name)::numeric, (p_defaults::json->>q.name)::numeric) as quota_limit
      ) c
      where c.used + c.amount > c.quota_limit;
    if over is not null then
      raise exception 'quota exceeded in region %', p_region
        using errcode = 'EPQ01', detail = json_build_object('region', p_region, 'over', over)::text;
    end if;
  end $$`;

export function cloudQuotaCheck(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      if (engine === 'postgres') await checkFunction.execute(db);
    },
    async down(db: Kysely<any>) {
      if (engine === 'postgres') await sql`drop function cloud_quota_check(bigint, bigint, text, bigint, json)`.execute(db);
    },
  };
}
