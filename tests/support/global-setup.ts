// Before any test file: rebuild dist/ when a source changed since it was built, so the tests of what a
// user runs (the built command, `npm start`, the package, the README's recipes) test the code as it is
// now, and `npm test` after an edit needs no `npm run build` first. Up to date, this costs a second.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default function setup(): void {
  if (process.env.EDGEPLANE_TEST_NO_BUILD) return;
  // npm_command is cleared: under `npx vitest` the build script would otherwise leave a stale dist/ alone.
  execFileSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build.ts', '--if-stale', '--no-check'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, npm_command: '' },
  });
}
