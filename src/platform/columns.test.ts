import { describe, expect, it } from 'vitest';
import { fromCodedColumns, toCodedColumns } from './columns.js';

describe('objects as coded columns', () => {
  it('gives back equal objects, keys in their order, through a structured clone', () => {
    const objects = Array.from({ length: 200 }, (_, i) => ({ id: `e${i}`, n: i % 3, empty: '', list: [i], none: i % 2 ? null : undefined, nan: NaN }));
    const back = fromCodedColumns(structuredClone(toCodedColumns(objects)));
    expect(back).toEqual(objects);
    expect(Object.keys(back[7])).toEqual(['id', 'n', 'empty', 'list', 'none', 'nan']);
  });

  it('sends each distinct value once per column, in the order first met', () => {
    const objects = ['b', 'a', 'b', 'b', 'c', 'a'].map((tag) => ({ tag }));
    const coded = toCodedColumns(objects);
    expect(coded.values).toEqual([['b', 'a', 'c']]);
    expect([...coded.codes[0]!]).toEqual([0, 1, 0, 0, 2, 1]);
  });

  it('sends a column of mostly distinct values as it is', () => {
    const objects = Array.from({ length: 100 }, (_, i) => ({ id: `e${i}`, kind: i % 3 ? 'a' : 'b' }));
    const coded = toCodedColumns(objects);
    expect(coded.codes[0]).toBeNull();
    expect(coded.values[0]).toEqual(objects.map((o) => o.id));
    expect(coded.values[1]).toEqual(['b', 'a']);
  });

  it('takes no objects to no columns and back', () => {
    expect(fromCodedColumns(toCodedColumns([]))).toEqual([]);
  });

  it('refuses field names that are not plain identifiers (they become code)', () => {
    expect(() => toCodedColumns([{ a: 1, 'b: 1, c': 2 }])).toThrow(/not a field name/);
  });
});
