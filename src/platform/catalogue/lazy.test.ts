// The catalogue read line by line must be the parsed document: same values, same keys in the same order,
// and it must refuse any text not laid out as scripts/catalogue/derive.ts writes it.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cataloguePath, parseCatalogue, readCatalogue } from './index.js';
import { lazyCatalogue } from './lazy.js';
import { readRouteIndex } from './routes.js';

const text = fs.readFileSync(cataloguePath(), 'utf8');
const parsed = parseCatalogue(text);
const routes = readRouteIndex();

describe('lazyCatalogue', () => {
  it('serialises exactly as the parsed document, key order included', () => {
    const lazy = lazyCatalogue(text, routes)!;
    expect(lazy).toBeDefined();
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(parsed));
  });

  it('answers key questions about an operation before and after its line is read', () => {
    const lazy = lazyCatalogue(text, routes)!;
    const withBody = parsed.operations.findIndex((op) => op.requestBody !== undefined);
    const withoutBody = parsed.operations.findIndex((op) => op.requestBody === undefined);
    // `in` and key listing settle the unread keys first: a body the operation does not have is not listed.
    expect('requestBody' in lazy.operations[withoutBody]).toBe(false);
    expect(Object.keys(lazy.operations[withoutBody])).toEqual(Object.keys(parsed.operations[withoutBody]));
    expect('requestBody' in lazy.operations[withBody]).toBe(true);
    // A plain read of the key first.
    const fresh = lazyCatalogue(text, routes)!;
    expect(fresh.operations[withoutBody].requestBody).toBeUndefined();
    expect(Object.keys(fresh.operations[withoutBody])).toEqual(Object.keys(parsed.operations[withoutBody]));
    expect(fresh.operations[withBody].requestBody).toEqual(parsed.operations[withBody].requestBody);
    expect({ ...fresh.operations[withBody] }).toEqual(parsed.operations[withBody]);
  });

  it('reads one component without the others, and lists them all', () => {
    const lazy = lazyCatalogue(text, routes)!;
    const names = Object.keys(parsed.components.schemas);
    const name = names[names.length >> 1];
    expect(lazy.components.schemas[name]).toEqual(parsed.components.schemas[name]);
    expect(Object.keys(lazy.components.schemas)).toEqual(names);
    expect('NoSuchComponent' in lazy.components.schemas).toBe(false);
    expect(lazy.components.schemas.NoSuchComponent).toBeUndefined();
  });

  it('gives up on a route index out of step with the file, or a file laid out otherwise', () => {
    const swapped = [routes[1], routes[0], ...routes.slice(2)];
    expect(lazyCatalogue(text, swapped)).toBeUndefined();
    expect(lazyCatalogue(text, routes.slice(1))).toBeUndefined();
    expect(lazyCatalogue(JSON.stringify(parsed, null, 2), routes)).toBeUndefined();
    expect(lazyCatalogue(JSON.stringify(parsed), routes)).toBeUndefined();
  });

  it('is what readCatalogue gives', () => {
    expect(JSON.stringify(readCatalogue())).toBe(JSON.stringify(parsed));
  });
});
