// Queries whose SQL text does not depend on their values, built and compiled by Kysely once per dialect
// and then only given new values. Building a query (Kysely makes and freezes a node for every table,
// column and value) and compiling it was about a fifth of the CPU of a cloud create on SQLite
// (bench/README.md), for the same few statements each time: a task row's insert, a resource's insert and
// update, a project's read.
import { type Compilable, CompiledQuery, type Kysely, type QueryResult, type SelectQueryBuilder } from 'kysely';

/** Stands for a named value during the one compile of a template (no constant of a query starts with NUL). */
const MARK = '\u0000edgeplane-template:';

/** Where each parameter of the compiled query comes from: a named value, or a constant of the query. */
type Slot = { name: string } | { constant: unknown };

interface Compiled {
  sql: string;
  slots: Slot[];
}

/**
 * A query compiled once per dialect (SQLite, PostgreSQL): `build` makes it with a placeholder for each
 * named value; `execute` runs it with the values. The SQL must not depend on the values (no `in` list
 * of varying length, no value an expression): the values only fill its parameters.
 */
export class QueryTemplate<N extends string> {
  private readonly byDialect = new WeakMap<object, Compiled>();

  constructor(
    private readonly names: readonly N[],
    private readonly build: (db: Kysely<any>, values: Readonly<Record<N, string>>) => Compilable,
  ) {}

  execute<R = Record<string, unknown>>(db: Kysely<any>, values: Readonly<Record<N, unknown>>): Promise<QueryResult<R>> {
    return db.executeQuery<R>(this.compiled(db, values));
  }

  compiled(db: Kysely<any>, values: Readonly<Record<N, unknown>>): CompiledQuery {
    // By the adapter's class: one database's Kyselys (the pipe's and the pool's on PostgreSQL) each have an adapter of their own.
    const dialect = db.getExecutor().adapter.constructor;
    let compiled = this.byDialect.get(dialect);
    if (!compiled) this.byDialect.set(dialect, (compiled = this.compileOnce(db)));
    const parameters = compiled.slots.map((slot) => ('name' in slot ? values[slot.name as N] : slot.constant));
    return CompiledQuery.raw(compiled.sql, parameters);
  }

  private compileOnce(db: Kysely<any>): Compiled {
    const marks = Object.fromEntries(this.names.map((name) => [name, `${MARK}${name}`])) as Record<N, string>;
    const query = this.build(db, marks).compile();
    const slots = query.parameters.map((p): Slot => (typeof p === 'string' && p.startsWith(MARK) ? { name: p.slice(MARK.length) } : { constant: p }));
    const named = new Set(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])));
    const missing = this.names.filter((name) => !named.has(name));
    if (missing.length > 0) throw new Error(`query template: ${missing.join(', ')} did not become parameters of ${query.sql}`);
    return { sql: query.sql, slots };
  }
}

/** Whether a value is a query expression (`sql\`...\``, a subquery), which a template cannot take as a parameter. */
const isExpression = (value: unknown) => typeof value === 'object' && value !== null && 'toOperationNode' in value;

/** Templates by their shape (table and columns), made on first use; the code has a few dozen shapes. */
const MAX_SHAPES = 1_000;
const shapes = new Map<string, QueryTemplate<string>>();

/**
 * The template of one shape of a query, made by `build` the first time `key` is asked for: for queries
 * whose SQL varies with something other than values (the columns of a row, the length of an `in` list).
 */
export function templateOf(key: string, names: readonly string[], build: (db: Kysely<any>, values: Readonly<Record<string, string>>) => Compilable) {
  let template = shapes.get(key);
  if (!template) {
    template = new QueryTemplate(names, build);
    if (shapes.size < MAX_SHAPES) shapes.set(key, template);
  }
  return template;
}

/**
 * The names and values of an `in` list's items in a template (`region0`, `region1`...): templateOf keys
 * the template by the list's length, `build` maps the names to placeholders, `execute` takes the values.
 */
export function listed(prefix: string, items: readonly unknown[]): { names: string[]; values: Record<string, unknown> } {
  const names = items.map((_, i) => `${prefix}${i}`);
  return { names, values: Object.fromEntries(names.map((name, i) => [name, items[i]])) };
}

