// Small TypeBox builders used by every product's schemas.
import { Type, type TSchema, type TUnsafe, type TSchemaOptions } from 'typebox';

/** A string limited to a list of values, as a plain JSON-schema `enum` (clear errors, typed union). */
export function StringEnum<const T extends readonly string[]>(values: T, options: TSchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An integer limited to a list of values. */
export function IntegerEnum<const T extends readonly number[]>(values: T, options: TSchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'integer', enum: [...values], ...options });
}

/** `T | null`. */
export function Nullable<T extends TSchema>(schema: T, options: TSchemaOptions = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** The standard error body schema used in route `response` maps: any JSON object. */
export const ErrorBody = Type.Object({}, { additionalProperties: true, description: "Error in the product's error envelope" });

/** Date-time text as the APIs print it. */
export const DateTimeString = Type.String({ format: 'date-time' });

/**
 * A field the API returns but does not accept (the seed's read-only fields): refused by name, while other
 * unknown fields of an object are accepted and dropped. Give it as an optional property.
 */
export function ReadOnlyField(options: TSchemaOptions = {}) {
  return Type.Unsafe<never>({ not: {}, 'x-read-only': true, ...options });
}

/**
 * What an object with `additionalProperties: false` does with fields it does not know: request bodies drop
 * them (newer clients send fields this server does not know; the reference leaves almost every object
 * open). `CLOSED` refuses them instead, for the few objects the reference declares closed.
 */
export const CLOSED = { additionalProperties: Type.Unsafe<never>({ not: {}, 'x-closed': true }) } as const;
