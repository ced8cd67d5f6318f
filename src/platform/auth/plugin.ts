// Authentication and authorisation for every route, before validation: a request without a valid token
// is a 401 whatever its body; a valid token without the right is a 403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { ExistenceCheck } from '../existence.js';
import { parseAuthorization } from './credentials.js';
import { type Access, isAllowed, OPERATOR, type Principal } from './principal.js';

export type Verification = { principal: Principal } | { problem: string };

export interface CredentialVerifier {
  /** A recent verification of this token, answered from memory, if the verifier has one. */
  cached(token: string): Verification | undefined;
  /** Resolves an API token (client or reseller kind) to its principal, or says why it is not valid. */
  verify(token: string): Promise<Verification>;
}

export interface OperatorVerifier {
  isOperatorToken(token: string): boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** What the route needs; by default GET needs `read` and other methods `write`. */
    access?: Access;
    /** The route acts on a client named in its path, which a reseller may do for its sub-clients. */
    onBehalf?: boolean;
    /** For a GET route of one record: how to tell whether it exists without a request (see ExistenceCheck). */
    exists?: ExistenceCheck;
  }
}

export function routeAccess(request: FastifyRequest): Access {
  const configured = request.facts.access;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

export function registerAuth(app: FastifyInstance, verifier: CredentialVerifier, operator: OperatorVerifier): void {
  app.decorateRequest('principal', null);
  const admit = (request: FastifyRequest, access: Access, result: Verification): AppError | undefined => {
    if ('problem' in result) return new AppError('unauthorized', result.problem);
    request.principal = result.principal;
    if (!isAllowed(result.principal, access, request.facts.onBehalf)) {
      return new AppError('forbidden', 'You do not have permission to perform this action.');
    }
    return undefined;
  };
  // Callback style with a synchronous fast path: a recently verified token costs one map lookup and no
  // promise; only a cache miss asks the operator check and the database.
  app.addHook('onRequest', (request, _reply, done) => {
    // Unknown routes answer 404 (or 405) without asking for credentials.
    if (request.facts.unmatched) return done();
    const access = routeAccess(request);
    if (access === 'public') return done();
    const parsed = parseAuthorization(request.headers.authorization);
    if ('problem' in parsed) return done(new AppError('unauthorized', parsed.problem));
    const cached = verifier.cached(parsed.token);
    if (cached) return done(admit(request, access, cached));
    if (operator.isOperatorToken(parsed.token)) return done(admit(request, access, { principal: OPERATOR }));
    verifier.verify(parsed.token).then((result) => done(admit(request, access, result)), done);
  });
}

/** The caller of an authenticated route (set by the auth hook). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'Authentication credentials were not provided.');
  return request.principal;
}
