// First start on an empty database: a demo account with one administrator token, so the API can be
// called right after `npm start`. On later starts, what became of EDGEPLANE_API_KEY, so the server
// can say so instead of leaving a 401 to be puzzled over.
import type { IamProduct } from './index.js';
import { UNKNOWN_TOKEN } from './tokens/service.js';

const DEMO = { email: 'demo@edgeplane.local', companyName: 'Edgeplane Demo', name: 'Demo Administrator' } as const;

export interface DemoAccount {
  clientId: number;
  /** The token, when this call created it (it is stored only as a hash and cannot be shown again). */
  token: string;
}

/** Gives the demo account's administrator a token: `apiKey` when given, else a random one. */
async function issueDemoToken(iam: IamProduct, account: { clientId: number; adminUserId: number }, apiKey: string | undefined, name: string): Promise<string> {
  const { token } = await iam.tokens.issue({
    clientId: account.clientId,
    userId: account.adminUserId,
    role: 'Administrators',
    name,
    description: apiKey ? 'From EDGEPLANE_API_KEY' : 'Created at first start',
    fixedToken: apiKey,
  });
  return token;
}

export async function ensureDemoAccount(iam: IamProduct, apiKey: string | undefined): Promise<DemoAccount | undefined> {
  if (!(await iam.accounts.isEmpty())) return undefined;
  const account = await iam.accounts.createAccount(DEMO);
  return { clientId: account.clientId, token: await issueDemoToken(iam, account, apiKey, 'demo') };
}

/** What EDGEPLANE_API_KEY amounts to on a database that already had accounts. */
export type ApiKeyOutcome =
  /** It is a working token of this client. */
  | { kind: 'valid'; clientId: number }
  /** --apply-api-key made it a token of the demo account (created for it when missing). */
  | { kind: 'applied'; clientId: number }
  /** It does not work here, and why. */
  | { kind: 'ignored'; problem: string };

/**
 * Checks EDGEPLANE_API_KEY against a database made by an earlier start (the demo account, with the token
 * printed then, already exists). With `apply`, a key that is not a token there becomes one of the demo
 * account's administrator; a key that was revoked or has expired stays so.
 */
export async function checkApiKey(iam: IamProduct, apiKey: string, apply: boolean): Promise<ApiKeyOutcome> {
  const before = await iam.tokens.verify(apiKey);
  if ('principal' in before) return { kind: 'valid', clientId: before.principal.clientId };
  if (!apply || before.problem !== UNKNOWN_TOKEN) return { kind: 'ignored', problem: before.problem };
  const account = (await iam.accounts.findAdministered(DEMO.email)) ?? (await iam.accounts.createAccount(DEMO));
  await issueDemoToken(iam, account, apiKey, 'EDGEPLANE_API_KEY');
  const after = await iam.tokens.verify(apiKey);
  return 'principal' in after ? { kind: 'applied', clientId: after.principal.clientId } : { kind: 'ignored', problem: after.problem };
}
