import { describe, expect, it } from 'vitest';
import { positiveIdOf } from './existence.js';

describe('positiveIdOf', () => {
  it('reads a positive integer in the form validation writes back', () => {
    expect(positiveIdOf('1')).toBe(1);
    expect(positiveIdOf('76')).toBe(76);
    expect(positiveIdOf(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('leaves every other form to the route (undefined)', () => {
    for (const text of [
      undefined,
      '',
      '0',
      '-1',
      '+1',
      '01',
      ' 1',
      '1 ',
      '1.0',
      '1e3',
      '0x10',
      'abc',
      String(Number.MAX_SAFE_INTEGER + 1),
      '12345678901234567',
    ]) {
      expect(positiveIdOf(text), String(text)).toBeUndefined();
    }
  });
});
