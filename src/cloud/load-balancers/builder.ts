// The rows a create writes below a balancer: listeners (with their default pool when the balancer's
// create gives one), pools, their members and monitor. Every rule is checked before anything is written;
// refusals name the field where the request put it (`listeners.0.pools.0.members.1.address`).
import { Static } from 'typebox';
import { AppError, type FieldError } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import { listenerMisfits, monitorMisfits, poolMisfits, poolProtocolMisfit, transportOf, type MonitorFields, type PoolFields } from './checks.js';
import type { ListenerProtocol } from './enums.js';
import type { ListenerInput } from './listener-schemas.js';
import type { LbPlacement, Reach } from './placement.js';
import type { MemberInput, MonitorInput, PoolCreateBody } from './pool-schemas.js';
import { listenerAttrs, memberAttrs, monitorAttrs, pendingChild, poolAttrs, type ListenerAttrs } from './records.js';
import type { NestedListener } from './schemas.js';

type Path = (string | number)[];
type MemberKey = { address: string; protocol_port: number };
type PoolInput = Omit<Static<typeof PoolCreateBody>, 'load_balancer_id' | 'listener_id'>;

/** Listeners a balancer holds at most (a PROMETHEUS listener does not count). */
export const MAX_LISTENERS = 50;

export class LbBuilder {
  constructor(private readonly placement: LbPlacement) {}

  /** The listeners of a balancer's create, each with its default pool: pure checks first, all at once. */
  async listeners(scope: Scope, reach: Reach, listeners: Static<typeof NestedListener>[], now: number): Promise<ResourceRow[]> {
    const misfits: FieldError[] = [];
    listeners.forEach((l, i) => misfits.push(...this.listenerChecks(l, ['listeners', i], listeners.slice(0, i))));
    if (listeners.filter((l) => l.protocol !== 'PROMETHEUS').length > MAX_LISTENERS)
      misfits.push(bodyField(['listeners'], `a balancer holds ${MAX_LISTENERS} listeners at most (PROMETHEUS aside)`));
    if (misfits.length > 0) throw badInput(misfits);
    const rows: ResourceRow[] = [];
    for (const [i, l] of listeners.entries()) {
      const listener = this.listenerRow(scope, reach.lbId, l, now + rows.length);
      rows.push(listener);
      for (const [j, pool] of (l.pools ?? []).entries())
        rows.push(...(await this.pool(scope, reach, listener.id, pool, ['listeners', i, 'pools', j], now + rows.length)));
    }
    return rows;
  }

  /** Checks of one listener alone and against those before it in the same request. */
  private listenerChecks(l: Static<typeof NestedListener>, at: Path, earlier: { protocol: ListenerProtocol; protocol_port: number }[]): FieldError[] {
    const out = listenerMisfits(l, at);
    if (earlier.some((e) => transportOf(e.protocol) === transportOf(l.protocol) && e.protocol_port === l.protocol_port))
      out.push(bodyField([...at, 'protocol_port'], `port ${l.protocol_port}/${transportOf(l.protocol)} is taken by an earlier listener of the request`));
    for (const [j, pool] of (l.pools ?? []).entries()) {
      const where = [...at, 'pools', j];
      out.push(...poolProtocolMisfit(l.protocol, pool.protocol, [...where, 'protocol']), ...this.poolChecks(pool, where));
    }
    return out;
  }

  listenerRow(scope: Scope, lbId: string, l: Static<typeof ListenerInput>, now: number): ResourceRow {
    return pendingChild(scope, 'lb_listener', l.name, listenerAttrs(l), now, { parent_id: lbId });
  }

  /** A listener may not take a port of its transport another listener of the balancer has (409). */
  requireFreePort(listeners: ResourceRow[], protocol: ListenerProtocol, port: number): void {
    const taken = listeners.find(
      (r) => transportOf(attrsOf<ListenerAttrs>(r).protocol) === transportOf(protocol) && attrsOf<ListenerAttrs>(r).protocol_port === port,
    );
    if (taken)
      throw new AppError(
        'conflict',
        `Port ${port}/${transportOf(protocol)} of the balancer is taken by listener ${taken.id} (${attrsOf<ListenerAttrs>(taken).protocol})`,
      );
  }

  /** The pure checks of a pool, its monitor and its members (placement is checked when its rows are made). */
  poolChecks(p: PoolFields & { healthmonitor?: MonitorFields | null; members?: MemberKey[] }, at: Path): FieldError[] {
    const out = poolMisfits(p, at);
    if (p.healthmonitor) out.push(...monitorMisfits(p.healthmonitor, p.protocol, [...at, 'healthmonitor']));
    out.push(...this.duplicateMembers(p.members ?? [], [...at, 'members']));
    return out;
  }

  duplicateMembers(members: MemberKey[], at: Path, existing: MemberKey[] = []): FieldError[] {
    const seen = new Set(existing.map((m) => `${m.address}:${m.protocol_port}`));
    const out: FieldError[] = [];
    members.forEach((m, i) => {
      const key = `${m.address}:${m.protocol_port}`;
      if (seen.has(key)) out.push(bodyField([...at, i], `${key} is a member of the pool already`));
      seen.add(key);
    });
    return out;
  }

  /** A pool's rows: the pool, its monitor, its members (each placed on a subnet the balancer reaches). */
  async pool(scope: Scope, reach: Reach, listenerId: string | null, p: PoolInput, at: Path, now: number): Promise<ResourceRow[]> {
    const pool = pendingChild(scope, 'lb_pool', p.name, poolAttrs(p), now, { parent_id: reach.lbId, owner_id: listenerId });
    const rows = [pool];
    if (p.healthmonitor) rows.push(this.monitorRow(scope, pool.id, p.healthmonitor, now));
    rows.push(...(await this.members(scope, reach, pool.id, p.members ?? [], [...at, 'members'], now)));
    return rows;
  }

  monitorRow(scope: Scope, poolId: string, m: Static<typeof MonitorInput>, now: number): ResourceRow {
    return pendingChild(scope, 'lb_healthmonitor', `${m.type.toLowerCase()}-monitor`, monitorAttrs(m), now, { parent_id: poolId });
  }

  async members(scope: Scope, reach: Reach, poolId: string, members: Static<typeof MemberInput>[], at: Path, now: number): Promise<ResourceRow[]> {
    const rows: ResourceRow[] = [];
    for (const [i, m] of members.entries()) rows.push(await this.member(scope, reach, poolId, m, [...at, i], now + i));
    return rows;
  }

  /** A member's row, once the balancer is known to reach its address. */
  async member(scope: Scope, reach: Reach, poolId: string, m: Static<typeof MemberInput>, at: Path, now: number): Promise<ResourceRow> {
    const subnetId = await this.placement.member(scope, reach, m, at);
    return pendingChild(scope, 'lb_member', `${m.address}:${m.protocol_port}`, memberAttrs(m, subnetId), now, { parent_id: poolId });
  }
}
