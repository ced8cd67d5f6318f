// The operator token that authorises the /_edgeplane control API: EDGEPLANE_ADMIN_TOKEN, or one generated
// at first start whose hash is kept in the database so it survives restarts.
import type { Kysely } from 'kysely';
import { hashSecret, randomSecret, sameHash } from '../platform/auth/credentials.js';
import type { OperatorVerifier } from '../platform/auth/plugin.js';

const SETTING = 'operator_token_hash';

export class OperatorToken implements OperatorVerifier {
  private constructor(private readonly hash: string) {}

  /** Loads (or on first start creates) the operator token; `generated` is set only when one was just made. */
  static async load(db: Kysely<any>, configured: string | undefined): Promise<{ operator: OperatorToken; generated?: string }> {
    if (configured) return { operator: new OperatorToken(hashSecret(configured)) };
    const row = await db.selectFrom('settings').select('value').where('key', '=', SETTING).executeTakeFirst();
    if (row) return { operator: new OperatorToken(String(row.value)) };
    const generated = `op_${randomSecret()}`;
    await db
      .insertInto('settings')
      .values({ key: SETTING, value: hashSecret(generated) })
      .execute();
    return { operator: new OperatorToken(hashSecret(generated)), generated };
  }

  isOperatorToken(token: string): boolean {
    return sameHash(hashSecret(token), this.hash);
  }
}
