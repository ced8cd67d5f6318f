import { describe, expect, it } from 'vitest';
import { unstorableErrors } from './validation.js';

describe('values no engine can store', () => {
  it('finds Infinity and NUL characters at any depth, keys included, and points at the first one', () => {
    expect(unstorableErrors({ name: 'ok', tags: ['a', 'b'], nested: { n: 1, list: [{ x: 2 }] } })).toBeNull();
    expect(unstorableErrors({ a: { b: [1, 2, Infinity] } })).toEqual([
      { keyword: 'type', instancePath: '/a/b/2', schemaPath: '#', params: { type: 'finite number' }, message: 'must be a finite number' },
    ]);
    expect(unstorableErrors({ 'a/b': { 'c~d': 'x\u0000y' } })).toEqual([
      { keyword: 'pattern', instancePath: '/a~1b/c~0d', schemaPath: '#', params: { pattern: '^[^\\u0000]*$' }, message: 'must not contain a NUL character' },
    ]);
    expect(unstorableErrors({ list: [{ ['k\u0000']: 1 }] })?.[0].instancePath).toBe('/list/0/k\u0000');
    expect(unstorableErrors(-Infinity)?.[0].instancePath).toBe('');
    expect(unstorableErrors({ first: NaN, second: 'x\u0000' })?.[0].instancePath).toBe('/first');
    // eslint-disable-next-line no-sparse-arrays
    expect(unstorableErrors([1, , 3])).toBeNull();
  });
});
