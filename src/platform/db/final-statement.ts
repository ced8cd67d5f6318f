// A transaction whose last statement travels with its COMMIT. A check that locks a row until the commit
// (a client's quota, cloud/quotas) holds it, as a statement of its own, over its round trip, the wait of
// its answer for a turn of a busy event loop, then the COMMIT's round trip; every other transaction that
// needs the row waits that long. Sent as one simple query with the COMMIT ("<statement>; commit"), the
// row is held only while PostgreSQL runs the two: when the statement fails, PostgreSQL runs nothing after
// it in the message, and the transaction is rolled back. A simple query has no parameters: the statement
// carries its values as literals (sqlLiteral) there. Anywhere else (SQLite, or a check that is not the
// transaction's last) it runs as a statement with parameters, prepared once per connection.
import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './index.js';
import { batched } from './pipelined-transactions.js';

/** A statement a transaction may end with: one that fails when the check it makes fails. */
export interface FinalStatement {
  /** The statement with its values as parameters: how it runs anywhere but with a COMMIT (prepared once per connection). */
  query: RawBuilder<unknown>;
  /** The same statement, its values written in (sqlLiteral, sqlNumber): how it goes with a COMMIT on PostgreSQL. */
  text: string;
  /** The error the statement's own failure means; undefined for any other error (passed on as it is). */
  failure(error: unknown): Error | undefined;
}

/** `text` as a PostgreSQL string literal, read the same whatever `standard_conforming_strings` says. */
export function sqlLiteral(text: string): string {
  if (text.includes('\0')) throw new Error('a SQL literal cannot hold a NUL character');
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** `value` written into a statement, once checked to be a finite number. */
export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`not a finite number for a SQL statement: ${value}`);
  return String(value);
}

/** Runs `statement` in `trx` on its own, its failure named. */
export function runStatement(trx: Kysely<any>, statement: FinalStatement): Promise<void> {
  return named(statement, statement.query.execute(trx));
}

async function named(statement: FinalStatement, running: Promise<unknown>): Promise<void> {
  try {
    await running;
  } catch (error) {
    throw statement.failure(error) ?? error;
  }
}

/**
 * The writes each transaction transactionEndingWith runs has left for its end (writeAtEnd), by the
 * transaction's Kysely object: one of Kysely's on SQLite, a connection scope on PostgreSQL, which Kysely
 * does not call a transaction. What is kept for the length of a transaction (the rows a create inserted,
 * cloud/common/resource-store.ts) asks isTransaction below.
 */
const writesAtEnd = new WeakMap<Kysely<any>, CompiledQuery[]>();

/** Whether `db` runs its statements in a transaction: one of Kysely's, or one transactionEndingWith began. */
export function isTransaction(db: Kysely<any>): boolean {
  return db.isTransaction || writesAtEnd.has(db);
}

/**
 * Runs `write` (a statement that changes rows, whose answer nobody reads) at the end of `trx`, just before
 * its last statement and COMMIT, when transactionEndingWith runs `trx`: on PostgreSQL in the same socket
 * write as those, and as the transaction's first statement's. Until then SQL in the transaction reads the
 * rows as they were before it: for a transaction's last writes. In any other transaction (or none) it
 * runs now. Its failure fails the transaction.
 */
export async function writeAtEnd(trx: Kysely<any>, write: CompiledQuery): Promise<void> {
  const pending = writesAtEnd.get(trx);
  if (pending) pending.push(write);
  else await trx.executeQuery(write);
}

/** Runs now, in order, the writes left for the end of `trx` (before something that must see them). */
export async function writeLeftWrites(trx: Kysely<any>): Promise<void> {
  const pending = writesAtEnd.get(trx);
  if (pending) for (const write of pending.splice(0)) await trx.executeQuery(write);
}

/** How a transaction ends: after the work, the writes left for the end, then the statement, then the COMMIT. */
export interface TransactionEnding<T> {
  value: T;
  /** The statement that runs last, whose failure fails the transaction (a quota check). */
  last?: FinalStatement;
}

/**
 * Runs `work` in a transaction, then the writes it left for the end (writeAtEnd) and the statement it
 * returns as `last` (if any), then commits. On PostgreSQL, the writes, the statement and the COMMIT leave
 * in one socket write, the statement and the COMMIT in one message (pipelined-transactions.ts); when the
 * work itself ran no statement, BEGIN goes with them too. A failure anywhere rolls everything back and is
 * thrown (the statement's own as its `failure` names it).
 */
export async function transactionEndingWith<T>(db: Database, work: (trx: Kysely<any>) => Promise<TransactionEnding<T>>): Promise<T> {
  if (db.engine !== 'postgres') {
    return db.kysely.transaction().execute(async (trx) => {
      writesAtEnd.set(trx, []);
      try {
        const { value, last } = await work(trx);
        await writeLeftWrites(trx);
        if (last) await runStatement(trx, last);
        return value;
      } finally {
        writesAtEnd.delete(trx);
      }
    });
  }
  return db.kysely.connection().execute(async (connection) => {
    await sql`begin`.execute(connection);
    writesAtEnd.set(connection, []);
    try {
      const { value, last } = await work(connection);
      const ahead = writesAtEnd.get(connection)!.splice(0);
      const ending = connection.executeQuery(batched(ahead, last ? `${last.text};\ncommit` : 'commit'));
      if (last) await named(last, ending);
      else await ending;
      return value;
    } catch (error) {
      // After a failed COMMIT (or a statement that failed before it) the transaction is over or aborted:
      // ROLLBACK ends it either way, and its own failure (a lost connection) adds nothing to the first.
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    } finally {
      writesAtEnd.delete(connection);
    }
  });
}
