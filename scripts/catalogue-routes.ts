// Derives the catalogue's two indexes from reference/catalogue.json: catalogue-routes.json, the compact
// route index the server registers its catalogue routes from at start-up (method, path, operation id,
// product, public flag, task type), and catalogue-lines.json, where each component and operation of the
// catalogue is in the file (its reader reads one entry at a time). Run it after scripts/reference.ts;
// `--check` compares instead of writing.
//   npx tsx scripts/catalogue-routes.ts [--check]
import fs from 'node:fs';
import path from 'node:path';
import { deriveRouteIndex } from '../src/catalogue-engine/route-index.js';
import { formatRouteIndex, ROUTE_INDEX_FILE } from '../src/platform/catalogue/routes.js';
import { deriveCatalogueLines, formatCatalogueLines, LINES_FILE } from '../src/platform/catalogue/lines.js';
import { cataloguePath, parseCatalogue } from '../src/platform/catalogue/index.js';

const catalogueFile = cataloguePath();
const bytes = fs.readFileSync(catalogueFile);
const catalogue = parseCatalogue(bytes.toString('utf8'));
const routes = deriveRouteIndex(catalogue);
const lines = deriveCatalogueLines(bytes, routes);
if (!lines) throw new Error(`${catalogueFile} is not laid out one line per component and per operation: write it with scripts/reference.ts`);
const outputs = [
  [ROUTE_INDEX_FILE, formatRouteIndex(routes, catalogue.source.sha256)],
  [LINES_FILE, formatCatalogueLines(lines)],
] as const;
const check = process.argv.includes('--check');
let stale = 0;
for (const [name, text] of outputs) {
  const out = path.join(path.dirname(catalogueFile), name);
  if (check) {
    const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
    console.log(same ? `catalogue-routes: ${name} is up to date` : `catalogue-routes: ${name} differs from a fresh derivation`);
    if (!same) stale += 1;
  } else {
    fs.writeFileSync(out, text);
    console.log(`catalogue-routes: wrote ${name} (${(text.length / 1024).toFixed(0)} KiB)`);
  }
}
process.exit(stale > 0 ? 1 : 0);
