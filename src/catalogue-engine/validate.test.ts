// The engine's validators written into the build's pack (platform/schema-code.ts) must coerce, refuse and
// report exactly as the same schemas compiled on first use, the provider's own formats included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCatalogue } from '../platform/catalogue/index.js';
import { AppError } from '../platform/errors.js';
import { type SchemaCode, SchemaCodePack } from '../platform/schema-code.js';
import { SchemaCodeWriter } from '../platform/schema-code-writer.js';
import { keepBodyText } from '../platform/json-body-text.js';
import type { BodyCheck } from '../platform/validation.js';
import { CATALOGUE_FORMATS, CATALOGUE_FORMATS_MODULE, engineBodyChecker, makeCatalogueAjv, RequestValidator, type RequestParts } from './validate.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-engine-code-'));
const pack = path.join(dir, 'schema-code.pack');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const catalogue = readCatalogue();
const operation = (method: string, p: string) => {
  const op = catalogue.operations.find((o) => o.method === method && o.path === p);
  if (!op) throw new Error(`${method} ${p} is not in the catalogue`);
  return op;
};
// A body with the provider's IP formats, uuid4 path parameters, a query with an array and a form body.
const ops = [
  operation('POST', '/cloud/v1/file_shares/{project_id}/{region_id}/{file_share_id}/access_rule'),
  operation('GET', '/cloud/v1/availablenetworks/{project_id}/{region_id}'),
  operation('GET', '/cloud/v1/ddos/profiles/{project_id}/{region_id}'),
  operation('POST', '/security/iaas/v2/profiles'),
  // Its interfaces are an array of a union of referenced components.
  operation('POST', '/cloud/v3/gpu/virtual/{project_id}/{region_id}/check_limits'),
];

const writer = new SchemaCodeWriter({
  'catalogue-body': () => makeCatalogueAjv(false, true),
  'catalogue-text': () => makeCatalogueAjv('array', true),
});
new RequestValidator(catalogue, writer).prepareAll(ops);
writer.write(pack);
// Counts the validators found in the pack: a schema missing from it would be compiled as usual and the
// comparison below would prove nothing.
const fromPack = new SchemaCodePack(pack, { [CATALOGUE_FORMATS_MODULE]: CATALOGUE_FORMATS });
let found = 0;
let asked = 0;
const counting: SchemaCode = {
  validator(kind, schema) {
    asked += 1;
    const validate = fromPack.validator(kind, schema);
    if (validate) found += 1;
    return validate;
  },
  serializer: () => undefined,
};
const loaded = new RequestValidator(catalogue, counting);
const compiled = new RequestValidator(catalogue);

/** What a check does to the request: the coerced parts, or the refusal's status code, message and fields. */
function outcome(validator: RequestValidator, op: (typeof ops)[number], parts: RequestParts) {
  const copy = structuredClone(parts);
  try {
    validator.check(op, copy);
    return { ok: copy };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { refused: { code: error.code, message: error.message, fields: error.fields } };
  }
}

const paramSets = [
  { project_id: '1', region_id: '76', file_share_id: 'bd8c47ee-e565-4e26-8840-b537e6827b08' },
  { project_id: '0x10', region_id: 'seventy', file_share_id: 'not-a-uuid' },
  { project_id: '1e400', region_id: '76', file_share_id: '' },
];
const querySets = [{}, { network_type: 'vlan' }, { network_id: 'bd8c47ee-e565-4e26-8840-b537e6827b08,x' }, { limit: '5', offset: '-1' }, { ip: ['a', 'b'] }];
const bodies = [
  undefined,
  {},
  { ip_address: '10.0.0.0/24', access_mode: 'rw' },
  { ip_address: '999.1.1.1', access_mode: 'rw' },
  { ip_address: 'fd00::/64', access_mode: 'xx', extra: 1 },
  { ip_address: 12, access_mode: null },
  { site: 'ED', ip_address: '1.2.3.4', fields: [{ base_field: 1, field_value: {} }] },
  'text',
];

