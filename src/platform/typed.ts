// Routes typed by their schemas: with the TypeBox type provider, a handler's `request.params`, `query`
// and `body` have the types of the route's TypeBox schemas, so no route casts what it receives.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from 'fastify';

/** The app as route modules register on it: request parts typed from each route's schemas. */
export function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

export type TypedApp = ReturnType<typeof typed>;

/**
 * What a handler of the typed app receives for a request part validated by schema `S`: `Static<S>`
 * wherever `S` is known. Route helpers generic over a schema type their services with this rather
 * than `Static<S>`: TypeScript cannot reduce the provider's `S extends TSchema ? Static<S> : unknown`
 * while `S` is a type parameter, so it relates a request part only to this same expression.
 */
export type Validated<S> = FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, { body: S }, TypeBoxTypeProvider>['body'];
