// PostgreSQL statements prepared once per connection. Kysely sends every query as an unnamed statement,
// which PostgreSQL parses and plans again at each run: for a cloud create's short statements that was
// more than their execution (parse 95-130 us, bind with planning 60-200 us a statement, on this project's
// 2-core machines, where the database shares the cores with the server). A statement sent with a name is
// parsed once per connection and, after a few runs, executed with its cached plan: PostgreSQL's CPU per
// network create fell by a quarter (bench/README.md).
//
// Only texts with parameters are named (BEGIN and COMMIT stay simple one-message queries), only from
// their second run (a text with literal values in it is usually run once), and a pool names at most
// `limit` texts (EDGEPLANE_DATABASE_STATEMENTS): the driver and each backend keep every named statement
// for the life of the connection. Texts past that go unnamed, as before; 0 names none, for a pooler
// that hands one client's statements to several server connections.
import type pg from 'pg';

/** Distinct texts a pool names by default; each connection prepares those it runs. */
export const MAX_NAMED = 400;
/** Texts counted while waiting for their second run; the oldest are forgotten first. */
const MAX_SEEN = 2_000;

/** The names a pool gives to the texts it sees (one per pool: names are unique per text). */
export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number = MAX_NAMED) {}

  /** The name of `text`, or undefined while it has been seen only once or when the pool names no more. */
  nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= this.limit) return name;
    if (!this.seen.delete(text)) {
      if (this.seen.size >= MAX_SEEN) this.seen.delete(this.seen.values().next().value as string);
      this.seen.add(text);
      return undefined;
    }
    const given = `edgeplane_${this.named.size + 1}`;
    this.named.set(text, given);
    return given;
  }

  get size(): number {
    return this.named.size;
  }
}

type Query = (...args: unknown[]) => unknown;

/**
 * Makes `client` send the queries Kysely and the stores make (a text and its values, no callback) as
 * named statements where `names` gives a name. Anything else (cursors, query objects, callbacks, texts
 * without values) goes through unchanged.
 */
export function nameStatements(client: pg.PoolClient | pg.Client, names: StatementNames): void {
  const query = client.query.bind(client) as Query;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const [config, values, callback] = args;
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = names.nameOf(config);
      if (name !== undefined) return query({ name, text: config, values });
    }
    return query(...args);
  };
}
