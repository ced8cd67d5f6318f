// WAAP: the request-event log moves from one row per event (four indexes, thirteen counter tables kept at
// ingestion) to blocks: per client and hour, the events column by column, one row per field group
// ("part"), with per-block counts in the block row (format version 1, encoded by the frozen copy in
// 008_waap_blocks_encoder.ts). Stored events are rewritten as blocks, then the event table and its
// counters are dropped.
//   waap_event_blocks  one row per block: client, hour, event count, first and last time, summary
//   waap_event_parts   the encoded field groups of a block
//   waap_event_ids     request id -> hour, per client: ids stay unique and details find their block
import { sql, type Kysely, type Migration } from 'kysely';
import type { Engine } from '../src/platform/db/index.js';
import { type BlockRow, encodeBlocks } from './008_waap_blocks_encoder.js';

const OLD_TABLES = [
  'waap_rollup_total',
  'waap_rollup_decision',
  'waap_rollup_geo',
  'waap_rollup_domain',
  'waap_rollup_status',
  'waap_rollup_prefix',
  'waap_stat_counters',
  'waap_traffic_counters',
  'waap_events',
];
const CHUNK = 20_000;

export function waapBlocks(engine: Engine): Migration {
  return {
    async up(db: Kysely<any>) {
      const blob = engine === 'postgres' ? 'bytea' : 'blob';
      let blocks = db.schema.createTable('waap_event_blocks');
      blocks =
        engine === 'postgres'
          ? blocks.addColumn('block_id', 'bigserial', (c) => c.primaryKey())
          : // AUTOINCREMENT: a deleted block's id is never given again (readers cache blocks by id).
            blocks.addColumn('block_id', 'integer', (c) => c.primaryKey().autoIncrement());
      await blocks
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addColumn('first_time', 'bigint', (c) => c.notNull())
        .addColumn('last_time', 'bigint', (c) => c.notNull())
        // Random per block: with the id, what a reader's cache is keyed by, so a block replaced under the
        // same id (a state import) is never served from an old cache entry.
        .addColumn('stamp', 'bigint', (c) => c.notNull())
        .addColumn('summary', 'text', (c) => c.notNull())
        .execute();
      // Reads walk a client's hours newest first; retention finds old hours across clients.
      await sql`create index waap_event_blocks_client_hour on waap_event_blocks (client_id, hour, block_id)`.execute(db);
      await sql`create index waap_event_blocks_hour on waap_event_blocks (hour)`.execute(db);

      await db.schema
        .createTable('waap_event_parts')
        .addColumn('block_id', 'bigint', (c) => c.notNull())
        .addColumn('part', 'integer', (c) => c.notNull())
        .addColumn('data', blob, (c) => c.notNull())
        .addPrimaryKeyConstraint('waap_event_parts_pk', ['block_id', 'part'])
        .execute();
      // Parts are encoded already: compressing them again would cost CPU on every write for little.
      if (engine === 'postgres') await sql`alter table waap_event_parts alter column data set storage external`.execute(db);

      let ids = db.schema
        .createTable('waap_event_ids')
        .addColumn('client_id', 'bigint', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('waap_event_ids_pk', ['client_id', 'id']);
      if (engine === 'sqlite') ids = ids.modifyEnd(sql`without rowid`);
      await ids.execute();

      await convertEvents(db);
      for (const table of OLD_TABLES) await db.schema.dropTable(table).execute();
    },
    async down() {
      throw new Error('008_waap_blocks cannot be undone: the event rows it replaced are gone');
    },
  };
}

/** Rewrites every stored event as blocks, a chunk at a time in (client, time, seq) order. */
async function convertEvents(db: Kysely<any>): Promise<void> {
  type Cursor = { client_id: number; request_time: number; seq: number };
  let after: Cursor | null = null;
  for (;;) {
    const cursor: Cursor | null = after;
    const page: { rows: OldEvent[] } = await sql<OldEvent>`select * from waap_events
      ${cursor ? sql`where (client_id, request_time, seq) > (${cursor.client_id}, ${cursor.request_time}, ${cursor.seq})` : sql``}
      order by client_id, request_time, seq limit ${CHUNK}`.execute(db);
    if (page.rows.length === 0) return;
    const rows = page.rows.map(fromOldRow);
    for (const block of encodeBlocks(rows)) {
      const stamp = Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);
      const inserted = await sql<{ block_id: number }>`insert into waap_event_blocks (client_id, hour, n, first_time, last_time, stamp, summary)
        values (${block.clientId}, ${block.hour}, ${block.n}, ${block.firstTime}, ${block.lastTime}, ${stamp}, ${block.summary}) returning block_id`.execute(
        db,
      );
      const blockId = Number(inserted.rows[0].block_id);
      await sql`insert into waap_event_parts (block_id, part, data) values ${sql.join(block.parts.map((data, part) => sql`(${blockId}, ${part}, ${data})`))}`.execute(
        db,
      );
    }
    for (let i = 0; i < rows.length; i += 2000) {
      const slice = rows.slice(i, i + 2000);
      await sql`insert into waap_event_ids (client_id, id, hour) values ${sql.join(slice.map((r) => sql`(${r.client_id}, ${r.id}, ${Math.floor(r.request_time / 3_600_000) * 3_600_000})`))}`.execute(
        db,
      );
    }
    const last: OldEvent = page.rows[page.rows.length - 1];
    after = { client_id: Number(last.client_id), request_time: Number(last.request_time), seq: Number(last.seq) };
    if (page.rows.length < CHUNK) return;
  }
}

