// The `edgeplane` command as built (dist/edgeplane.mjs): runs the bundled server, dist/server.cjs, from
// the V8 code cache that `npm run build` made by starting it once. Compiling the bundle's functions is
// about a third of the start-up CPU time; with the cache V8 reads them already compiled. A cache that
// does not match (another Node version, a rebuilt bundle) is refused by V8 itself and the bundle is
// compiled as usual: slower, never wrong.
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { heapGrowthFlag, heapGrowthPercent } from './platform/heap-growth.js';

const dir = path.dirname(fileURLToPath(import.meta.url));
const bundle = path.join(dir, 'server.cjs');
const cacheFile = path.join(dir, 'server.cjs.v8-cache');
// Set by the build: run without the cache and write a new one when the process exits.
const writeCache = process.env.EDGEPLANE_WRITE_CODE_CACHE === '1';

function readCache(): Buffer | undefined {
  if (writeCache) return undefined;
  try {
    return fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

// Before the bundle is compiled, in the build's run that writes the code cache too: V8 keeps a cache only
// under the flags it was made with. (Set after compiling, the flag let the cache be read under any value,
// but the server then answered 20% fewer GETs a second: bench/README.md.)
let growth: number;
try {
  growth = heapGrowthPercent(process.env);
} catch (error) {
  process.stderr.write(`edgeplane: ${(error as Error).message}\n`);
  process.exit(2);
}
const growthFlag = heapGrowthFlag(growth);
if (growthFlag) v8.setFlagsFromString(growthFlag);
// V8's gc function, for the collections once the server is idle after a burst (idle-collection.ts).
v8.setFlagsFromString('--expose-gc');

// The build keeps the bundle ASCII (scripts/build.ts): read as Latin-1, V8 takes its bytes as they are,
// where decoding 6.5 MB of UTF-8 took 62-68 ms of a 600 ms start on a slow machine (9 ms as Latin-1).
// Another file (edited by hand) is decoded as UTF-8.
const bytes = fs.readFileSync(bundle);
const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
// The same wrapper Node gives a CommonJS file, on the first line so line numbers stay those of the bundle.
const source = `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
const script = new vm.Script(source, {
  filename: bundle,
  cachedData: readCache(),
});
// Asked by the build, which fails when the cache it just made is refused (a flag set differently).
if (process.env.EDGEPLANE_REPORT_CODE_CACHE === '1') process.stderr.write(`code cache ${script.cachedDataRejected ? 'refused' : 'accepted'}\n`);
if (writeCache)
  process.once('exit', () => {
    fs.writeFileSync(cacheFile, script.createCachedData());
    // The route validators' and serialisers' modules too, under the same flags (src/platform/schema-code.ts).
    (module.exports as { writeSchemaCodeCache?: () => void }).writeSchemaCodeCache?.();
  });

const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dir);
