// An esbuild plugin for the bundles: dependencies that load Node modules at their top level which only a
// few of their functions use, and which Edgeplane never calls on its start path, get those modules on
// first use instead. Fastify's server loads `https`, `http2` (which loads `tls`) and `dns` for HTTPS,
// HTTP/2 and listening on a host name; prom-client's Pushgateway `https`; cli-progress `readline` for
// its terminal output; Commander `child_process` for subcommands that are executables. A start-up
// profile put them at about 15 ms; measured from spawn to ready, 9 ms (bench/README.md). A module is now
// a stand-in that loads it when one of its members is first read, which is all these files do with them
// (`https.createServer(...)`, `dns.lookup(...)`).
import { type Rewrite, sourceRewrites } from './source-rewrites.js';

/** `const name = require('module')` as a stand-in that requires the module on first use. */
function lazy(name: string, module: string, end = ''): Rewrite['to'] {
  return `const ${name} = new Proxy({}, { get: (_, key) => require('${module}')[key] })${end}`;
}

const REWRITES: Rewrite[] = [
  ...['https', 'http2', 'dns'].map((module) => ({
    file: /[\\/]fastify[\\/]lib[\\/]server\.js$/,
    from: `const ${module} = require('node:${module}')\n`,
    to: `${lazy(module, `node:${module}`)}\n`,
  })),
  {
    file: /[\\/]prom-client[\\/]lib[\\/]pushgateway\.js$/,
    from: "const https = require('https');\n",
    to: `${lazy('https', 'https', ';')}\n`,
  },
  {
    file: /[\\/]cli-progress[\\/]lib[\\/]terminal\.js$/,
    from: "const _readline = require('readline');\n",
    to: `${lazy('_readline', 'readline', ';')}\n`,
  },
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    from: "const childProcess = require('node:child_process');\n",
    to: `${lazy('childProcess', 'node:child_process', ';')}\n`,
  },
];

export const lazyBuiltins = sourceRewrites('lazy-builtins', REWRITES);