interface OldEvent {
  seq: number;
  client_id: number;
  domain_id: number;
  domain: string;
  request_time: number;
  id: string;
  decision: string;
  optional_action: string;
  action: string;
  result: string;
  client_ip: string;
  country: string;
  method: string;
  path: string;
  status_code: number;
  rule_id: string;
  rule_name: string;
  reference_id: string;
  session_id: string;
  user_agent: string;
  user_agent_client: string;
  user_agent_device: string;
  organization: string;
  traffic_types: string;
  tags: string;
  scheme: string;
  http_version: string;
  ja3: string;
  ja4: string;
  extra: string;
}

/**
 * An event row of the old table as a block row. Its `extra` column was a positional JSON array: eight
 * user-agent fields, subnet, content type, response time, headers without a User-Agent that repeated the
 * user agent, whether it did (1), incident id, request type, session request count, requested domain (0:
 * the domain itself), query string, pattern-matched tags, common tags, detector.
 */
function fromOldRow(old: OldEvent): BlockRow {
  const v = JSON.parse(old.extra) as unknown[];
  const headers = v[11] as Record<string, string | null>;
  const repeated = v[12] === 1 ? { ...headers, 'user-agent': null } : headers;
  return {
    client_id: Number(old.client_id),
    request_time: Number(old.request_time),
    id: old.id,
    domain_id: Number(old.domain_id),
    domain: old.domain,
    decision: old.decision,
    optional_action: old.optional_action,
    action: old.action,
    result: old.result,
    client_ip: old.client_ip,
    country: old.country,
    method: old.method,
    path: old.path,
    status_code: Number(old.status_code),
    rule_id: old.rule_id,
    rule_name: old.rule_name,
    reference_id: old.reference_id,
    session_id: old.session_id,
    user_agent: old.user_agent,
    user_agent_client: old.user_agent_client,
    user_agent_device: old.user_agent_device,
    organization: old.organization,
    traffic_types: old.traffic_types,
    tags: old.tags,
    scheme: old.scheme,
    http_version: old.http_version,
    ja3: old.ja3,
    ja4: old.ja4,
    ua_client_version: v[0] as string,
    ua_base_browser: v[1] as string,
    ua_base_browser_version: v[2] as string,
    ua_os: v[3] as string,
    ua_device_type: v[4] as string,
    ua_cpu: v[5] as string,
    ua_rendering_engine: v[6] as string,
    ua_client_type: v[7] as string,
    subnet: v[8] as string,
    content_type: v[9] as string,
    response_time: v[10] as string,
    request_headers: JSON.stringify(repeated),
    incident_id: v[13] as string,
    request_type: v[14] as string,
    session_request_count: v[15] as string,
    requested_domain: v[16] === 0 ? old.domain : (v[16] as string),
    query_string: v[17] as string,
    pattern_matched_tags: JSON.stringify(v[18]),
    common_tags: JSON.stringify(v[19]),
    detector: JSON.stringify(v[20]),
  };
}
