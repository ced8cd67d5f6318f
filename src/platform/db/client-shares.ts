// Each client's share of the pooled PostgreSQL connections. A transaction keeps its connection until it
// ends, and one that waits for a row (another session holds it: a `psql` transaction left open, a node
// paused in the middle of one) keeps it all that time. Without a share, a handful of one client's creates
// waiting on its quota row took every pooled connection, and every other client's writes waited for that
// row too. Here a client's transactions hold at most `most` connections at once (all but one of the pool);
// the client's next ones wait in its own queue, in order, and the others' find a connection.

/** Runs `work`, which holds one pooled connection while it runs (a transaction), within `clientId`'s share. */
export type AsClient = <T>(clientId: number, work: () => Promise<T>) => Promise<T>;

/** Where there is no pool to share (SQLite's one connection): the work runs as it comes. */
export const unshared: AsClient = (_clientId, work) => work();

interface Share {
  running: number;
  /** Each starts one waiting piece of work, which takes over the running slot of the one that ended. */
  waiting: (() => void)[];
}

export class ClientShares {
  private readonly shares = new Map<number, Share>();

  /** `most`: the connections one client's work may hold at once (at least one). */
  constructor(private readonly most: number) {}

  /** The share a pool of `size` connections gives each client: all but one, so another client always finds one. */
  static ofPool(size: number): ClientShares {
    return new ClientShares(Math.max(1, size - 1));
  }

  readonly run: AsClient = async (clientId, work) => {
    await this.enter(clientId);
    try {
      return await work();
    } finally {
      this.leave(clientId);
    }
  };

  /** Pieces of work running or waiting for `clientId` (for tests). */
  load(clientId: number): { running: number; waiting: number } {
    const share = this.shares.get(clientId);
    return { running: share?.running ?? 0, waiting: share?.waiting.length ?? 0 };
  }

  private enter(clientId: number): Promise<void> | void {
    let share = this.shares.get(clientId);
    if (!share) this.shares.set(clientId, (share = { running: 0, waiting: [] }));
    if (share.running < this.most) {
      share.running += 1;
      return;
    }
    const queue = share.waiting;
    return new Promise((start) => queue.push(start));
  }

  private leave(clientId: number): void {
    const share = this.shares.get(clientId)!;
    const next = share.waiting.shift();
    if (next) return next();
    share.running -= 1;
    // Clients come and go: an idle one keeps no entry.
    if (share.running === 0) this.shares.delete(clientId);
  }
}
