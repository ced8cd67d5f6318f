// A batch of events as the log takes it: columns, not objects. Every text field is a dictionary of the
// batch's distinct values and one code per event; the client and the request time are plain numbers.
// Encoding narrows the dictionaries to each block (encode.ts). Ingestion fills a batch from the
// dictionaries its parsing thread sends with each piece, so a value repeated across events is copied
// between threads and looked up once per piece, not once per event, and no event becomes an object on
// the main thread.
import { type EventRow, type FieldName, INTEGER_FIELDS, TEXT_FIELDS } from './format.js';

type Column<T> = Record<FieldName, T>;
const perField = <T>(make: (field: FieldName) => T): Column<T> => Object.fromEntries(TEXT_FIELDS.map((f) => [f, make(f)])) as Column<T>;

/**
 * One reader per field: `row[field]` with a varying field name is a megamorphic property load, a
 * measurable share of filling a batch from rows; a function per field keeps each load monomorphic.
 */
const READERS = perField((f) => new Function('row', `return row.${f};`) as (row: EventRow) => string | number);

export class EventBatch {
  /** Events filled so far (the arrays below hold `capacity`). */
  n = 0;
  clientIds: Float64Array;
  /** Request times, epoch ms. */
  times: Float64Array;
  /** Per field, its distinct values in the order first met, as text (integers in decimal). */
  readonly values: Column<string[]> = perField(() => []);
  /** Per field, each event's index into `values`. */
  readonly codes: Column<Uint32Array>;
  /** Changes when the arrays are replaced by larger ones (see reserve): what holds one of them takes it again. */
  layout = 0;
  private readonly seen: Column<Map<unknown, number>> = perField(() => new Map());

  /** Room for `capacity` events; `reserve` makes more. */
  constructor(private capacity: number) {
    this.clientIds = new Float64Array(capacity);
    this.times = new Float64Array(capacity);
    this.codes = perField(() => new Uint32Array(capacity));
  }

  /** Makes room for one more event (the arrays double when full). */
  reserve(): void {
    if (this.n < this.capacity) return;
    this.capacity = Math.max(16, 2 * this.capacity);
    const larger = <T extends Float64Array | Uint32Array>(old: T, make: (size: number) => T): T => {
      const array = make(this.capacity);
      array.set(old);
      return array;
    };
    this.clientIds = larger(this.clientIds, (size) => new Float64Array(size));
    this.times = larger(this.times, (size) => new Float64Array(size));
    for (const field of TEXT_FIELDS) this.codes[field] = larger(this.codes[field], (size) => new Uint32Array(size));
    this.layout += 1;
  }

  /** The code of `value` in `field`'s dictionary, added when new. */
  code(field: FieldName, value: string | number): number {
    const seen = this.seen[field];
    let code = seen.get(value);
    if (code === undefined) {
      code = this.values[field].length;
      seen.set(value, code);
      this.values[field].push(typeof value === 'number' ? String(value) : value);
    }
    return code;
  }

  /** A new entry of `field` holding `value`, without looking for an equal one: for values known to differ (request ids). */
  unique(field: FieldName, value: string): number {
    return this.values[field].push(value) - 1;
  }

  /** Event i's request id. */
  id(i: number): string {
    return this.values.id[this.codes.id[i]];
  }

  /** Event i as a row (integer fields as numbers, the rest as the text the log stores). */
  row(i: number): EventRow {
    const row = { client_id: this.clientIds[i], request_time: this.times[i] } as Record<string, unknown>;
    for (const field of TEXT_FIELDS) {
      const text = this.values[field][this.codes[field][i]];
      row[field] = INTEGER_FIELDS.has(field) ? Number(text) : text;
    }
    return row as unknown as EventRow;
  }

  /** Rows as a batch. Request ids are taken as distinct (the log refuses a repeated one before storing). */
  static ofRows(rows: readonly EventRow[]): EventBatch {
    const batch = new EventBatch(rows.length);
    for (let i = 0; i < rows.length; i += 1) {
      batch.clientIds[i] = rows[i].client_id;
      batch.times[i] = rows[i].request_time;
    }
    for (const field of TEXT_FIELDS) batch.fillColumn(rows, field);
    batch.n = rows.length;
    return batch;
  }

  private fillColumn(rows: readonly EventRow[], field: FieldName): void {
    const codes = this.codes[field];
    const read = READERS[field];
    if (field === 'id') {
      for (let i = 0; i < rows.length; i += 1) codes[i] = this.unique(field, read(rows[i]) as string);
      return;
    }
    // Neighbouring rows (one client and hour, one session) often repeat a value: comparing with the last
    // one spares hashing it, which for strings fresh from JSON.parse is most of a lookup's cost.
    let last: string | number | undefined;
    let lastCode = -1;
    for (let i = 0; i < rows.length; i += 1) {
      const value = read(rows[i]);
      if (value !== last) {
        last = value;
        lastCode = this.code(field, value);
      }
      codes[i] = lastCode;
    }
  }
}
