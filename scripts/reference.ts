// Derives reference/catalogue.json from the provider's published OpenAPI document: every operation's
// method, path, id, product, parameters, request bodies and responses, with the schema components they
// use. Only facts are kept (names, types, enums, formats, bounds, required lists, defaults, nullable,
// discriminators, $ref structure); every piece of prose (descriptions, summaries, titles, examples,
// vendor extensions) is dropped. The output is deterministic: keys sorted, operations ordered by path
// then method, so a regeneration that changes nothing changes no byte.
//   npx tsx scripts/reference.ts [path/to/openapi.json] [--out reference/catalogue.json] [--check]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCatalogue, serialiseCatalogue } from './catalogue/derive.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const positional = args.filter((arg, i) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--out'));
const source = path.resolve(positional[0] ?? path.join(root, '../shared/reference/openapi.json'));
const out = path.resolve(option('--out') ?? path.join(root, 'reference/catalogue.json'));

if (!fs.existsSync(source)) {
  console.error(`reference: no OpenAPI document at ${source}; pass its path as the first argument`);
  process.exit(2);
}
const sourceText = fs.readFileSync(source, 'utf8');
const text = serialiseCatalogue(buildCatalogue(JSON.parse(sourceText), sourceText));
if (args.includes('--check')) {
  const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
  console.log(same ? `reference: ${path.relative(root, out)} is up to date` : `reference: ${path.relative(root, out)} differs from a fresh derivation`);
  process.exit(same ? 0 : 1);
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, text);
console.log(`reference: wrote ${path.relative(root, out)} (${(text.length / 1024).toFixed(0)} KiB)`);
