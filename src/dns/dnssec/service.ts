// DNSSEC of a zone: turning it on makes a signing key and its DS record; the status follows the parent
// zone. The "registrar" a DS record must reach is the parent zone itself: when the parent is hosted here
// (by any client, enabled) and holds a DS record matching the key, the parent DS is valid. Each read scans
// the parent again, so a DS added there through the API shows at the next read.
//   status: pending (on, no parent DS yet), active (on, parent DS valid), pending-disabled (turned off
//   while the parent still points at the key: the key stays published), disabled (off).
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../common/http.js';
import { parentOf, selfAndAncestors } from '../common/names.js';
import type { KeyRow, ZoneRow } from '../common/tables.js';
import { integerPart } from '../rrsets/content.js';
import type { AuthorityStore } from '../resolver/store.js';
import type { ZoneFinder } from '../zones/finder.js';
import { ALGORITHM_NAME, DIGEST_NAME, DIGEST_TYPE, dsDigest, generateKey } from './keys.js';
import type { KeyStore } from './store.js';

/** TTL written in the DS record text the API hands out. */
const DS_TTL = 3600;

export interface DsInfo {
  uuid: string;
  algorithm: string;
  key_type: string;
  flags: number;
  key_tag: number;
  public_key: string;
  digest: string;
  digest_type: string;
  digest_algorithm: string;
  ds: string;
}

export function dsInfo(zone: string, key: KeyRow): DsInfo {
  const digest = dsDigest(zone, key.flags, key.algorithm, key.public_key);
  return {
    uuid: key.uuid,
    algorithm: String(key.algorithm),
    key_type: ALGORITHM_NAME,
    flags: key.flags,
    key_tag: key.key_tag,
    public_key: key.public_key,
    digest,
    digest_type: String(DIGEST_TYPE),
    digest_algorithm: DIGEST_NAME,
    ds: `${zone}. ${DS_TTL} IN DS ${key.key_tag} ${key.algorithm} ${DIGEST_TYPE} ${digest}`,
  };
}

function statusOf(enabled: boolean, hasKey: boolean, parentDs: boolean, current: string): string {
  if (enabled) return parentDs ? 'active' : 'pending';
  if (!hasKey) return current === '' ? '' : 'disabled';
  return parentDs ? 'pending-disabled' : 'disabled';
}

export class DnssecService {
  constructor(
    private readonly finder: ZoneFinder,
    private readonly keys: KeyStore,
    private readonly authority: AuthorityStore,
    private readonly clock: Clock,
  ) {}

  /** The parent zone's name, and whether it holds a DS record for this zone's key. */
  async parentScan(zone: ZoneRow, key: KeyRow | undefined): Promise<{ parent: string; valid: boolean }> {
    const parent = await this.authority.zoneFor(selfAndAncestors(zone.name).slice(1));
    if (!parent) return { parent: parentOf(zone.name), valid: false };
    if (!key || parent.enabled !== 1) return { parent: parent.name, valid: false };
    const digest = dsDigest(zone.name, key.flags, key.algorithm, key.public_key);
    const sets = await this.authority.rrsetsAt(parent.id, [zone.name]);
    const valid = sets
      .filter((set) => set.type === 'DS')
      .some((set) =>
        set.records.some(
          ({ content: c }) =>
            integerPart(c[0], 65535) === key.key_tag &&
            integerPart(c[1], 255) === key.algorithm &&
            integerPart(c[2], 255) === DIGEST_TYPE &&
            String(c[3]).toUpperCase() === digest,
        ),
      );
    return { parent: parent.name, valid };
  }

  /** Brings the zone's stored DNSSEC status up to date with the parent; answers the zone as it now is. */
  async refresh(zone: ZoneRow): Promise<ZoneRow> {
    if (zone.dnssec_status === '' && zone.dnssec_enabled === 0) return zone;
    const key = await this.keys.find(zone.id);
    const { valid } = await this.parentScan(zone, key);
    const status = statusOf(zone.dnssec_enabled === 1, key !== undefined, valid, zone.dnssec_status);
    if (status === zone.dnssec_status) return zone;
    const now = this.clock.now();
    // Once the parent no longer points at a withdrawn key, the key itself goes.
    await this.keys.apply(zone, { enabled: zone.dnssec_enabled === 1, status, modifiedAt: now }, now, { drop: status === 'disabled' && key !== undefined });
    return { ...zone, dnssec_status: status, dnssec_status_modified_at: now };
  }

  async ds(principal: Principal, name: string): Promise<DsInfo> {
    const zone = await this.refresh(await this.finder.owned(principal, name));
    const key = await this.keys.find(zone.id);
    if (!key) throw badRequest(`DNSSEC is not enabled for zone ${zone.name}`);
    return dsInfo(zone.name, key);
  }

  async parentDs(principal: Principal, name: string): Promise<{ has_valid_parent_ds: boolean; parent_zone: string; scanned_at: string }> {
    const zone = await this.refresh(await this.finder.owned(principal, name));
    const scan = await this.parentScan(zone, await this.keys.find(zone.id));
    return { has_valid_parent_ds: scan.valid, parent_zone: scan.parent, scanned_at: new Date(this.clock.now()).toISOString() };
  }

  async toggle(
    principal: Principal,
    name: string,
    body: { enabled?: boolean; force_disable?: boolean } | undefined,
  ): Promise<Partial<DsInfo> & { message: string }> {
    if (typeof body?.enabled !== 'boolean') throw badRequest('enabled (true or false) is required');
    const zone = await this.finder.owned(principal, name);
    return body.enabled ? this.enable(zone) : this.disable(zone, body.force_disable === true);
  }

  private async enable(zone: ZoneRow): Promise<DsInfo & { message: string }> {
    const now = this.clock.now();
    let key = await this.keys.find(zone.id);
    let added: KeyRow | undefined;
    if (!key) {
      const made = generateKey();
      key = added = {
        zone_id: zone.id,
        client_id: zone.client_id,
        uuid: made.uuid,
        algorithm: made.algorithm,
        flags: made.flags,
        key_tag: made.keyTag,
        public_key: made.publicKey,
        private_key: made.privateKeyPem,
        created_at: now,
      };
    }
    const { valid } = await this.parentScan(zone, key);
    const status = statusOf(true, true, valid, zone.dnssec_status);
    await this.keys.apply(zone, { enabled: true, status, modifiedAt: status === zone.dnssec_status ? undefined : now }, now, { add: added });
    const message = valid
      ? 'DNSSEC is on and the parent zone holds the DS record'
      : 'DNSSEC is on: add the DS record to the parent zone (at the registrar) to complete it';
    return { ...dsInfo(zone.name, key), message };
  }

  private async disable(zone: ZoneRow, force: boolean): Promise<Partial<DsInfo> & { message: string }> {
    const now = this.clock.now();
    const key = await this.keys.find(zone.id);
    if (!key) {
      await this.keys.apply(zone, { enabled: false, status: statusOf(false, false, false, zone.dnssec_status) }, now);
      return { message: 'DNSSEC is off' };
    }
    const { valid } = await this.parentScan(zone, key);
    if (valid && !force) {
      await this.keys.apply(zone, { enabled: false, status: 'pending-disabled', modifiedAt: now }, now);
      return {
        ...dsInfo(zone.name, key),
        message:
          'DNSSEC is being turned off: remove the DS record from the parent zone; the key stays published until then (force_disable: true withdraws it now)',
      };
    }
    await this.keys.apply(zone, { enabled: false, status: 'disabled', modifiedAt: now }, now, { drop: true });
    return { message: 'DNSSEC is off and the zone key is withdrawn' };
  }
}
