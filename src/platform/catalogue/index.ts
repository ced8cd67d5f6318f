// The committed reference catalogue (reference/catalogue.json at the package root): the facts of every
// operation of the provider's API. Read from disk on first use, not at start: it is 1.4 MB of JSON and
// most runs never need it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Catalogue, type CatalogueOperation, CATALOGUE_FORMAT, CATALOGUE_VERSION } from './types.js';

export * from './types.js';

const CATALOGUE_FILE = 'catalogue.json';

/**
 * A file of the package's reference/ folder, found by walking up from this module, which is
 * src/platform/catalogue in a checkout and dist/ in the built package; both have the package root
 * (holding reference/) above them.
 */
export function referenceFile(name: string, from = path.dirname(fileURLToPath(import.meta.url))): string {
  const relative = path.join('reference', name);
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`reference file ${relative} not found above ${from}`);
  }
}

/** The catalogue's path (reference/catalogue.json at the package root). */
export function cataloguePath(from?: string): string {
  return referenceFile(CATALOGUE_FILE, from);
}

export function parseCatalogue(text: string): Catalogue {
  const catalogue = JSON.parse(text) as Catalogue;
  if (catalogue.format !== CATALOGUE_FORMAT || catalogue.version !== CATALOGUE_VERSION) {
    throw new Error(`not a version ${CATALOGUE_VERSION} ${CATALOGUE_FORMAT} document`);
  }
  return catalogue;
}

// The file is immutable for the life of the process, so one parsed copy serves every app built in it.
let loaded: Catalogue | undefined;

export function readCatalogue(): Catalogue {
  loaded ??= parseCatalogue(fs.readFileSync(cataloguePath(), 'utf8'));
  return loaded;
}

/** Method and path of every reference operation. */
export function catalogueOperations(): readonly CatalogueOperation[] {
  return readCatalogue().operations;
}
