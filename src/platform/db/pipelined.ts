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
//
// A connection answers its statements in order: one that waits (for a row another transaction has
// locked, or a long read) holds every statement written after it on the same connection. A connection
// that has answered nothing for `heldUpMs` while statements wait on it is held up, and takes no more; when
// every shared connection is held up, statements go to the pool (queued there while its connections are
// all taken, as transactions are). The reads already written behind the waiting statement are asked of
// the pool too, and answered by whichever answers first. One client's waiting statement then costs the
// others' reads about `heldUpMs`, not its whole wait; a write written behind it still waits its turn.
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';

type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

/**
 * How long a shared connection may answer nothing while statements wait on it before the next statements
 * go elsewhere. Longer than the pauses of a busy event loop (a full collection, a large answer
 * serialised), which delay reading answers that have come: those send statements to the pool for nothing.
 */
export const HELD_UP_MS = 20;

/** A statement written to a shared connection and not answered yet. */
interface Waiting {
  text: string;
  values: unknown[] | undefined;
  /** Answers the caller, from the connection or from the pool, whichever answers first. */
  resolve: (result: pg.QueryResult) => void;
  /** Asked of the pool too, its connection being held up. */
  resent: boolean;
}

interface Line {
  client: pg.Client;
  ready: Promise<void>;
  connected: boolean;
  /** Lost or refused: replaced at the next statement. */
  dead: boolean;
  /** In the order they were written, which is the order of their answers. */
  waiting: Waiting[];
  /** performance.now() of the last answer, or of the statement that found the connection idle. */
  progressAt: number;
  corked: boolean;
}

// A statement that changes nothing and takes no lock, so asking it again on another connection is safe: a
// select without a row lock, a sequence or a function of migrations/ that locks (the quota functions).
const SELECT = /^\s*select\b/i;
const NOT_ONLY_A_READ = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b|\b(nextval|setval|pg_(try_)?advisory_\w+|cloud_quota_\w+)\s*\(/i;
export const isRead = (text: string) => SELECT.test(text) && !NOT_ONLY_A_READ.test(text);

/**
 * Statements through `size` shared connections, each to the one with the fewest statements in flight
 * among those not held up; to `overflow` when all are. The reads written behind a statement that holds
 * its connection up are asked of `overflow` too, and answered by whichever answers first.
 */
export class Pipe {
  private readonly lines: (Line | undefined)[];
  private ended = false;
  /** Looks for held-up connections while statements wait. */
  private watching: NodeJS.Timeout | undefined;

  /** `open` makes a client in pipeline mode (not connected yet). */
  constructor(
    private readonly open: () => pg.Client,
    size: number,
    /** Where statements go when every shared connection is held up: the pool. */
    private readonly overflow: Query,
    private readonly heldUpMs = HELD_UP_MS,
  ) {
    this.lines = new Array<Line | undefined>(size).fill(undefined);
  }

  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    // pg-pool's own words after its end, which the error handler answers as a 503 like the pool's.
    if (this.ended) throw new Error('Cannot use a pool after calling end on the pool');
    // A transaction needs a connection of its own; one begun here would hold every statement behind it.
    if (/^\s*(begin|start\s+transaction)\b/i.test(text)) throw new Error('a transaction cannot run on the shared PostgreSQL connections');
    const now = performance.now();
    const line = this.pick(now);
    if (!line) return this.overflow(text, values);
    if (line.waiting.length === 0) line.progressAt = now;
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const waiting: Waiting = { text, values, resolve, resent: false };
      line.waiting.push(waiting);
      this.watch();
      this.send(line, waiting).then(resolve, reject);
    });
  }

  private async send(line: Line, waiting: Waiting): Promise<pg.QueryResult> {
    try {
      if (!line.connected) await line.ready;
      this.corkUntilNextTurn(line);
      return await (line.client.query as unknown as Query)(waiting.text, waiting.values);
    } catch (error) {
      // A FATAL error (the backend terminated, the server shutting down) comes before the socket closes:
      // statements sent in between would fail too.
      if ((error as { severity?: string }).severity === 'FATAL') line.dead = true;
      throw error;
    } finally {
      line.waiting.splice(line.waiting.indexOf(waiting), 1);
      line.progressAt = performance.now();
    }
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = setTimeout(
      () => {
        this.watching = undefined;
        this.resendHeldUpReads();
      },
      Math.max(1, this.heldUpMs / 2),
    ).unref();
  }

  /**
   * On each held-up connection, the reads behind its first statement (the one that waits) are asked of
   * the pool. A write stays where it was written: sent twice, it would run twice.
   */
  private resendHeldUpReads(): void {
    const now = performance.now();
    let busy = false;
    for (const line of this.lines) {
      if (!line || line.waiting.length === 0) continue;
      busy = true;
      if (!this.isHeldUp(line, now)) continue;
      for (let i = 1; i < line.waiting.length; i += 1) {
        const waiting = line.waiting[i];
        if (waiting.resent || !isRead(waiting.text)) continue;
        waiting.resent = true;
        // A failure there leaves the connection's own answer to come.
        this.overflow(waiting.text, waiting.values).then(waiting.resolve, () => undefined);
      }
    }
    if (busy) this.watch();
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

  /** Statements wait on it and it has answered nothing for `heldUpMs`. */
  private isHeldUp(line: Line, now: number): boolean {
    return line.waiting.length > 0 && now - line.progressAt >= this.heldUpMs;
  }

  /** The connection with the fewest statements in flight among those not held up; undefined when all are. */
  private pick(now: number): Line | undefined {
    let chosen: Line | undefined;
    for (let i = 0; i < this.lines.length; i += 1) {
      let line = this.lines[i];
      if (!line || line.dead) this.lines[i] = line = this.connect();
      if (this.isHeldUp(line, now)) continue;
      if (!chosen || line.waiting.length < chosen.waiting.length) chosen = line;
    }
    return chosen;
  }

  private connect(): Line {
    const client = this.open();
    const line: Line = {
      client,
      ready: client.connect().then(() => undefined),
      connected: false,
      dead: false,
      waiting: [],
      progressAt: performance.now(),
      corked: false,
    };
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
