// Which package or source file a line of a bundle (dist/server.cjs) came from, by the `// node_modules/...`
// and `// src/...` comments esbuild writes before each module: profiles of the built server name only
// the bundle and a line.
import fs from 'node:fs';

/** Each bundle's module starts (0-based line, path), in line order; empty for a file that is not a bundle. */
const bundles = new Map<string, { line: number; path: string }[]>();

function modulesOf(file: string): { line: number; path: string }[] {
  let starts = bundles.get(file);
  if (starts) return starts;
  starts = [];
  try {
    fs.readFileSync(file, 'latin1')
      .split('\n')
      .forEach((text, line) => {
        const path = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(text)?.[1];
        if (path) starts!.push({ line, path });
      });
  } catch {
    // Not readable here (a profile from another machine): its frames keep the bundle's name.
  }
  bundles.set(file, starts);
  return starts;
}

/** The module of `file` that holds 0-based `line`: the last one starting at or before it. */
export function bundledModule(file: string, line: number): string | undefined {
  const starts = modulesOf(file);
  let low = 0;
  let high = starts.length - 1;
  let found: string | undefined;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (starts[mid].line <= line) {
      found = starts[mid].path;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/** The npm package a path is in (`fastify`, `@fastify/cors`), or undefined for the project's own files. */
export function packageOf(path: string): string | undefined {
  return /node_modules\/((@[^/]+\/)?[^/]+)/.exec(path)?.[1];
}
