// What `npm pack` (and so `npm publish`, or a git dependency) ships: the built command and library, their
// types, the reference catalogue and the docs; not the sources, tests, benchmarks or source maps.
import { isAscii } from 'node:buffer';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, ROOT } from '../support/built.js';

interface Packed {
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

let packed: Packed;
beforeAll(async () => {
  assertBuilt();
  // --ignore-scripts: `prepare` would build again; dist/ is checked to be current above.
  const json = await new Promise<string>((resolve, reject) =>
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  [packed] = JSON.parse(json) as Packed[];
}, 120_000);

const listed = () => packed.files.map((f) => f.path);

describe('npm pack', () => {
  it('ships what runs: the command, the server bundle and its code cache, the library, the query and matching threads', () => {
    for (const file of [
      'package.json',
      'README.md',
      'dist/edgeplane.mjs',
      'dist/server.cjs',
      'dist/server.cjs.v8-cache',
      'dist/index.mjs',
      'dist/waap-query-worker.cjs',
      'dist/cdn-match-worker.cjs',
      'dist/src/index.d.ts',
    ]) {
      expect(listed()).toContain(file);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(listed()).toContain(manifest.bin.edgeplane);
    expect(listed()).toContain(manifest.main);
    expect(listed()).toContain(manifest.exports['.'].types.replace(/^\.\//, ''));
  });

  it('ships the server bundle as ASCII, which the command reads without decoding UTF-8 (src/launcher.ts)', () => {
    expect(isAscii(fs.readFileSync(path.join(ROOT, 'dist/server.cjs')))).toBe(true);
  });

  it('ships the committed reference catalogue and every page of the docs, but not their screenshots', () => {
    const wanted = (dir: string) =>
      fs.existsSync(path.join(ROOT, dir))
        ? fs
            .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
        : [];
    const docs = wanted('docs');
    const pages = docs.filter((file) => file.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    for (const file of [...pages, ...wanted('reference')]) expect(listed()).toContain(file);
    // The console's screenshots (about 0.9 MB) are for readers of the repository, not for the package.
    const screenshots = docs.filter((file) => file.endsWith('.png'));
    for (const file of screenshots) expect(listed()).not.toContain(file);
  });

  it('leaves out sources, tests, benchmarks, scripts, CI, source maps and the build stamp', () => {
    const unwanted = listed().filter(
      (file) =>
        /^(src|tests|bench|scripts|migrations|\.ci|node_modules)\//.test(file) ||
        /\.map$/.test(file) ||
        file.startsWith('dist/tests/') ||
        file === 'dist/.build-inputs',
    );
    expect(unwanted).toEqual([]);
  });

  it('stays small', () => {
    // Before the files list: 6.0 MB packed, 28 MB unpacked, 539 files. With the files list and the CDN,
    // DNS and cloud products of round 2: 4.2 MB packed (the server bundle twice, as the command and as
    // the library, is 3.4 MB of it). With the catalogue engine, the console and the rest of round 2:
    // 5.0 MB packed, 25.4 MB unpacked, 478 files (the two bundles 12.5 MB unpacked, the precompiled
    // schema code 6.5 MB, the V8 code cache 3.4 MB, the catalogue 1.5 MB). The thread CDN rules are matched
    // in (its own bundle, with RE2: 280 KB unpacked) took it to 5.50 MB; the code cache with the first
    // calls compiled in it (3.8 MB instead of 3.3, see firstCalls in scripts/build.ts) to 5.71 MB; the
    // catalogue's line index (reference/catalogue-lines.json, 30 KB packed) and a GraphQL query's code in
    // the cache (58 KB packed: the playground no longer loads graphql-js) to 5.81 MB. Validating bodies of
    // many items and making reports in threads (the engine's thread bundle, 65 KB and its 194 KB source map
    // unpacked, and the platform's validation in the JSON body thread's, 15 KB and 59 KB) to 5.87 MB. The
    // journal's slots and the queries compiled once (with fast-querystring, the router's parser, now in the
    // bundles for the journal) to 5.90 MB, moving by a few hundred bytes from one build to the next (the
    // code cache): a clean clone read 5,900,044 bytes where CI had read 5,899,859 for the same commit.
    // The schema code's V8 code cache (11 MB unpacked, 3.3 MB packed) is left out: V8 reads it only under
    // the very Node version that made it, and a clone or a git dependency builds its own (prepare).
    expect(listed()).not.toContain('dist/schema-code.pack.v8-cache');
    expect(packed.size).toBeLessThan(6_000_000);
    // The library's type declarations (dist/src/**/*.d.ts, 359 files) follow the source tree; everything else
    // is the bundles, the console, the catalogue and the docs.
    expect(packed.files.filter((file) => !file.path.endsWith('.d.ts')).length).toBeLessThan(100);
  });
});

describe('engines', () => {
  it('every package installed for the server runs on the Node version the README states (20.19), so npm ci warns of none', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
    const stated = /\*\*Node\.js (\d+\.\d+) or newer\*\*/.exec(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'))![1];
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies(`${stated}.0`, entry.engines.node))
      .map(([name, entry]) => `${name} wants node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
