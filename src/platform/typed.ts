// Routes typed by their schemas: with the TypeBox type provider, a handler's `request.params`, `query`
// and `body` have the types of the route's TypeBox schemas, so no route casts what it receives.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

/** The app as route modules register on it: request parts typed from each route's schemas. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

export type TypedApp = ReturnType<typeof typed>;
