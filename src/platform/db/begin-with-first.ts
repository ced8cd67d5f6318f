// A transaction's BEGIN, written to PostgreSQL together with the transaction's first statement. Sent on
// its own, BEGIN is a round trip that answers nothing: a socket write, PostgreSQL's wake-up and a read,
// which on this project's 2-core machines cost the server about as much CPU as a statement (an
// instant-mode network create is four such round trips with it, three without: bench/README.md,
// "PostgreSQL: BEGIN with the first statement").
//
// The pool's connections are in node-postgres' pipeline mode, which writes a query without waiting for
// the answer to the one before it. Kysely still waits for each statement's answer before it sends the
// next (one connection, one statement at a time), so the only statements in flight together are a held
// BEGIN and the statement it was held for. A BEGIN (the plain text, no values) is answered at once,
// as PostgreSQL answers it, and held; the next query on the connection writes it and then itself, in
// one write. Its answer is the statement's, unless BEGIN itself failed: then BEGIN's error (a lost
// connection fails both). A BEGIN with options (an isolation level) is sent as it comes.
import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;

/** PostgreSQL's answer to BEGIN, as node-postgres gives it. */
function begun(): pg.QueryResult {
  return { command: 'BEGIN', rowCount: null, oid: 0, rows: [], fields: [] } as unknown as pg.QueryResult;
}

/** What `client` holds: whether a BEGIN waits for the next statement. */
const holding = new WeakMap<object, { begin: boolean }>();

/**
 * Makes `client` (in pipeline mode) hold a BEGIN until its next query and write the two together.
 * Applied once per connection, around what it already wraps (named statements).
 */
export function beginWithFirstStatement(client: pg.PoolClient | pg.Client): void {
  const query = client.query.bind(client) as Query;
  const state = { begin: false };
  holding.set(client, state);
  const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [config, values, callback] = args;
    const plain = typeof config === 'string' && callback === undefined && (values === undefined || (Array.isArray(values) && values.length === 0));
    if (!state.begin) {
      if (plain && /^\s*begin\s*;?\s*$/i.test(config)) {
        state.begin = true;
        return Promise.resolve(begun());
      }
      return query(...args);
    }
    state.begin = false;
    // Both in one write: the stream buffers what the two queries write until uncorked.
    stream.cork();
    let beginning: Promise<unknown>;
    let statement: unknown;
    try {
      beginning = query('begin') as Promise<unknown>;
      statement = query(...args);
    } finally {
      stream.uncork();
    }
    if (!(statement instanceof Promise)) {
      // A query with a callback or a query object: it reports its own outcome; BEGIN's failure comes with it.
      beginning.catch(() => undefined);
      return statement;
    }
    statement.catch(() => undefined);
    return beginning.then(() => statement);
  };
}

/**
 * Forgets a BEGIN held on a connection going back to its pool: every transaction ends with COMMIT or
 * ROLLBACK, which writes it, so this only guards against a BEGIN sent by hand and never followed.
 */
export function forgetHeldBegin(client: object): void {
  const state = holding.get(client);
  if (state) state.begin = false;
}
