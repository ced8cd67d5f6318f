// Values shared between requests that nothing may change once made (cached records). Frozen all the way
// down, so a stray write throws in strict mode instead of leaking into the next request, and so the
// response serialiser can keep the JSON text of a frozen record (createSerializerCompiler).

/** Freezes a plain JSON-like value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
