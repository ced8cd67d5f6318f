import { describe, expect, it } from 'vitest';
import { fromColumns, toColumns } from './columns.js';

describe('objects as columns', () => {
  it('gives back equal objects, keys in their order, through a structured clone', () => {
    const objects = Array.from({ length: 50 }, (_, i) => ({ id: `e${i}`, n: i, empty: '', list: [i], none: i % 2 ? null : undefined }));
    const back = fromColumns(structuredClone(toColumns(objects)));
    expect(back).toEqual(objects);
    expect(Object.keys(back[7])).toEqual(['id', 'n', 'empty', 'list', 'none']);
  });

  it('takes no objects to no columns and back', () => {
    expect(fromColumns(toColumns([]))).toEqual([]);
  });

  it('refuses field names that are not plain identifiers (they become code)', () => {
    expect(() => fromColumns({ fields: ['a', 'b: 1, c'], columns: [[1], [2]], count: 1 })).toThrow(/not a field name/);
  });
});
