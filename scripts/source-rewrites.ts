// An esbuild plugin that rewrites given pieces of dependencies' text as the bundles load them (see
// router-closures.ts and lazy-builtins.ts for what is rewritten and why). Each rewrite must find the
// text it replaces: an upgrade of the dependency that changes it fails the build instead of silently
// bundling the original.
import fs from 'node:fs/promises';
import type { Plugin } from 'esbuild';

export interface Rewrite {
  /** The files (absolute paths) the rewrite applies to. */
  file: RegExp;
  from: string;
  to: string;
}

export function sourceRewrites(name: string, rewrites: Rewrite[]): Plugin {
  return {
    name,
    setup(build) {
      build.onLoad({ filter: new RegExp(rewrites.map((r) => r.file.source).join('|')) }, async (args) => {
        let contents = await fs.readFile(args.path, 'utf8');
        for (const rewrite of rewrites.filter((r) => r.file.test(args.path))) {
          if (!contents.includes(rewrite.from)) throw new Error(`${name}: ${args.path} no longer holds the text to rewrite: ${rewrite.from.split('\n')[0]}`);
          contents = contents.replace(rewrite.from, () => rewrite.to);
        }
        return { contents, loader: 'js' };
      });
    },
  };
}