/** The columns a row sets (Kysely leaves out undefined values), or undefined when one is an expression. */
function columnsOf(row: Record<string, unknown>): string[] | undefined {
  const columns: string[] = [];
  for (const column in row) {
    const value = row[column];
    if (value === undefined) continue;
    if (isExpression(value)) return undefined;
    columns.push(column);
  }
  return columns;
}

/**
 * `insert into table (columns) values (...) [returning ...]` for one row, as Kysely's insertInto would
 * run it; a row with an expression as a value takes Kysely's usual way.
 */
export function insertRow<R = Record<string, unknown>>(
  db: Kysely<any>,
  table: string,
  record: object,
  returning: readonly string[] = [],
): Promise<QueryResult<R>> {
  return db.executeQuery<R>(insertRowQuery(db, table, record, returning));
}

/** insertRow's statement, compiled for `db`'s dialect, to run later (a transaction's last writes). */
export function insertRowQuery(db: Kysely<any>, table: string, record: object, returning: readonly string[] = []): CompiledQuery {
  const row = record as Record<string, unknown>;
  const columns = columnsOf(row);
  if (!columns) {
    const insert = db.insertInto(table).values(row);
    return (returning.length > 0 ? insert.returning(returning as string[]) : insert).compile();
  }
  const key = `insert\u0000${table}\u0000${columns.join(',')}\u0000${returning.join(',')}`;
  return templateOf(key, columns, (kysely, marks) => {
    const insert = kysely.insertInto(table).values(marks);
    return returning.length > 0 ? insert.returning(returning as string[]) : insert;
  }).compiled(db, row);
}

/**
 * `update table set (columns) where keyColumn = key`, as Kysely's updateTable would run it; values
 * with an expression take Kysely's usual way.
 */
export function updateRow(db: Kysely<any>, table: string, keyColumn: string, key: unknown, values: Record<string, unknown>): Promise<QueryResult<unknown>> {
  return db.executeQuery(updateRowQuery(db, table, keyColumn, key, values));
}

/** updateRow's statement, compiled for `db`'s dialect, to run later (a transaction's last writes). */
export function updateRowQuery(db: Kysely<any>, table: string, keyColumn: string, key: unknown, values: Record<string, unknown>): CompiledQuery {
  const columns = columnsOf(values);
  if (!columns || columns.length === 0) return db.updateTable(table).set(values).where(keyColumn, '=', key).compile();
  const whereName = `\u0000key:${keyColumn}`;
  const template = templateOf(`update\u0000${table}\u0000${keyColumn}\u0000${columns.join(',')}`, [...columns, whereName], (kysely, marks) =>
    kysely
      .updateTable(table)
      .set(Object.fromEntries(columns.map((column) => [column, marks[column]])))
      .where(keyColumn, '=', marks[whereName]),
  );
  return template.compiled(db, { ...values, [whereName]: key });
}

/**
 * `select * from table where column = value and ... [order by orderBy]`, compiled once per table, columns
 * and order: the reads by client and id that most requests make, without Kysely building them each time.
 */
export async function selectRows<R>(db: Kysely<any>, table: string, equal: Record<string, unknown>, orderBy?: string): Promise<R[]> {
  const columns = Object.keys(equal);
  const template = templateOf(`select\u0000${table}\u0000${columns.join(',')}\u0000${orderBy ?? ''}`, columns, (kysely, marks) => {
    const query = whereEqual(kysely.selectFrom(table).selectAll(), columns, marks);
    return orderBy ? query.orderBy(orderBy) : query;
  });
  return (await template.execute<R>(db, equal)).rows;
}

/** `select count(*) from table where column = value and ...`, compiled once per table and columns. */
export async function countRows(db: Kysely<any>, table: string, equal: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(equal);
  const template = templateOf(`count\u0000${table}\u0000${columns.join(',')}`, columns, (kysely, marks) =>
    whereEqual(
      kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')),
      columns,
      marks,
    ),
  );
  const { rows } = await template.execute<{ n: number | string }>(db, equal);
  return Number(rows[0].n);
}

/** `query` with `column = placeholder` for each column (the placeholders of a template's one compile). */
function whereEqual<Q extends SelectQueryBuilder<any, any, any>>(query: Q, columns: readonly string[], marks: Readonly<Record<string, string>>): Q {
  let filtered = query;
  for (const column of columns) filtered = filtered.where(column, '=', marks[column]) as Q;
  return filtered;
}
