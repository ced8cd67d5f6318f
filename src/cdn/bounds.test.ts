// Every string a CDN operation accepts has a maximum length, and every list a maximum size: read from the
// server's own OpenAPI document, so a field added without a bound fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../tests/support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

type Node = Record<string, unknown>;

function unbounded(node: unknown, path: string, out: string[], depth = 0): string[] {
  if (!node || typeof node !== 'object' || depth > 20) return out;
  const schema = node as Node;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string') && schema.enum === undefined && schema.const === undefined && schema.maxLength === undefined) out.push(path);
  if (types.includes('array') && schema.maxItems === undefined && !(schema.uniqueItems && (schema.items as Node)?.enum)) out.push(`${path}[]`);
  if (types.includes('object') && schema.patternProperties && schema.maxProperties === undefined) out.push(`${path}{}`);
  for (const [key, child] of Object.entries(schema)) {
    if (key === 'properties' || key === 'patternProperties')
      for (const [name, sub] of Object.entries(child as Node)) unbounded(sub, `${path}.${name}`, out, depth + 1);
    else if (key === 'items' || key === 'propertyNames') unbounded(child, `${path}[]`, out, depth + 1);
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') (child as unknown[]).forEach((branch) => unbounded(branch, path, out, depth + 1));
  }
  return out;
}

describe('bounds of CDN input', () => {
  it('every string and list of every CDN body and query has a maximum', async () => {
    const doc = (await t.request('GET', '/openapi.json')).json();
    const found: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Node>>)) {
      for (const [method, op] of Object.entries(item)) {
        const id = String(op.operationId ?? '');
        if (!/^(cdn\.|control\.cdn\.)/.test(id) || id.startsWith('cdn.advancedAnalytics')) continue;
        operations += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema;
        unbounded(body, `${where} body`, found);
        for (const parameter of (op.parameters as { in: string; name: string; schema: unknown }[] | undefined) ?? []) {
          if (parameter.in === 'query') unbounded(parameter.schema, `${where} query.${parameter.name}`, found);
        }
      }
    }
    expect(operations).toBeGreaterThan(40);
    expect(found).toEqual([]);
  });
});
