// First start on an empty database: a demo account with one administrator token, so the API can be
// called right after `npm start`.
import type { IamProduct } from './index.js';

export interface DemoAccount {
  clientId: number;
  /** The token, when this call created it (it is stored only as a hash and cannot be shown again). */
  token: string;
}

export async function ensureDemoAccount(iam: IamProduct, apiKey: string | undefined): Promise<DemoAccount | undefined> {
  if (!(await iam.accounts.isEmpty())) return undefined;
  const { clientId, adminUserId } = await iam.accounts.createAccount({
    email: 'demo@edgeplane.local',
    companyName: 'Edgeplane Demo',
    name: 'Demo Administrator',
  });
  const { token } = await iam.tokens.issue({
    clientId,
    userId: adminUserId,
    role: 'Administrators',
    name: 'demo',
    description: 'Created at first start',
    fixedToken: apiKey,
  });
  return { clientId, token };
}
