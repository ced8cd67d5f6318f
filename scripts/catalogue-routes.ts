// Derives reference/catalogue-routes.json from reference/catalogue.json: the compact route index the
// server registers its catalogue routes from at start-up (method, path, operation id, product, public
// flag, task type). Run it after scripts/reference.ts; `--check` compares instead of writing.
//   npx tsx scripts/catalogue-routes.ts [--check]
import fs from 'node:fs';
import path from 'node:path';
import { deriveRouteIndex } from '../src/catalogue-engine/route-index.js';
import { formatRouteIndex, ROUTE_INDEX_FILE } from '../src/platform/catalogue/routes.js';
import { cataloguePath, parseCatalogue } from '../src/platform/catalogue/index.js';

const catalogueFile = cataloguePath();
const catalogue = parseCatalogue(fs.readFileSync(catalogueFile, 'utf8'));
const out = path.join(path.dirname(catalogueFile), ROUTE_INDEX_FILE);
const text = formatRouteIndex(deriveRouteIndex(catalogue), catalogue.source.sha256);
if (process.argv.includes('--check')) {
  const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
  console.log(same ? `catalogue-routes: ${ROUTE_INDEX_FILE} is up to date` : `catalogue-routes: ${ROUTE_INDEX_FILE} differs from a fresh derivation`);
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(out, text);
console.log(`catalogue-routes: wrote ${ROUTE_INDEX_FILE} (${(text.length / 1024).toFixed(0)} KiB)`);
