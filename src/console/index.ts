// The web console: the provider's control panel, run locally against this server's own public API and
// control API. The server only serves its built files; everything it shows comes from API calls made
// by the browser with the user's tokens.
import { plainEnvelope } from '../platform/envelopes.js';
import type { Product } from '../platform/product.js';
import { CONSOLE_PREFIX, consoleRoutes, defaultConsoleDir } from './files.js';

export interface ConsoleOptions {
  /** Folder of the built console (default: dist/console of this package). */
  dir?: string;
}

export function createConsole(options: ConsoleOptions = {}): Product {
  const dir = options.dir ?? defaultConsoleDir();
  return {
    name: 'console',
    prefixes: [CONSOLE_PREFIX],
    envelope: plainEnvelope,
    register(app) {
      consoleRoutes(app, dir);
    },
  };
}
