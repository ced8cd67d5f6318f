// The catalogue read line by line must be the parsed document: same values, same keys in the same order;
// its index must refuse any text not laid out as scripts/catalogue/derive.ts writes it, and the reader
// any entry that is not where the index says.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cataloguePath, parseCatalogue, readCatalogue } from './index.js';
import { lazyCatalogue, textSource } from './lazy.js';
import { deriveCatalogueLines, formatCatalogueLines, LINES_FILE, readCatalogueLines } from './lines.js';
import { referenceFile } from './files.js';
import { readRouteIndex } from './routes.js';

const text = fs.readFileSync(cataloguePath(), 'utf8');
const parsed = parseCatalogue(text);
const routes = readRouteIndex();
const lines = deriveCatalogueLines(Buffer.from(text), routes)!;
const lazyOf = (source: string) => lazyCatalogue(textSource(source), lines, routes);

describe('lazyCatalogue', () => {
  it('serialises exactly as the parsed document, key order included', () => {
    const lazy = lazyOf(text)!;
    expect(lazy).toBeDefined();
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(parsed));
  });

  it('answers key questions about an operation before and after its line is read', () => {
    const lazy = lazyOf(text)!;
    const withBody = parsed.operations.findIndex((op) => op.requestBody !== undefined);
    const withoutBody = parsed.operations.findIndex((op) => op.requestBody === undefined);
    // `in` and key listing settle the unread keys first: a body the operation does not have is not listed.
    expect('requestBody' in lazy.operations[withoutBody]).toBe(false);
    expect(Object.keys(lazy.operations[withoutBody])).toEqual(Object.keys(parsed.operations[withoutBody]));
    expect('requestBody' in lazy.operations[withBody]).toBe(true);
    // A plain read of the key first.
    const fresh = lazyOf(text)!;
    expect(fresh.operations[withoutBody].requestBody).toBeUndefined();
    expect(Object.keys(fresh.operations[withoutBody])).toEqual(Object.keys(parsed.operations[withoutBody]));
    expect(fresh.operations[withBody].requestBody).toEqual(parsed.operations[withBody].requestBody);
    expect({ ...fresh.operations[withBody] }).toEqual(parsed.operations[withBody]);
  });

  it('reads one component without the others, and lists them all', () => {
    const lazy = lazyOf(text)!;
    const names = Object.keys(parsed.components.schemas);
    const name = names[names.length >> 1];
    expect(lazy.components.schemas[name]).toEqual(parsed.components.schemas[name]);
    expect(Object.keys(lazy.components.schemas)).toEqual(names);
    expect('NoSuchComponent' in lazy.components.schemas).toBe(false);
    expect(lazy.components.schemas.NoSuchComponent).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(lazy.components.schemas, name)?.value).toEqual(parsed.components.schemas[name]);
    // A value written replaces the one read, wherever it is asked for.
    lazy.components.schemas[name] = { type: 'string' };
    expect(lazy.components.schemas[name]).toEqual({ type: 'string' });
    expect(JSON.parse(JSON.stringify(lazy.components.schemas))[name]).toEqual({ type: 'string' });
  });

  it('has no index for a route list out of step with the file, or a file laid out otherwise', () => {
    const swapped = [routes[1], routes[0], ...routes.slice(2)];
    expect(deriveCatalogueLines(Buffer.from(text), swapped)).toBeUndefined();
    expect(deriveCatalogueLines(Buffer.from(text), routes.slice(1))).toBeUndefined();
    expect(deriveCatalogueLines(Buffer.from(JSON.stringify(parsed, null, 2)), routes)).toBeUndefined();
    expect(deriveCatalogueLines(Buffer.from(JSON.stringify(parsed)), routes)).toBeUndefined();
  });

  it('is not used for a file of another size, and fails loudly on an entry not where the index says', () => {
    expect(lazyOf(`${text} `)).toBeUndefined();
    expect(lazyCatalogue(textSource(text), lines, routes.slice(1))).toBeUndefined();
    // The same size, one component renamed and one operation's id changed: reading either fails.
    const names = Object.keys(parsed.components.schemas);
    const edited = text
      .replace(`\n"${names[3]}": `, `\n"${names[3].slice(0, -1)}X": `)
      .replace(`"operationId":"${parsed.operations[7].operationId}"`, `"operationId":"${parsed.operations[7].operationId.slice(0, -1)}X"`);
    expect(edited.length).toBe(text.length);
    const lazy = lazyOf(edited)!;
    expect(() => lazy.components.schemas[names[3]]).toThrow(/not where reference\/catalogue-lines.json says/);
    expect(lazy.components.schemas[names[4]]).toEqual(parsed.components.schemas[names[4]]);
    expect(() => lazy.operations[7].responses).toThrow(/not where/);
    expect(lazy.operations[8].responses).toEqual(parsed.operations[8].responses);
  });

  it('knows deprecated operations without reading their lines', () => {
    const deprecated = parsed.operations.findIndex((op) => op.deprecated === true);
    expect(deprecated).toBeGreaterThanOrEqual(0);
    expect(lazyOf(text)!.operations[deprecated].deprecated).toBe(true);
  });

  it('is the index committed beside the catalogue (run npx tsx scripts/catalogue-routes.ts after updating the catalogue)', () => {
    expect(formatCatalogueLines(lines) === fs.readFileSync(referenceFile(LINES_FILE), 'utf8')).toBe(true);
    expect(readCatalogueLines()).toEqual(lines);
  });

  it('is what readCatalogue gives', () => {
    expect(JSON.stringify(readCatalogue())).toBe(JSON.stringify(parsed));
  });
});
