// What the build reads. When none of it changed since the last build, dist/ is current: `prepare` skips
// the build then, and the tests that run the built files refuse a dist/ older than the sources.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

// A new input of the build (a folder it bundles) belongs here too.
const BUILD_INPUTS = [
  'src',
  'migrations',
  'console',
  'scripts/build.ts',
  'scripts/build-inputs.ts',
  'scripts/build-console.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
// Tests sit beside the sources but are not built.
const NOT_BUILT = /\.test\.ts$/;

/** The file in dist/ holding the fingerprint of the inputs it was built from. */
export const BUILD_FINGERPRINT = '.build-inputs';

/** A hash of every build input's path and content, under the checkout at `root`. */
export function inputsFingerprint(root: string): string {
  const hash = createHash('sha256');
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) {
      for (const entry of fs.readdirSync(full).sort()) visit(path.join(relative, entry));
      return;
    }
    if (NOT_BUILT.test(relative)) return;
    hash.update(relative).update('\0').update(fs.readFileSync(full)).update('\0');
  };
  for (const input of BUILD_INPUTS) visit(input);
  return hash.digest('hex');
}
