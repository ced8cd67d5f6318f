// The ingestion record's validator written into the build's pack (platform/schema-code.ts) must accept
// and refuse exactly what the same schema compiled on first use does, formats and integer bounds included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaCodePack } from '../../platform/schema-code.js';
import { SchemaCodeWriter } from '../../platform/schema-code-writer.js';
import { TrafficGenerator } from './generator.js';
import { makeRecordAjv, parseRecord, RECORD_SCHEMA, recordValidator } from './records.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-record-code-'));
const file = path.join(dir, 'schema-code.pack');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const writer = new SchemaCodeWriter({ 'waap-record': () => makeRecordAjv(true) });
recordValidator(writer);
writer.write(file);
const pack = new SchemaCodePack(file);

const generator = new TrafficGenerator(7);
const session = generator.newSession();
const valid = () => generator.record(session, { id: 1, name: 'x.example.com' }, Date.UTC(2026, 10, 1)) as unknown as Record<string, unknown>;

const records: unknown[] = [
  valid(),
  { ...valid(), request_time: 'yesterday' },
  { ...valid(), request_time: 1e20 },
  { ...valid(), network: { client_ip: '999.1.1.1', country: 'DE' } },
  { ...valid(), network: { client_ip: '2001:db8::1', country: 'DE' } },
  { ...valid(), domain_id: -1 },
  { ...valid(), method: 42 },
  { domain_id: 1 },
  [],
  null,
];

const outcome = (validate: ValidateFunction, record: unknown) =>
  validate(record) ? 'valid' : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).join('; ');

describe('the ingestion record validator compiled by the build', () => {
  it('is found in the pack', () => {
    expect(pack.validator('waap-record', RECORD_SCHEMA)).toBeTypeOf('function');
  });

  it('accepts and refuses what the validator compiled on first use does', () => {
    const loaded = recordValidator(pack)();
    const compiled = recordValidator()();
    const outcomes = records.map((r) => outcome(compiled, structuredClone(r)));
    expect(outcomes.filter((o) => o === 'valid')).toHaveLength(2);
    expect(records.map((r) => outcome(loaded, structuredClone(r)))).toEqual(outcomes);
  });
});

// parseRecord walks a valid record for NUL characters only when its line holds a \u0000 escape, and never
// for infinite numbers: the schema must keep every number a bounded integer.
describe('what a valid record may hold', () => {
  it('has no number that is not a bounded integer', () => {
    const numbers: Record<string, unknown>[] = [];
    JSON.stringify(RECORD_SCHEMA, (_key, value: unknown) => {
      const type = (value as { type?: unknown } | null)?.type;
      if (type === 'number' || type === 'integer' || (Array.isArray(type) && type.some((t) => t === 'number' || t === 'integer')))
        numbers.push(value as Record<string, unknown>);
      return value;
    });
    expect(numbers.length).toBeGreaterThan(2);
    for (const number of numbers) {
      expect(number.type).toBe('integer');
      expect(number.maximum ?? number.exclusiveMaximum).toBeTypeOf('number');
      expect(number.minimum ?? number.exclusiveMinimum).toBeTypeOf('number');
    }
  });

  it('is refused with a NUL character anywhere, or a number too large to be finite', () => {
    const validate = recordValidator()();
    const line = (record: Record<string, unknown>) => JSON.stringify(record);
    expect(parseRecord(line(valid()), validate)).toBeTypeOf('object');
    expect(parseRecord(line({ ...valid(), path: '/a\u0000b' }), validate)).toMatch(/^path: .*NUL character/);
    expect(parseRecord(line({ ...valid(), request_headers: { 'x\u0000': 'v' } }), validate)).toMatch(/NUL character/);
    expect(parseRecord(line({ ...valid(), http_status_code: 200 }).replace('"http_status_code":200', '"http_status_code":1e309'), validate)).toMatch(
      /http_status_code/,
    );
  });
});
