// Another PostgreSQL session on a database's schema, as a `psql` session or another node would be: what
// tests hold rows with while the server works.
import pg from 'pg';
import type { Database } from '../../src/platform/db/index.js';

export async function otherSession(db: Pick<Database, 'connection'>): Promise<pg.Client> {
  const { postgresUrl, schema } = db.connection as { postgresUrl: string; schema: string };
  const session = new pg.Client({ connectionString: postgresUrl, options: `-c search_path="${schema}"` });
  await session.connect();
  return session;
}
