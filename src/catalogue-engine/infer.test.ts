// The indexes over every operation are made on the first plan that needs them, or ahead by the server's
// warm-up (prepareIndexes): either way every operation is planned alike.
import { describe, expect, it } from 'vitest';
import { readCatalogue } from '../platform/catalogue/index.js';
import { Inference } from './infer.js';

describe('Inference.prepareIndexes', () => {
  it('plans every operation as an inference that makes its indexes on first use does', () => {
    const catalogue = readCatalogue();
    const lazy = new Inference(catalogue);
    const prepared = new Inference(catalogue);
    prepared.prepareIndexes();
    expect(catalogue.operations.length).toBeGreaterThan(900);
    for (const op of catalogue.operations) expect(prepared.plan(op), `${op.method} ${op.path}`).toEqual(lazy.plan(op));
    expect(prepared.referenceTargets()).toEqual(lazy.referenceTargets());
    expect(prepared.createdResourceKeys()).toEqual(lazy.createdResourceKeys());
  });
});
