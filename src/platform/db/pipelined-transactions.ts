// A transaction's statements written to PostgreSQL together where their answers can wait: its BEGIN
// with its first statement, and the writes it ends with (a task's row) with its last statement and
// COMMIT. Each statement sent on its own is a round trip: a socket write, PostgreSQL's wake-up and a
// read, which on this project's 2-core machines cost the server about as much CPU as the statement (an
// instant-mode network create was six of them: bench/README.md, "PostgreSQL: a create's BEGIN and task
// row in the writes of its neighbours").
//
// The pool's connections are in node-postgres' pipeline mode, which writes a query without waiting for
// the answer to the one before it. Kysely still waits for each statement's answer before it sends the
// next (one connection, one statement at a time), so statements share a write only as arranged here:
// - BEGIN (the plain text, no values) is answered at once, as PostgreSQL answers it, and held; the next
//   query on the connection writes it and then itself. A BEGIN with options (an isolation level) is sent
//   as it comes.
// - a batch (`batched`): statements with their values, then a last simple query (the final statement and
//   COMMIT, final-statement.ts), written together.
// Each statement keeps its own Sync: one that fails aborts the transaction, and what follows it fails with
// "current transaction is aborted". The answer is the last statement's, or the first failure's error.
import { CompiledQuery } from 'kysely';
import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;
type Stream = { cork(): void; uncork(): void };

/** PostgreSQL's answer to BEGIN, as node-postgres gives it. */
function begun(): pg.QueryResult {
  return { command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] } as unknown as pg.QueryResult;
}

/** Statements sent ahead of a last one, in its write: the value the last one is given to carry them. */
class Ahead {
  constructor(readonly statements: readonly CompiledQuery[]) {}
}

/**
 * `last` (a simple query: no values) preceded by `ahead`, to run as one query on a connection of the
 * pool: their answers wait for the last one's, and the first failure is the query's error. Only for a
 * pooled connection (createPostgresPool); nothing else knows what to do with the batch.
 */
export function batched(ahead: readonly CompiledQuery[], last: string): CompiledQuery {
  return CompiledQuery.raw(last, ahead.length > 0 ? [new Ahead(ahead)] : []);
}

/** Whether a BEGIN waits on `client` for the next statement. */
const holding = new WeakMap<object, { begin: boolean }>();

/**
 * Makes `client` (in pipeline mode) hold a BEGIN until its next query, and write a batch together.
 * Applied once per connection, around what it already wraps (named statements).
 */
export function pipelineTransactions(client: pg.PoolClient | pg.Client): void {
  const query = client.query.bind(client) as Query;
  const state = { begin: false };
  holding.set(client, state);
  const stream = (client as unknown as { connection: { stream: Stream } }).connection.stream;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [config, values, callback] = args;
    const ahead = Array.isArray(values) && values.length === 1 && values[0] instanceof Ahead ? values[0].statements : undefined;
    const plain = typeof config === 'string' && callback === undefined && (values === undefined || (Array.isArray(values) && values.length === 0));
    if (plain && !state.begin && /^\s*begin\s*;?\s*$/i.test(config)) {
      state.begin = true;
      return Promise.resolve(begun());
    }
    if (!state.begin && !ahead) return query(...args);
    const before = [...(state.begin ? [['begin']] : []), ...(ahead ?? []).map((s) => [s.sql, [...s.parameters]])];
    state.begin = false;
    return written(stream, query, before, ahead ? [config] : args);
  };
}

/**
 * Sends `before` (texts with their values) and then `last` (a query's arguments) in one write. The answer
 * is `last`'s, unless one of `before` failed first: then that error.
 */
function written(stream: Stream, query: Query, before: unknown[][], last: unknown[]): unknown {
  stream.cork();
  const answers: Promise<unknown>[] = [];
  let answer: unknown;
  try {
    for (const args of before) answers.push(query(...args) as Promise<unknown>);
    answer = query(...last);
  } finally {
    stream.uncork();
  }
  for (const pending of answers) pending.catch(() => undefined);
  if (!(answer instanceof Promise)) {
    // A query with a callback or a query object reports its own outcome; a failure ahead of it comes with it.
    return answer;
  }
  answer.catch(() => undefined);
  return Promise.all(answers).then(() => answer);
}

/**
 * Forgets a BEGIN held on a connection going back to its pool: every transaction ends with COMMIT or
 * ROLLBACK, which writes it, so this only guards against a BEGIN sent by hand and never followed.
 */
export function forgetHeldBegin(client: object): void {
  const state = holding.get(client);
  if (state) state.begin = false;
}
