// Authentication and authorisation for every route, before validation: a request without a valid token
// is a 401 whatever its body; a valid token without the right is a 403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
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
  }
}

export function routeAccess(request: FastifyRequest): Access {
  const configured = request.routeOptions.config?.access;
  if (configured) return configured;
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

export function registerAuth(app: FastifyInstance, verifier: CredentialVerifier, operator: OperatorVerifier): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    // Unknown routes answer 404 (or 405) without asking for credentials.
    if (request.is404) return;
    const access = routeAccess(request);
    if (access === 'public') return;
    const parsed = parseAuthorization(request.headers.authorization);
    if ('problem' in parsed) throw new AppError('unauthorized', parsed.problem);
    // Recently verified API tokens first: the common case costs one map lookup.
    const result = verifier.cached(parsed.token) ?? (operator.isOperatorToken(parsed.token) ? { principal: OPERATOR } : await verifier.verify(parsed.token));
    if ('problem' in result) throw new AppError('unauthorized', result.problem);
    request.principal = result.principal;
    if (!isAllowed(request.principal, access, request.routeOptions.config?.onBehalf === true)) {
      throw new AppError('forbidden', 'You do not have permission to perform this action.');
    }
  });
}

/** The caller of an authenticated route (set by the auth hook). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'Authentication credentials were not provided.');
  return request.principal;
}
