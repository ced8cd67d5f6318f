// Two rules every cloud route follows, applied as the routes are added (every cloud operation ID starts
// with `cloud.`): input the schema refuses is a 400 in the cloud envelope, as the provider answers it;
// body fields the schema does not declare are accepted and dropped before the service sees them (newer
// clients send fields this server does not know, and the official client's `extra_body` adds more).
import type { FastifyInstance, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { FieldLocation } from '../../platform/errors.js';
import { ajvErrorsToFields } from '../../platform/validation.js';
import { badInput } from './errors.js';

const LOCATIONS: Record<string, FieldLocation> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function applyCloudRouteRules(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { operationId?: string; body?: TSchema } | undefined;
    if (!schema?.operationId?.startsWith('cloud.')) return;
    route.schemaErrorFormatter = (errors, dataVar) => badInput(ajvErrorsToFields(errors as never, LOCATIONS[dataVar] ?? 'body'));
    if (schema.body) addPreHandler(route, dropUndeclared(schema.body));
  });
}

/** Removes, in place, every body property the schema does not declare (validation has passed already). */
function dropUndeclared(body: TSchema): preHandlerHookHandler {
  return (request, _reply, done) => {
    if (request.body !== null && typeof request.body === 'object') request.body = Value.Clean(body, request.body);
    done();
  };
}

function addPreHandler(route: RouteOptions, handler: preHandlerHookHandler): void {
  const existing = route.preHandler;
  route.preHandler = existing === undefined ? [handler] : [...(Array.isArray(existing) ? existing : [existing]), handler];
}
