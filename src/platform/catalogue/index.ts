// The committed reference catalogue (reference/catalogue.json at the package root): the facts of every
// operation of the provider's API. Read from disk on first use, not at start: it is 1.4 MB of JSON and
// most runs never need it; and read piece by piece from the file (lazy.ts), since one request needs a few pieces.
import fs from 'node:fs';
import { type Catalogue, type CatalogueOperation, CATALOGUE_FORMAT, CATALOGUE_VERSION } from './types.js';
import { fileSource, lazyCatalogue } from './lazy.js';
import { readCatalogueLines } from './lines.js';
import { readRouteIndex } from './routes.js';
import { referenceFile } from './files.js';

export * from './types.js';
export { referenceFile } from './files.js';

const CATALOGUE_FILE = 'catalogue.json';

/** The catalogue's path (reference/catalogue.json at the package root). */
export function cataloguePath(from?: string): string {
  return referenceFile(CATALOGUE_FILE, from);
}

export function parseCatalogue(text: string): Catalogue {
  return checkedCatalogue(JSON.parse(text) as Catalogue);
}

function checkedCatalogue(catalogue: Catalogue): Catalogue {
  if (catalogue.format !== CATALOGUE_FORMAT || catalogue.version !== CATALOGUE_VERSION) {
    throw new Error(`not a version ${CATALOGUE_VERSION} ${CATALOGUE_FORMAT} document`);
  }
  return catalogue;
}

// The file is immutable for the life of the process, so one parsed copy serves every app built in it.
let loaded: Catalogue | undefined;

export function readCatalogue(): Catalogue {
  if (loaded) return loaded;
  const path = cataloguePath();
  const lines = readCatalogueLines();
  const source = lines && fileSource(path);
  const lazy = source && lazyCatalogue(source, lines, readRouteIndex());
  if (!lazy) source?.close();
  loaded = lazy ? checkedCatalogue(lazy) : parseCatalogue(fs.readFileSync(path, 'utf8'));
  return loaded;
}

/** Method and path of every reference operation. */
export function catalogueOperations(): readonly CatalogueOperation[] {
  return readCatalogue().operations;
}
