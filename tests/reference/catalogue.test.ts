// The committed reference catalogue: re-derived from the provider's document when a developer points
// EDGEPLANE_REFERENCE_OPENAPI at it (so the file can never drift from its source), and otherwise checked
// for integrity: every operation present once, every reference resolvable, no prose anywhere.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { referenceSourcePath } from '../../src/config.js';
import { cataloguePath, readCatalogue, type JsonSchema } from '../../src/platform/catalogue/index.js';
import { buildCatalogue, FACT_KEYWORDS, serialiseCatalogue } from '../../scripts/catalogue/derive.js';

const source = referenceSourcePath();
const catalogue = readCatalogue();

describe('reference catalogue', () => {
  if (source) {
    it(`is exactly what scripts/reference.ts derives from ${source}`, () => {
      const text = fs.readFileSync(source, 'utf8');
      const fresh = serialiseCatalogue(buildCatalogue(JSON.parse(text), text));
      expect(fresh === fs.readFileSync(cataloguePath(), 'utf8'), 'reference/catalogue.json is stale: run npx tsx scripts/reference.ts').toBe(true);
    });
  } else {
    it('source document absent (EDGEPLANE_REFERENCE_OPENAPI unset): checks the committed file instead of re-deriving it', () => {
      expect(catalogue.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    });
  }

  it('holds all 1017 operations, each method and path once, each operation id once', () => {
    expect(catalogue.operations).toHaveLength(1017);
    const keys = new Set(catalogue.operations.map((op) => `${op.method} ${op.path}`));
    expect(keys.size).toBe(1017);
    expect(new Set(catalogue.operations.map((op) => op.operationId)).size).toBe(1017);
    for (const op of catalogue.operations) {
      expect(op.product).toBe(op.path.split('/')[1]);
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      for (const name of op.path.match(/\{[^}]+\}/g) ?? []) {
        expect(op.parameters.some((p) => p.in === 'path' && `{${p.name}}` === name), `${op.method} ${op.path} declares ${name}`).toBe(true);
      }
    }
  });

  it('resolves every $ref and discriminator mapping to a schema component', () => {
    const targets: string[] = [];
    const collect = (node: unknown, key = ''): void => {
      if (Array.isArray(node)) node.forEach((item) => collect(item));
      else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) collect(v, k);
      else if (typeof node === 'string' && key === '$ref') targets.push(node);
    };
    collect(catalogue.operations);
    collect(catalogue.components);
    const mappings = JSON.stringify(catalogue).match(/"mapping":\{[^}]*\}/g) ?? [];
    for (const mapping of mappings) targets.push(...Object.values(JSON.parse(mapping.slice('"mapping":'.length)) as Record<string, string>));
    expect(targets.length).toBeGreaterThan(3000);
    const unresolved = targets.filter((t) => !t.startsWith('#/components/schemas/') || !(t.slice('#/components/schemas/'.length) in catalogue.components.schemas));
    expect(unresolved).toEqual([]);
  });

  it('carries no prose: every key of every schema is a fact-bearing keyword or a property name', () => {
    const problems: string[] = [];
    const visitSchema = (schema: JsonSchema, where: string): void => {
      if (typeof schema === 'boolean') return;
      for (const [key, value] of Object.entries(schema)) {
        if (!FACT_KEYWORDS.has(key)) problems.push(`${where}: ${key}`);
        else if (['properties', 'patternProperties', 'dependentSchemas'].includes(key)) {
          for (const [name, child] of Object.entries(value as Record<string, JsonSchema>)) visitSchema(child, `${where}.${name}`);
        } else if (['anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(key)) (value as JsonSchema[]).forEach((child, i) => visitSchema(child, `${where}.${key}[${i}]`));
        else if (['additionalProperties', 'propertyNames', 'items', 'not', 'contentSchema', 'if', 'then', 'else', 'unevaluatedProperties'].includes(key)) visitSchema(value as JsonSchema, `${where}.${key}`);
      }
    };
    for (const [name, schema] of Object.entries(catalogue.components.schemas)) visitSchema(schema, name);
    const operationKeys = new Set(['method', 'path', 'operationId', 'product', 'tags', 'parameters', 'requestBody', 'responses', 'deprecated', 'public']);
    for (const op of catalogue.operations) {
      const where = `${op.method} ${op.path}`;
      for (const key of Object.keys(op)) if (!operationKeys.has(key)) problems.push(`${where}: ${key}`);
      for (const p of op.parameters) {
        for (const key of Object.keys(p)) if (!['in', 'name', 'required', 'schema', 'deprecated', 'style', 'explode'].includes(key)) problems.push(`${where} ${p.name}: ${key}`);
        visitSchema(p.schema, `${where} ${p.name}`);
      }
      for (const [type, schema] of Object.entries(op.requestBody?.content ?? {})) visitSchema(schema, `${where} body ${type}`);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const key of Object.keys(response)) if (!['content', 'headers'].includes(key)) problems.push(`${where} ${status}: ${key}`);
        for (const [type, schema] of Object.entries(response.content)) visitSchema(schema, `${where} ${status} ${type}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
