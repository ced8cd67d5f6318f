// The fault hook runs after authentication, so a declared fault never hides a missing or wrong token, and
// never on /_edgeplane itself (a fault must not lock the test out of the control API that removes it) nor
// on the web console's files (the console is how a person removes it).
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathOf } from '../../platform/http.js';
import type { FaultService } from './service.js';

export const SCENARIO_HEADER = 'x-edgeplane-scenario';

export function scenarioOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[SCENARIO_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function registerFaultHook(app: FastifyInstance, faults: FaultService): void {
  const applyFault = async (request: FastifyRequest) => {
    const effect = faults.apply({
      method: request.method,
      path: pathOf(request.url),
      operationId: request.facts.operationId,
      scenario: scenarioOf(request.headers),
    });
    if (!effect) return;
    // Latency is the feature here: the caller must really wait, so this is a real timer.
    if (effect.latencyMs > 0) await sleep(effect.latencyMs);
    if (effect.taskError) request.injectedTaskFailure = effect.taskError;
    if (effect.error) throw effect.error;
  };
  // Callback style so that with no fault declared (the usual case) a request pays no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (faults.size === 0 || request.facts.unmatched || request.facts.control || request.facts.serverFiles || request.internal) return done();
    applyFault(request).then(() => done(), done);
  });
}
