// The `edgeplane` command as built (dist/edgeplane.mjs): runs the bundled server, dist/server.cjs, from
// the V8 code cache that `npm run build` made by starting it once. Compiling the bundle's functions is
// about a third of the start-up CPU time; with the cache V8 reads them already compiled. A cache that
// does not match (another Node version, a rebuilt bundle) is refused by V8 itself and the bundle is
// compiled as usual: slower, never wrong.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const dir = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(dir, 'server.cjs');
const cacheFile = path.join(dir, 'server.cjs.v8-cache');
// Set by the build: run without the cache and write a new one when the process exits.
const writeCache = process.env.EDGEPLANE_WRITE_CODE_CACHE === '1';

async function readCache(): Promise<Buffer | undefined> {
  if (writeCache) return undefined;
  try {
    return await fs.promises.readFile(cacheFile);
  } catch {
    return undefined;
  }
}

// Both files are read at once on libuv's threads: 62-77 ms instead of 80-134 ms one after the other on
// the main thread (fresh processes on a 2-core machine; most of it is the kernel filling new memory).
const [text, cachedData] = await Promise.all([fs.promises.readFile(bundle, 'utf8'), readCache()]);
// The same wrapper Node gives a CommonJS file, on the first line so line numbers stay those of the bundle.
const source = `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
const script = new vm.Script(source, { filename: bundle, cachedData });
if (writeCache) process.once('exit', () => fs.writeFileSync(cacheFile, script.createCachedData()));

const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dir);
