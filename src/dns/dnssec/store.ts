// SQL for DNSSEC: a zone's key and its status columns. Publishing or withdrawing a key changes what the
// zone answers (its DNSKEY), so those writes bump the serial; a status change alone does not.
import type { Kysely } from 'kysely';
import { type DnsDb, type KeyRow, numbers, touchZone } from '../common/tables.js';
import type { AsClient } from '../../platform/db/client-shares.js';

export interface StatusChange {
  enabled: boolean;
  status: string;
  /** Set when the status itself changes. */
  modifiedAt?: number;
}

export class KeyStore {
  private readonly db: DnsDb;

  /** `asClient`: the client's share of the pooled connections its transactions run in (Database.asClient). */
  constructor(
    db: Kysely<any>,
    private readonly asClient: AsClient,
  ) {
    this.db = db as DnsDb;
  }

  async find(zoneId: number): Promise<KeyRow | undefined> {
    const row = await this.db.selectFrom('dns_dnssec_keys').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
    return row && numbers(row, ['zone_id', 'client_id', 'algorithm', 'flags', 'key_tag', 'created_at']);
  }

  /**
   * Applies a status change; `key` adds a key, `dropKey` removes the zone's key. A key added or removed
   * bumps the serial in the same transaction.
   */
  async apply(zone: { id: number; client_id: number }, change: StatusChange, now: number, keys: { add?: KeyRow; drop?: boolean } = {}): Promise<void> {
    await this.asClient(zone.client_id, () =>
      this.db.transaction().execute(async (trx) => {
        if (keys.add) await trx.insertInto('dns_dnssec_keys').values(keys.add).execute();
        if (keys.drop) await trx.deleteFrom('dns_dnssec_keys').where('zone_id', '=', zone.id).execute();
        const modified = change.modifiedAt === undefined ? {} : { dnssec_status_modified_at: change.modifiedAt };
        await trx
          .updateTable('dns_zones')
          .set({ dnssec_enabled: change.enabled ? 1 : 0, dnssec_status: change.status, ...modified })
          .where('id', '=', zone.id)
          .execute();
        if (keys.add || keys.drop) await touchZone(trx, zone.id, now);
      }),
    );
  }
}
