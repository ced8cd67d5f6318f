// The README's Node test (startEdgeplane with Vitest), run as written in a project of its own that has
// Edgeplane as a dependency, as a user's project would: type-checked against the package's declarations,
// then run by Vitest.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, readmeBlock, ROOT, shell } from '../support/built.js';

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'edgeplane-node-'));
beforeAll(() => {
  assertBuilt();
  fs.mkdirSync(path.join(project, 'node_modules'));
  // The package itself, as `npm install ../edgeplane` links it, and the tools the user's project has.
  fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'edgeplane'));
  for (const tool of ['vitest', 'typescript', '@types']) fs.symlinkSync(path.join(ROOT, 'node_modules', tool), path.join(project, 'node_modules', tool));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true, types: ['node'] },
    }),
  );
  fs.mkdirSync(path.join(project, 'tests'));
  fs.writeFileSync(path.join(project, 'tests', 'edge.test.ts'), readmeBlock('In-process use (Node test suites)', 'ts'));
});
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

describe('README Node test', () => {
  it('type-checks and passes in a project of its own', async () => {
    const typecheck = shell('node node_modules/typescript/bin/tsc -p tsconfig.json', { cwd: project });
    expect(await typecheck.done, typecheck.output()).toBe(0);
    const vitest = shell('node node_modules/vitest/vitest.mjs run --root . tests/edge.test.ts', { cwd: project });
    expect(await vitest.done, vitest.output()).toBe(0);
    expect(vitest.output()).toMatch(/1 passed/);
  }, 300_000);
});
