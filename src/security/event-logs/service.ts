// DDoS event logs: the client's read-only view (list and detail) and the operator's ways to put records
// in (single, bulk, deterministic generator). Rules only: no SQL, no HTTP.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, bodyField, type FieldError, invalid, notFound, queryField } from '../../platform/errors.js';
import { generateEventLogs } from './generator.js';
import {
  ATTACK_ARRAYS,
  type AttackArrays,
  type EventLogDetail,
  type EventLogInput,
  type EventLogListQuery,
  type EventLogPage,
  type EventLogSummary,
  type GenerateRequest,
  type OrderField,
} from './schemas.js';
import type { EventLogRow, EventLogStore } from './store.js';

/** What the service needs to know about accounts (implemented by IAM's AccountService). */
export interface ClientDirectory {
  exists(clientId: number): Promise<boolean>;
}

const DAY_MS = 86_400_000;
// The provider's defaults (date_from 2024-01-23, date_to 2025-01-23) describe a one-year window; here it ends now.
const DEFAULT_WINDOW_MS = 365 * DAY_MS;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Reads a query date: a date-time (UTC when it has no zone) or a date (its first or, as an upper bound, last millisecond). */
export function parseQueryDate(name: string, value: string, upperBound: boolean): number {
  // A raw `+` in a query string arrives as a space: `...T03:04:05 00:00`.
  const text = value.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  let ms = Number.NaN;
  if (DATE_ONLY.test(text)) {
    ms = Date.parse(`${text}T00:00:00Z`);
    if (upperBound) ms += DAY_MS - 1;
  } else if (DATE_TIME.test(text)) {
    ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`);
  }
  if (Number.isNaN(ms)) throw invalid([queryField(name, 'Input should be a valid datetime or date', 'datetime_from_date_parsing')]);
  return ms;
}

export class EventLogService {
  constructor(
    private readonly store: EventLogStore,
    private readonly clock: Clock,
    private readonly clients: ClientDirectory,
  ) {}

  async list(principal: Principal, query: EventLogListQuery): Promise<EventLogPage> {
    const now = this.clock.now();
    const from = query.date_from === undefined ? now - DEFAULT_WINDOW_MS : parseQueryDate('date_from', query.date_from, false);
    const to = query.date_to === undefined ? now : parseQueryDate('date_to', query.date_to, true);
    const filter = { clientId: principal.clientId, from, to, alertType: query.alert_type, targetedIp: query.targeted_ip_addresses };
    const descending = query.ordering.startsWith('-');
    const order = { field: query.ordering.replace(/^-/, '') as OrderField, descending };
    const [count, rows] = await Promise.all([this.store.count(filter), this.store.list(filter, order, query.limit, query.offset)]);
    return { count, limit: query.limit, offset: query.offset, results: rows.map(toSummary) };
  }

  async get(principal: Principal, id: string): Promise<EventLogDetail> {
    const row = await this.store.get(principal.clientId, id.toLowerCase());
    if (!row) throw notFound('Event log');
    return toDetail(row);
  }

  /** Seeds one record; its id must be new. */
  async create(input: EventLogInput): Promise<EventLogDetail> {
    await this.checkClients([input], () => ['client_id']);
    const row = this.toRow(input);
    if ((await this.store.existingIds([row.id])).length > 0) throw new AppError('conflict', `Event log ${row.id} already exists`);
    await this.store.insertMany([row], false);
    return toDetail(row);
  }

  /** Seeds many records in one transaction: all or nothing. */
  async createMany(inputs: EventLogInput[]): Promise<{ created: number; ids: string[] }> {
    await this.checkClients(inputs, (i) => ['records', i, 'client_id']);
    const rows = inputs.map((input) => this.toRow(input));
    const ids = rows.map((r) => r.id);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i) ?? (await this.store.existingIds(ids))[0];
    if (duplicate) throw new AppError('conflict', `Event log ${duplicate} already exists`);
    await this.store.insertMany(rows, false);
    return { created: rows.length, ids };
  }

  /** Generates records deterministically; generating the same set again adds nothing. */
  async generate(request: GenerateRequest): Promise<{ created: number; ids: string[] }> {
    await this.checkClients([request], () => ['client_id']);
    const end = request.end === undefined ? this.clock.now() : Date.parse(request.end);
    const records = generateEventLogs({ clientId: request.client_id, count: request.count, seed: request.seed, end, days: request.days });
    const now = this.clock.now();
    const ids = await this.store.insertMany(
      records.map((r) => pickRow({ ...r, ...detailsColumn(r), created_at: now })),
      true,
    );
    return { created: ids.length, ids };
  }

  private async checkClients<T extends { client_id: number }>(inputs: T[], path: (i: number) => (string | number)[]): Promise<void> {
    const known = new Map<number, boolean>();
    const fields: FieldError[] = [];
    for (const [i, input] of inputs.entries()) {
      if (!known.has(input.client_id)) known.set(input.client_id, await this.clients.exists(input.client_id));
      if (!known.get(input.client_id)) fields.push(bodyField(path(i), `Client ${input.client_id} does not exist`));
    }
    if (fields.length > 0) throw invalid(fields);
  }

  private toRow(input: EventLogInput): EventLogRow {
    const arrays = Object.fromEntries(ATTACK_ARRAYS.map((name) => [name, input[name] ?? null])) as AttackArrays;
    return pickRow({
      id: (input.id ?? randomUUID()).toLowerCase(),
      client_id: input.client_id,
      alert_type: input.alert_type ?? null,
      notification_type: input.notification_type ?? null,
      attack_start_time: input.attack_start_time == null ? null : Date.parse(input.attack_start_time),
      attack_power_bps: input.attack_power_bps ?? null,
      attack_power_pps: input.attack_power_pps ?? null,
      number_of_ip_involved_in_attack: input.number_of_ip_involved_in_attack ?? null,
      targeted_ip_addresses: input.targeted_ip_addresses ?? null,
      ...detailsColumn(arrays),
      created_at: this.clock.now(),
    });
  }
}

function detailsColumn(arrays: AttackArrays): { attack_details: string } {
  return { attack_details: JSON.stringify(Object.fromEntries(ATTACK_ARRAYS.map((name) => [name, arrays[name]]))) };
}

/** Only the table's columns (generated records carry the arrays as properties too). */
function pickRow(row: EventLogRow): EventLogRow {
  return {
    id: row.id,
    client_id: row.client_id,
    alert_type: row.alert_type,
    notification_type: row.notification_type,
    attack_start_time: row.attack_start_time,
    attack_power_bps: row.attack_power_bps,
    attack_power_pps: row.attack_power_pps,
    number_of_ip_involved_in_attack: row.number_of_ip_involved_in_attack,
    targeted_ip_addresses: row.targeted_ip_addresses,
    attack_details: row.attack_details,
    created_at: row.created_at,
  };
}

function toSummary(row: Omit<EventLogRow, 'attack_details' | 'created_at'>): EventLogSummary {
  return {
    id: row.id,
    alert_type: row.alert_type as EventLogSummary['alert_type'],
    client_id: Number(row.client_id),
    notification_type: row.notification_type,
    attack_start_time: row.attack_start_time === null ? null : new Date(Number(row.attack_start_time)).toISOString(),
    attack_power_bps: row.attack_power_bps === null ? null : Number(row.attack_power_bps),
    attack_power_pps: row.attack_power_pps === null ? null : Number(row.attack_power_pps),
    number_of_ip_involved_in_attack: row.number_of_ip_involved_in_attack === null ? null : Number(row.number_of_ip_involved_in_attack),
    targeted_ip_addresses: row.targeted_ip_addresses,
  };
}

function toDetail(row: EventLogRow): EventLogDetail {
  const arrays = JSON.parse(row.attack_details) as AttackArrays;
  return { ...toSummary(row), ...arrays };
}
