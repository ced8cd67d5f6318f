import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** package.json sits two folders up from both src/ (tsx) and dist/src/ (built). */
const manifest = (() => {
  try {
    return require('../package.json') as { version: string };
  } catch {
    return require('../../package.json') as { version: string };
  }
})();

export const VERSION: string = manifest.version;
