// Objects of one shape sent between threads as coded columns. A message is copied (structured clone) on
// both sides, and the copy of an object repeats every key and builds it property by property; a column is
// one array. Values also repeat: within 1,000 WAAP event rows (48 fields), about one value in ten is
// distinct. Each column is therefore sent as its distinct values plus one integer code per object, and
// the receiver can take a value it has already seen once per piece instead of once per object.

/**
 * Objects as coded columns: object i's value of `fields[f]` is `values[f][codes[f][i]]`, or `values[f][i]`
 * where `codes[f]` is null (a column of mostly distinct values is sent as it is).
 */
export interface CodedColumns {
  fields: string[];
  /** Per field, its distinct values in the order first met (compared with ===), or every object's value. */
  values: unknown[][];
  codes: (Uint32Array | null)[];
  count: number;
}

/** One field of coded columns: its distinct values and each object's code, or each object's value (codes null). */
export interface CodedColumn {
  values: unknown[];
  codes: Uint32Array | null;
}

/** Object i's value in a coded column. */
export const valueAt = (column: CodedColumn, i: number): unknown => (column.codes ? column.values[column.codes[i]] : column.values[i]);

type Reader = (objects: readonly object[], columns: unknown[][]) => void;
const compiled = new Map<string, Reader>();

/**
 * The reader for a list of fields, compiled once: it names every field in its code, so V8 reads them as
 * properties of one shape, where a loop over the field names (`values[name]`) took 13% of the thread's
 * time in a profile.
 */
function readerFor(fields: string[]): Reader {
  const key = fields.join(',');
  let found = compiled.get(key);
  if (!found) {
    // Field names become code: only plain identifiers are accepted.
    for (const field of fields) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field)) throw new Error(`not a field name: ${JSON.stringify(field)}`);
    found = new Function(
      'o',
      'c',
      `for (let i = 0; i < o.length; i += 1) { const x = o[i]; ${fields.map((field, f) => `c[${f}][i] = x.${field};`).join(' ')} }`,
    ) as Reader;
    compiled.set(key, found);
  }
  return found;
}

/** Objects that all have the same keys, in the same order (the first one's are taken), as coded columns. */
export function toCodedColumns(objects: readonly object[]): CodedColumns {
  const fields = objects.length > 0 ? Object.keys(objects[0]) : [];
  const plain = fields.map(() => new Array<unknown>(objects.length));
  if (objects.length > 0) readerFor(fields)(objects, plain);
  const values: unknown[][] = [];
  const codes: (Uint32Array | null)[] = [];
  for (const column of plain) {
    const coded = codeColumn(column);
    values.push(coded.values);
    codes.push(coded.codes);
  }
  return { fields, values, codes, count: objects.length };
}

/** While a column has at most this many distinct values, a value is found by comparing it with each: hashing a string costs more. */
const SCAN_VALUES = 8;
/** Objects after which a column holding more distinct values than half of them is sent as it is: a dictionary would save nothing. */
const PLAIN_AFTER = 64;

function codeColumn(column: unknown[]): { values: unknown[]; codes: Uint32Array | null } {
  const codes = new Uint32Array(column.length);
  const values: unknown[] = [];
  let index: Map<unknown, number> | undefined;
  // Neighbouring objects often repeat a value: comparing with the last one spares looking it up.
  let last: unknown = {};
  let lastCode = -1;
  for (let i = 0; i < column.length; i += 1) {
    if (i === PLAIN_AFTER && 2 * values.length > i) return { values: column, codes: null };
    const value = column[i];
    if (value !== last) {
      last = value;
      if (index) {
        let code = index.get(value);
        if (code === undefined) {
          code = values.push(value) - 1;
          index.set(value, code);
        }
        lastCode = code;
      } else {
        lastCode = values.indexOf(value);
        if (lastCode < 0) lastCode = values.push(value) - 1;
        if (values.length > SCAN_VALUES) index = new Map(values.map((v, k) => [v, k]));
      }
    }
    codes[i] = lastCode;
  }
  return { values, codes };
}

/** The objects again (tests): each made as a plain object of the fields. */
export function fromCodedColumns(columns: CodedColumns): Record<string, unknown>[] {
  return Array.from({ length: columns.count }, (_, i) =>
    Object.fromEntries(columns.fields.map((field, f) => [field, valueAt({ values: columns.values[f], codes: columns.codes[f] }, i)])),
  );
}
