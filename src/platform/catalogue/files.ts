// Where the package's reference/ files are, from the built bundle or from a checkout.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