describe('catalogue validators compiled by the build', () => {
  it('writes each distinct schema once', () => {
    expect(writer.size).toBeGreaterThanOrEqual(ops.length);
    const index = JSON.parse(fs.readFileSync(pack, 'utf8').split('\n')[0]) as Record<string, unknown>;
    expect(Object.keys(index)).toHaveLength(writer.size);
  });

  it('coerces, refuses and reports as the validators compiled on first use', () => {
    let refusals = 0;
    for (const op of ops)
      for (const params of paramSets)
        for (const query of querySets)
          for (const [i, body] of bodies.entries())
            for (const contentType of ['application/json', 'application/x-www-form-urlencoded']) {
              const parts: RequestParts = { params: { ...params }, query: { ...query }, body, contentType };
              const fromPack = outcome(loaded, op, parts);
              expect(fromPack, `${op.method} ${op.path} ${JSON.stringify(params)} ${JSON.stringify(query)} body ${i} ${contentType}`).toEqual(
                outcome(compiled, op, parts),
              );
              if ('refused' in fromPack) refusals += 1;
            }
    // Both sides of the comparison were exercised: some requests pass, most are refused.
    expect(refusals).toBeGreaterThan(100);
    expect(refusals).toBeLessThan(ops.length * paramSets.length * querySets.length * bodies.length * 2);
  });

  it('keeps the provider formats working from the pack (an address is checked, not ignored)', () => {
    const op = ops[0];
    const parts = (ip: string): RequestParts => ({
      params: { ...paramSets[0] },
      query: {},
      body: { ip_address: ip, access_mode: 'rw' },
      contentType: 'application/json',
    });
    expect(outcome(loaded, op, parts('10.0.0.0/24'))).toHaveProperty('ok');
    expect(outcome(loaded, op, parts('999.1.1.1'))).toHaveProperty('refused');
  });

  it("gathers the errors of referenced schemas in linear time, from the pack as compiled (Ajv's copy of every error so far at each failing reference took 9,000 wrong items 6.5 s)", () => {
    const op = ops[4];
    const parts = (interfaces: unknown[]): RequestParts => ({
      params: { project_id: '1', region_id: '76' },
      query: {},
      body: { flavor: 'x', servers_count: 1, servers_settings: { interfaces } },
      contentType: 'application/json',
    });
    const few = outcome(loaded, op, parts([1, { type: 'nope' }, 'x']));
    expect(few).toEqual(outcome(compiled, op, parts([1, { type: 'nope' }, 'x'])));
    expect(few).toHaveProperty('refused');
    // The pack is minified (Ajv's `vErrors` is renamed): no error list is concatenated anywhere in it.
    expect(fs.readFileSync(pack, 'utf8')).not.toMatch(/\.concat\(/);
    for (const validator of [loaded, compiled]) {
      const started = performance.now();
      const many = outcome(validator, op, parts(Array(9_000).fill(1)));
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(many).toHaveProperty('refused');
      // Named up to the platform's bound of 100 fields.
      expect((many as { refused: { fields: unknown[] } }).refused.fields).toHaveLength(100);
    }
  });

  it('found every validator it used in the pack', () => {
    expect(asked).toBeGreaterThanOrEqual(ops.length);
    expect(found).toBe(asked);
  });
});

describe('JSON bodies that kept their text (many items), checked in a thread', () => {
  const op = ops[4];
  const parts = (params: Record<string, unknown>, interfaces: unknown[]): RequestParts => ({
    params,
    query: {},
    body: { flavor: 'x', servers_count: 1, servers_settings: { interfaces } },
    contentType: 'application/json',
  });
  /** The parts with the body's text kept, as the JSON parser keeps it for a body of many items. */
  const withText = (p: RequestParts): RequestParts => {
    keepBodyText(p.body, JSON.stringify(p.body));
    return p;
  };
  const checker = engineBodyChecker(fromPack);
  const sent: BodyCheck[] = [];
  const threaded = new RequestValidator(catalogue, counting, async (check) => {
    sent.push(check);
    return checker(structuredClone(check));
  });
  const failing = new RequestValidator(catalogue, counting, () => Promise.reject(new Error('thread stopped')));

  async function outcomeOf(validator: RequestValidator, p: RequestParts) {
    try {
      await validator.check(op, p);
      return { ok: true };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { refused: { code: error.code, message: error.message, fields: error.fields } };
    }
  }

  it('refuse and accept as the main thread does, path errors and body errors in one answer', async () => {
    const cases = [
      parts({ project_id: '1', region_id: '76' }, Array(9_000).fill(1)),
      parts({ project_id: 'x', region_id: '76' }, [1, { type: 'nope' }, 'x']),
      parts({ project_id: '1', region_id: '76' }, []),
      parts({ project_id: '1', region_id: '76' }, Array(1_500).fill({ type: 'external' })),
    ];
    for (const [i, p] of cases.entries()) {
      const main = outcome(loaded, op, p);
      const before = sent.length;
      expect(await outcomeOf(threaded, withText(structuredClone(p))), `case ${i}`).toEqual('ok' in main ? { ok: true } : main);
      expect(sent.length, `case ${i} went to the thread`).toBe(before + 1);
    }
    expect(outcome(loaded, op, cases[0])).toHaveProperty('refused');
    // The thread finds the validator the main thread loaded, by the pack's own key.
    expect(fromPack.validator('catalogue-body', JSON.parse(sent[0].schema) as object)).toBeDefined();
  });

  it('check on the main thread a body that kept no text, and one whose thread could not answer', async () => {
    const p = parts({ project_id: '1', region_id: '76' }, Array(2_000).fill(1));
    const before = sent.length;
    const main = outcome(loaded, op, p);
    expect(await outcomeOf(threaded, structuredClone(p))).toEqual(main);
    expect(sent.length).toBe(before);
    expect(await outcomeOf(failing, withText(structuredClone(p)))).toEqual(main);
  });
});
