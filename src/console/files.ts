// Serves the web console's built files (console/ built by `npm run build` into dist/console). The console
// is a single-page app: a path under /console that names no file is one of its views, so it gets
// index.html and the app's router shows the view (a reload or a shared link works on any view).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';

export const CONSOLE_PREFIX = '/console';

// Built asset names carry a hash of their content, so a browser may keep them for good.
const ASSET_CACHE = { maxAge: 365 * 86_400_000, immutable: true } as const;
// index.html names the current assets: it must be revalidated on every load (cheap: ETag, 304).
const PAGE_CACHE_CONTROL = 'no-cache';
// The console calls only this server's API; nothing else may load or run in it.
const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
// What the build precompresses (scripts/build-console.ts), in the order tried.
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
// A path naming a file (it has an extension, or lies under assets/) is never answered with the page.
const FILE_PATH = /(^assets\/)|(\.[A-Za-z0-9]+$)/;

type Send = typeof import('@fastify/send').default;
type Negotiate = typeof import('@fastify/accept-negotiator').negotiate;

/**
 * The folder of the built console: dist/console of the package this module belongs to, found by walking
 * up to its package.json (the sources are two levels below it, the bundles in dist/ one).
 */
export function defaultConsoleDir(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve('dist', 'console');
    dir = parent;
  }
  return path.join(dir, 'dist', 'console');
}

export function consoleRoutes(app: FastifyInstance, dir: string): void {
  // Loaded by the first console request, not at start-up: most runs never open the console.
  let modules: Promise<{ send: Send; negotiate: Negotiate }> | undefined;
  const load = () =>
    (modules ??= Promise.all([import('@fastify/send'), import('@fastify/accept-negotiator')]).then(([send, negotiator]) => ({
      send: send.default,
      negotiate: negotiator.negotiate,
    })));

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const { send, negotiate } = await load();
    const wanted = relativePath(request.url);
    if (wanted === undefined) throw new AppError('not_found', `No console file ${request.url.split('?')[0]}`);
    const isFile = FILE_PATH.test(wanted);
    const file = isFile ? wanted : 'index.html';
    if (!fs.existsSync(path.join(dir, 'index.html'))) {
      throw new AppError('not_found', `The web console is not built in ${dir}: run npm run build`);
    }
    const encoding = precompressed(dir, file, request.headers['accept-encoding'], negotiate);
    const result = await send(request.raw, `/${file}${encoding?.suffix ?? ''}`, {
      root: dir,
      dotfiles: 'ignore',
      index: false,
      contentType: false,
      ...(file === 'index.html' ? { cacheControl: false } : ASSET_CACHE),
    });
    if (result.type !== 'file' && result.statusCode >= 400) {
      result.stream.destroy();
      throw new AppError('not_found', `No console file ${request.url.split('?')[0]}`);
    }
    reply.code(result.statusCode).headers(result.headers);
    reply.header('content-type', contentType(send, file));
    if (encoding) reply.header('content-encoding', encoding.name);
    if (hasVariants(dir, file)) reply.header('vary', 'Accept-Encoding');
    if (file === 'index.html') reply.header('cache-control', PAGE_CACHE_CONTROL).headers(PAGE_SECURITY_HEADERS);
    return reply.send(result.stream);
  };
  const options = { config: { access: 'public', serverFiles: true }, schema: { hide: true } } as const;
  app.get(CONSOLE_PREFIX, options, serve);
  app.get(`${CONSOLE_PREFIX}/*`, options, serve);
}

/** The path below /console, still URL-encoded (send decodes it and refuses `..`); undefined if unsafe. */
function relativePath(url: string): string | undefined {
  const pathname = url.split('?')[0];
  const rest = pathname.slice(CONSOLE_PREFIX.length).replace(/^\/+/, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.split(/[\\/]/).some((part) => part === '..' || part.startsWith('.'))) return undefined;
  return rest;
}

function precompressed(dir: string, file: string, accepted: string | undefined, negotiate: Negotiate) {
  if (!accepted) return undefined;
  const available = ENCODINGS.filter(({ suffix }) => fs.existsSync(path.join(dir, decodeURIComponent(file) + suffix)));
  if (available.length === 0) return undefined;
  const chosen = negotiate(
    accepted,
    available.map(({ name }) => name),
  );
  return available.find(({ name }) => name === chosen);
}

function hasVariants(dir: string, file: string): boolean {
  return ENCODINGS.some(({ suffix }) => fs.existsSync(path.join(dir, decodeURIComponent(file) + suffix)));
}

function contentType(send: Send, file: string): string {
  const type = send.mime.getType(file) ?? 'application/octet-stream';
  return send.isUtf8MimeType(type) ? `${type}; charset=utf-8` : type;
}
