// Two rules every cloud route follows, applied as the routes are added (every cloud operation ID starts
// with `cloud.`): input the schema refuses is a 400 in the cloud envelope, as the provider answers it;
// body fields the schema does not declare are accepted and dropped before the service sees them (newer
// clients send fields this server does not know, and the official client's `extra_body` adds more).
import type { FastifyInstance, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { Memory, Settings } from 'typebox/system';
import {
  Array as ArrayOf,
  ArrayOptions,
  Intersect,
  IsArray,
  IsBoolean,
  IsInteger,
  IsIntersect,
  IsLiteral,
  IsNull,
  IsNumber,
  IsObject,
  IsRecord,
  IsString,
  IsTuple,
  IsUnion,
  Object as ObjectOf,
  Priority,
  Record as RecordOf,
  RecordPattern,
  RecordValue,
  String as StringOf,
  Tuple,
  Union,
} from 'typebox/type';
import { Value } from 'typebox/value';
import type { FieldLocation } from '../../platform/errors.js';
import { ajvErrorsToFields } from '../../platform/validation.js';
import { badInput } from './errors.js';

const LOCATIONS: Record<string, FieldLocation> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function applyCloudRouteRules(app: FastifyInstance): void {
  // Value.Clean orders every union's variants narrowest first before it cleans, and does so on each
  // call by rebuilding the whole schema: 860 us of a 870 us clean of the instance create body. Each
  // body schema is ordered once instead, when its route is added (withUnionsSorted), and Clean's own
  // ordering is turned off. The setting is TypeBox's, for the process: it governs Clean, Decode and
  // Encode, and Clean here is this server's only use of them.
  Settings.Set({ unionPrioritySort: false });
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { operationId?: string; body?: TSchema } | undefined;
    if (!schema?.operationId?.startsWith('cloud.')) return;
    route.schemaErrorFormatter = (errors, dataVar) => badInput(ajvErrorsToFields(errors as never, LOCATIONS[dataVar] ?? 'body'));
    if (schema.body) addPreHandler(route, dropUndeclared(schema.body));
  });
}

/** Removes, in place, every body property the schema does not declare (validation has passed already). */
function dropUndeclared(body: TSchema): preHandlerHookHandler {
  const sorted = withUnionsSorted(body);
  return (request, _reply, done) => {
    if (request.body !== null && typeof request.body === 'object') request.body = Value.Clean(sorted, request.body);
    done();
  };
}

function addPreHandler(route: RouteOptions, handler: preHandlerHookHandler): void {
  const existing = route.preHandler;
  route.preHandler = existing === undefined ? [handler] : [...(Array.isArray(existing) ? existing : [existing]), handler];
}

/**
 * The schema with the variants of every union in it ordered narrowest first (TypeBox's Priority), as
 * Value.Clean orders them before each call when its `unionPrioritySort` setting is on: the same walk
 * as TypeBox's, made once per schema. Only the parts holding a union whose order matters are rebuilt
 * (see orderMatters): most unions are a type or null, and ordering and copying every schema whole was
 * about 30 ms of the server's start-up.
 */
export function withUnionsSorted(type: TSchema): TSchema {
  if (!holdsOrderedUnion(type)) return type;
  const next = IsArray(type)
    ? ArrayOf(withUnionsSorted(type.items), ArrayOptions(type))
    : IsIntersect(type)
      ? Intersect(type.allOf.map(withUnionsSorted))
      : IsUnion(type)
        ? Union((orderMatters(type.anyOf) ? Priority(type.anyOf) : type.anyOf).map(withUnionsSorted))
        : IsObject(type)
          ? ObjectOf(Object.fromEntries(Object.entries(type.properties).map(([key, value]) => [key, withUnionsSorted(value)])))
          : IsRecord(type)
            ? RecordOf(StringOf({ pattern: RecordPattern(type) }), withUnionsSorted(RecordValue(type)))
            : IsTuple(type)
              ? Tuple(type.items.map(withUnionsSorted))
              : type;
  return Memory.Assign(type, next);
}

/** Whether the schema has, at any depth withUnionsSorted walks, a union whose order matters. */
function holdsOrderedUnion(type: TSchema): boolean {
  return IsArray(type)
    ? holdsOrderedUnion(type.items)
    : IsIntersect(type)
      ? type.allOf.some(holdsOrderedUnion)
      : IsUnion(type)
        ? orderMatters(type.anyOf) || type.anyOf.some(holdsOrderedUnion)
        : IsObject(type)
          ? Object.values(type.properties).some(holdsOrderedUnion)
          : IsRecord(type)
            ? holdsOrderedUnion(RecordValue(type))
            : IsTuple(type)
              ? (type.items ?? []).some(holdsOrderedUnion)
              : false;
}

/** Kinds Clean gives back as they are, and that no object or array passes. */
const isScalar = (type: TSchema) => IsString(type) || IsNumber(type) || IsInteger(type) || IsBoolean(type) || IsNull(type) || IsLiteral(type);

/**
 * Whether the order of a union's variants can change what Clean keeps. Clean takes the first variant
 * that the value, cleaned by it, passes. A scalar variant is passed only by a scalar, which every
 * variant gives back unchanged; so with at most one variant that is not a scalar, every order keeps the
 * same value.
 */
function orderMatters(variants: readonly TSchema[]): boolean {
  return variants.filter((variant) => !isScalar(variant)).length > 1;
}
