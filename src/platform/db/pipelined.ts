// PostgreSQL statements outside transactions, pipelined: sent over a few shared connections without
// waiting for the answers of the statements before them, and the statements of one turn of the event loop
// written together. Most requests read with one statement outside any transaction (a task, a network, a
// project, a token). Sent one by one over pooled connections, each cost the server a socket write and a
// read of its own and PostgreSQL the wake-up of a backend, which on 2-core machines cost more than the
// statement: a task's GET took 150 us of server CPU, 87 us pipelined (bench/README.md, "PostgreSQL reads
// pipelined on shared connections").
//
// Transactions and `connection()` scopes (a session's advisory lock, BEGIN sent by hand) keep a pooled
// connection of their own: `pipedKysely` sends them to the pooled Kysely. Each statement of the pipe
// carries its own Sync, so one that fails fails alone, and its connection serves the next ones.
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

interface Line {
  client: pg.Client;
  ready: Promise<void>;
  connected: boolean;
  /** Lost or refused: replaced at the next statement. */
  dead: boolean;
  inFlight: number;
  corked: boolean;
}

/** Statements through `size` shared connections, each to the one with the fewest statements in flight. */
export class Pipe {
  private readonly lines: (Line | undefined)[];
  private ended = false;

  /** `open` makes a client in pipeline mode (not connected yet). */
  constructor(
    private readonly open: () => pg.Client,
    size: number,
  ) {
    this.lines = new Array<Line | undefined>(size).fill(undefined);
  }

  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    // pg-pool's own words after its end, which the error handler answers as a 503 like the pool's.
    if (this.ended) throw new Error('Cannot use a pool after calling end on the pool');
    // A transaction needs a connection of its own; one begun here would hold every statement behind it.
    if (/^\s*(begin|start\s+transaction)\b/i.test(text)) throw new Error('a transaction cannot run on the shared PostgreSQL connections');
    const line = this.pick();
    line.inFlight += 1;
    try {
      if (!line.connected) await line.ready;
      this.corkUntilNextTurn(line);
      return await (line.client.query as unknown as Query)(text, values);
    } catch (error) {
      // A FATAL error (the backend terminated, the server shutting down) comes before the socket closes:
      // statements sent in between would fail too.
      if ((error as { severity?: string }).severity === 'FATAL') line.dead = true;
      throw error;
    } finally {
      line.inFlight -= 1;
    }
  }

  async end(): Promise<void> {
    this.ended = true;
    await Promise.all(
      this.lines.map((line) =>
        line?.ready.then(
          () => line.client.end(),
          () => undefined,
        ),
      ),
    );
  }

  private pick(): Line {
    let chosen: Line | undefined;
    for (let i = 0; i < this.lines.length; i += 1) {
      let line = this.lines[i];
      if (!line || line.dead) this.lines[i] = line = this.connect();
      if (!chosen || line.inFlight < chosen.inFlight) chosen = line;
    }
    return chosen!;
  }

  private connect(): Line {
    const client = this.open();
    const line: Line = { client, ready: client.connect().then(() => undefined), connected: false, dead: false, inFlight: 0, corked: false };
    const drop = () => {
      line.dead = true;
    };
    // The statements in flight fail with the connection's error on their own (a 503); the next ones get a new connection.
    client.on('error', drop);
    client.on('end', drop);
    line.ready.then(() => {
      line.connected = true;
    }, drop);
    return line;
  }

  /** The statements written before the event loop's next turn leave in one write. */
  private corkUntilNextTurn(line: Line): void {
    if (line.corked) return;
    const stream = (line.client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection.stream;
    line.corked = true;
    stream.cork();
    setImmediate(() => {
      line.corked = false;
      stream.uncork();
    });
  }
}

/**
 * A Kysely whose statements outside transactions go through `pipe`, and whose transactions and
 * `connection()` scopes go to `pooled` (a Kysely on the pool).
 */
export function pipedKysely(pooled: Kysely<any>, pipe: Pipe): Kysely<any> {
  const facade = {
    connect: async () => ({ query: (text: string, values?: unknown[]) => pipe.query(text, values), release() {} }),
    end: () => pipe.end(),
  };
  const piped = new Kysely<any>({ dialect: new PostgresDialect({ pool: facade as unknown as pg.Pool }) });
  // Own properties over Kysely's methods: each runs on the pooled instance itself (Kysely keeps its state
  // in private fields), and a test can still spy on them.
  return Object.assign(piped, {
    transaction: pooled.transaction.bind(pooled),
    startTransaction: pooled.startTransaction.bind(pooled),
    connection: pooled.connection.bind(pooled),
  });
}
