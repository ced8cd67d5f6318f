import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWTH_PERCENT, HEAP_GROWTH_ENV, heapGrowthFlag, heapGrowthPercent, MAX_HEAP_GROWTH_PERCENT } from './heap-growth.js';

describe('the heap growth setting', () => {
  it('defaults when unset or empty, and reads whole percents within bounds', () => {
    expect(heapGrowthPercent({})).toBe(DEFAULT_HEAP_GROWTH_PERCENT);
    expect(heapGrowthPercent({ [HEAP_GROWTH_ENV]: '' })).toBe(DEFAULT_HEAP_GROWTH_PERCENT);
    expect(heapGrowthPercent({ [HEAP_GROWTH_ENV]: '0' })).toBe(0);
    expect(heapGrowthPercent({ [HEAP_GROWTH_ENV]: ' 150 ' })).toBe(150);
    expect(heapGrowthPercent({ [HEAP_GROWTH_ENV]: String(MAX_HEAP_GROWTH_PERCENT) })).toBe(MAX_HEAP_GROWTH_PERCENT);
  });

  it.each(['-1', '1.5', '1e3', '0x10', 'lots', String(MAX_HEAP_GROWTH_PERCENT + 1), '99999999999999999999'])('refuses %s, naming the variable', (text) => {
    expect(() => heapGrowthPercent({ [HEAP_GROWTH_ENV]: text })).toThrow(
      new RegExp(`^${HEAP_GROWTH_ENV} must be a whole number from 0 to ${MAX_HEAP_GROWTH_PERCENT}`),
    );
  });

  it("gives V8's flag, or none for V8's own heuristic", () => {
    expect(heapGrowthFlag(300)).toBe('--heap-growing-percent=300');
    expect(heapGrowthFlag(0)).toBeUndefined();
  });
});
