// Unknown body fields are accepted and dropped wherever the reference leaves an object open (newer
// clients send fields this server does not know). Validation has run first, so the value has the
// schema's shape; this walks schema and value together and keeps only what the schema declares.
// It reads JSON-schema keywords directly, because the option schemas are `type: ['object', 'null']`
// objects, which TypeBox's Value.Clean leaves untouched.

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Properties an object value may keep: those of the schema and of every object branch of a union. */
function declaredProperties(schema: Schema): Record<string, Schema> | undefined {
  const own = schema.properties as Record<string, Schema> | undefined;
  const branches = [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])].map(declaredProperties).filter((p) => p !== undefined);
  if (!own && branches.length === 0) return undefined;
  return Object.assign({}, ...branches, own);
}

/** Schema of the items of an array value (the array branch of a union, if any). */
function itemSchema(schema: Schema): Schema | undefined {
  if (isObject(schema.items)) return schema.items as Schema;
  for (const branch of [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])]) {
    const items = itemSchema(branch);
    if (items) return items;
  }
  return undefined;
}

/** A copy of `value` without the object properties `schema` does not declare. */
export function prune<T>(schema: unknown, value: T): T {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return (items ? value.map((item) => prune(items, item)) : value) as T;
  }
  if (!isObject(value)) return value;
  const properties = declaredProperties(schema);
  if (!properties) {
    // A map (record): every key is data; its values follow the map's value schema.
    const patterns = schema.patternProperties as Record<string, Schema> | undefined;
    const valueSchema = patterns ? Object.values(patterns)[0] : isObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
    return (valueSchema ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, prune(valueSchema, v)])) : value) as T;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key in properties) out[key] = prune(properties[key], item);
  }
  return out as T;
}
