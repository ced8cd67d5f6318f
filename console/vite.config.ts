// The web console's build (run by scripts/build-console.ts, part of `npm run build`). Preact's JSX is
// compiled by Vite's own esbuild transform, so no framework plugin (and no Babel) is needed.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { cdnOptionCatalogue } from './cdn-options-plugin';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [cdnOptionCatalogue()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The bundle budget test reads which files the first load needs from here.
    manifest: true,
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
    rollupOptions: {
      // TanStack's "use client" markers mean nothing outside React server components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // `npx vite console` serves the sources with hot reload; API calls go to a running Edgeplane.
  server: {
    proxy: Object.fromEntries(
      ['/waap', '/cloud', '/cdn', '/iam', '/security', '/fastedge', '/edge-functions', '/_edgeplane'].map((prefix) => [
        prefix,
        process.env.EDGEPLANE_URL ?? 'http://127.0.0.1:8080',
      ]),
    ),
  },
});
