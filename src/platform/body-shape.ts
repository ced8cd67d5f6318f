// What of a request body its route declares, and the pruning of what it does not. The provider's API
// ignores fields it does not know, and so do the routes here: a route reads the fields its schema names.
// Undeclared members are dropped before validation, so nothing downstream (validation, copying, storing)
// walks them: a 1 MB body of 130,000 objects in a field no route reads cost the main thread about 30 ms.
// Pure, without imports: the thread that checks large bodies (json-body-thread.ts) runs it too.

/**
 * The members a schema declares, as far as they can be known without validating: an object's named
 * properties (`open`: whether members it does not name stay, as under `additionalProperties: true` or a
 * schema), or an array's items. `null`: anything below is kept as sent.
 */
export type BodyShape = { keys: Record<string, BodyShape | null>; open: boolean } | { items: BodyShape };

type SchemaNode = Record<string, unknown>;

// Keywords under which which members count is the validator's decision (a union picks a form, `not` and
// `if` judge the whole, counts and name patterns look at every member): nothing below them is pruned.
const UNDECIDED = [
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'if',
  '$ref',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'minProperties',
  'maxProperties',
  'prefixItems',
  'contains',
];

const isNode = (value: unknown): value is SchemaNode => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The shape a body schema declares; null when it leaves everything to validation. */
export function bodyShape(schema: unknown): BodyShape | null {
  if (!isNode(schema) || UNDECIDED.some((keyword) => Object.hasOwn(schema, keyword))) return null;
  if (schema.type === 'object' && isNode(schema.properties)) return objectShape(schema, schema.properties);
  if (schema.type === 'array' && isNode(schema.items)) {
    const items = bodyShape(schema.items);
    return items && { items };
  }
  return null;
}

function objectShape(schema: SchemaNode, properties: SchemaNode): BodyShape | null {
  const extra = schema.additionalProperties;
  // Unset (TypeBox's default) or false: members not named are dropped (Ajv drops them under false too).
  const open = extra !== undefined && extra !== false;
  const keys: Record<string, BodyShape | null> = {};
  let prunes = !open;
  for (const [name, property] of Object.entries(properties)) {
    const shape = bodyShape(property);
    keys[name] = shape;
    if (shape) prunes = true;
  }
  // A required member the properties do not name stays, so its absence is still reported.
  if (Array.isArray(schema.required)) for (const name of schema.required) if (typeof name === 'string' && !Object.hasOwn(keys, name)) keys[name] = null;
  return prunes ? { keys, open } : null;
}

/** Drops from `value`, in place, the members `shape` does not declare; whether any was dropped. */
export function pruneUndeclared(value: unknown, shape: BodyShape): boolean {
  if (value === null || typeof value !== 'object') return false;
  if ('items' in shape) {
    if (!Array.isArray(value)) return false;
    let dropped = false;
    for (const item of value) if (pruneUndeclared(item, shape.items)) dropped = true;
    return dropped;
  }
  // Anything but a plain object is the validator's to refuse.
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const record = value as Record<string, unknown>;
  let dropped = false;
  for (const name of Object.keys(record)) {
    // Own keys only: a shape crosses to a thread as a plain object, whose prototype has `toString`.
    if (!Object.hasOwn(shape.keys, name)) {
      if (shape.open) continue;
      delete record[name];
      dropped = true;
      continue;
    }
    const below = shape.keys[name];
    if (below && pruneUndeclared(record[name], below)) dropped = true;
  }
  return dropped;
}
