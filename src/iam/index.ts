// The IAM product: accounts, users and API tokens. Its services are also what authenticates every
// request (TokenService is the credential verifier) and what the control API seeds accounts with.
import { nestedFieldMapEnvelope } from '../platform/envelopes.js';
import type { PlatformDeps, Product } from '../platform/product.js';
import { accountRoutes } from './account/routes.js';
import { AccountService } from './account/service.js';
import { AccountStore } from './account/store.js';
import { tokenRoutes } from './tokens/routes.js';
import { TokenService } from './tokens/service.js';
import { TokenStore } from './tokens/store.js';
import { userRoutes } from './users/routes.js';
import { UserService } from './users/service.js';
import { UserStore } from './users/store.js';

// The demo account of a first start (and the API key it may be given), for the server and the control API.
export { type ApiKeyOutcome, checkApiKey, type DemoAccount, ensureDemoAccount } from './bootstrap.js';

export interface IamProduct extends Product {
  accounts: AccountService;
  tokens: TokenService;
}

export function createIam({ db, clock }: PlatformDeps): IamProduct {
  const accounts = new AccountService(new AccountStore(db.kysely), clock);
  const tokens = new TokenService(new TokenStore(db.kysely, db.asClient), accounts, clock);
  const users = new UserService(new UserStore(db.kysely), accounts, clock);
  return {
    name: 'iam',
    prefixes: ['/iam'],
    envelope: nestedFieldMapEnvelope,
    tags: [{ name: 'IAM', description: 'Accounts, users and API tokens' }],
    accounts,
    tokens,
    register(app) {
      accountRoutes(app, accounts);
      tokenRoutes(app, tokens);
      userRoutes(app, users);
    },
  };
}
