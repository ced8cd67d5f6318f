// How many socket writes a PostgreSQL pool's connections make: what a statement sent on its own costs
// (a round trip and a backend's wake-up), counted where the driver hands its bytes to the socket.
import type pg from 'pg';

/** Counts, from now on, the socket writes of each connection `pool` hands out. */
export function countPoolWrites(pool: pg.Pool): { writes: number } {
  const counter = { writes: 0 };
  pool.on('acquire', (client) => {
    const stream = (client as unknown as { connection: { stream: Record<string, (...args: unknown[]) => unknown> } }).connection.stream;
    for (const method of ['_write', '_writev'] as const) {
      const original = stream[method];
      // A connection handed out again is counted once: its methods are wrapped already.
      if (!original || (original as { counted?: boolean }).counted) continue;
      const counted = (...args: unknown[]) => {
        counter.writes += 1;
        return original.apply(stream, args);
      };
      (counted as { counted?: boolean }).counted = true;
      stream[method] = counted;
    }
  });
  return counter;
}
