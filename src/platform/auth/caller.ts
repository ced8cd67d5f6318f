// The caller of a product's service: the authenticated account and user (from the principal), the request
// that acts (its id names the tasks it starts) and the task failure a fault rule planned for it. The one
// caller type of every service that starts asynchronous work (cloud, the catalogue engine).
import type { FastifyRequest } from 'fastify';
import { principalOf } from './plugin.js';
import type { Principal } from './principal.js';

export interface Caller {
  clientId: number;
  userId: number;
  requestId: string;
  injectedFailure: string | null;
}

/** The caller of a request, as its principal (by default the authenticated one) acts in it. */
export function callerOf(request: FastifyRequest, principal: Principal = principalOf(request)): Caller {
  return { clientId: principal.clientId, userId: principal.userId, requestId: String(request.id), injectedFailure: request.injectedTaskFailure ?? null };
}
