// Builds the web console (console/, a Preact app) into dist/console with Vite, then writes a brotli and
// a gzip copy of each text file beside it (the server sends them to browsers that accept them).
// Part of `npm run build`; alone: `npx tsx scripts/build-console.ts`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { build } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const consoleOut = path.join(root, 'dist', 'console');
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

export async function buildConsole(): Promise<void> {
  const started = performance.now();
  await build({ configFile: path.join(root, 'console', 'vite.config.ts') });
  let raw = 0;
  let brotli = 0;
  for (const file of listFiles(consoleOut)) {
    if (!COMPRESSIBLE.test(file) || file.includes(`${path.sep}.vite${path.sep}`)) continue;
    const bytes = fs.readFileSync(file);
    const br = zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    fs.writeFileSync(`${file}.br`, br);
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
    raw += bytes.length;
    brotli += br.length;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${'dist/console/'.padEnd(28)} ${(raw / 1024).toFixed(0).padStart(6)} KiB (${(brotli / 1024).toFixed(0)} KiB brotli), built in ${seconds} s`);
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await buildConsole();
