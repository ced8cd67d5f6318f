// Unknown body fields: every modelled operation accepts (and drops) the fields it does not know wherever
// the reference leaves the object open, and refuses them where the reference declares the object closed
// (`additionalProperties: false`). Checked object by object: each object of a modelled route's body
// schema against the objects the reference's body schema has at the same place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogue } from '../../src/platform/catalogue/index.js';
import { operationKey } from '../../src/platform/http.js';
import { createTestApp, type TestApp } from '../support/app.js';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** Every object schema of a body, by the path of property names leading to it (`[]` for array items). */
function objectsByPath(schema: unknown, resolve: (node: Node) => Node, path = '', out = new Map<string, Node[]>(), depth = 0): Map<string, Node[]> {
  if (!isNode(schema) || depth > 12) return out;
  const node = resolve(schema);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of (node[key] as unknown[] | undefined) ?? []) objectsByPath(branch, resolve, path, out, depth + 1);
  if (node.items) objectsByPath(node.items, resolve, `${path}[]`, out, depth + 1);
  if (isNode(node.properties)) {
    (out.get(path) ?? out.set(path, []).get(path)!).push(node);
    for (const [name, child] of Object.entries(node.properties)) objectsByPath(child, resolve, path ? `${path}.${name}` : name, out, depth + 1);
  }
  return out;
}

const closedInReference = (nodes: Node[]) => nodes.length > 0 && nodes.every((n) => n.additionalProperties === false);
const closedHere = (nodes: Node[]) => nodes.some((n) => isNode(n.additionalProperties) && n.additionalProperties['x-closed'] === true);

describe('unknown body fields', () => {
  it('are refused exactly where the reference declares the object closed, and accepted everywhere else', () => {
    const catalogue = readCatalogue();
    const components = catalogue.components.schemas as Record<string, Node>;
    const resolveRef = (node: Node): Node => (typeof node.$ref === 'string' ? resolveRef(components[node.$ref.split('/').pop()!]) : node);
    const reference = new Map(catalogue.operations.map((op) => [operationKey(op.method, op.path), op]));
    const document = t.app.swagger() as unknown as { paths: Record<string, Record<string, Node>> };
    const mismatches: string[] = [];
    let compared = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation['x-edgeplane-implementation'] !== 'modelled') continue;
        const ours = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
        const op = reference.get(operationKey(method, path));
        const theirs = op?.requestBody?.content['application/json'];
        if (!ours || !theirs) continue;
        const here = objectsByPath(ours, (n) => n);
        const there = objectsByPath(theirs, resolveRef);
        for (const [where, nodes] of here) {
          if (!there.has(where)) continue;
          compared += 1;
          const wanted = closedInReference(there.get(where)!);
          if (closedHere(nodes) !== wanted)
            mismatches.push(`${method.toUpperCase()} ${path} body${where ? `.${where}` : ''}: ${wanted ? 'closed' : 'open'} in the reference`);
        }
      }
    }
    expect(compared).toBeGreaterThan(20);
    expect(mismatches).toEqual([]);
  });
});
