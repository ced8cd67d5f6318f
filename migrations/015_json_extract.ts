// PostgreSQL only: `json_extract(text, '$.key.key')`, the SQLite function of that name for the simple
// paths this server uses (object keys, no array indexes), so that one SQL text reads a field of a JSON
// text column on both engines. SQLite has it built in. Placing an instance sums its client's vCPUs per
// host in SQL with it, instead of reading every instance of the region and parsing its attributes; an
// index of the instances' hosts (both engines) lets that sum read the index alone.
import { type Kysely, type Migration, sql } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';

export function jsonExtract(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      if (engine === 'postgres') {
        await sql`create function json_extract(doc text, path text) returns text language sql immutable strict parallel safe as
          $$ select doc::jsonb #>> string_to_array(substring(path from 3), '.') $$`.execute(db);
      }
      await sql`create index cloud_resources_hosts on cloud_resources (client_id, region_id, (json_extract(attrs, '$.host')), vcpus, id)
        where kind = 'instance'`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop index cloud_resources_hosts`.execute(db);
      if (engine === 'postgres') await sql`drop function json_extract(text, text)`.execute(db);
    },
  };
}
