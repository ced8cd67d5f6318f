import { createRequire } from 'node:module';

// package.json is one folder up both from src/ (sources run by tsx and Vitest) and from dist/ (the bundles
// that `npm run build` writes): read at run time, so the bundles need no copy of it.
const manifest = createRequire(import.meta.url)('../package.json') as { version: string };

export const VERSION: string = manifest.version;
