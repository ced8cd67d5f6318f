import { describe, expect, it } from 'vitest';
import { fixedShape } from './fixed-shape.js';

describe('fixedShape', () => {
  it('makes objects of the keys in order from their values', () => {
    const make = fixedShape(['a', 'b c', 'count(*)', 'quote"d', '0']);
    const made = make([1, null, 'x', { y: 2 }, undefined]);
    expect(made).toEqual({ a: 1, 'b c': null, 'count(*)': 'x', 'quote"d': { y: 2 }, 0: undefined });
    expect(Object.keys(made)).toEqual(['0', 'a', 'b c', 'count(*)', 'quote"d']);
    expect(make([2])).toEqual({ a: 2, 'b c': undefined, 'count(*)': undefined, 'quote"d': undefined, 0: undefined });
  });

  it('keeps the last value of a repeated key and makes `__proto__` an own property', () => {
    expect(fixedShape(['a', 'a'])([1, 2])).toEqual({ a: 2 });
    const made = fixedShape(['__proto__', 'b'])([{ polluted: true }, 1]);
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual(['__proto__', 'b']);
    expect((made as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('makes independent objects', () => {
    const make = fixedShape(['a']);
    const first = make([1]);
    first.a = 5;
    expect(make([1])).toEqual({ a: 1 });
  });
});
