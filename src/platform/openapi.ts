// The OpenAPI document is generated from the route schemas (nothing is written twice) and served at
// /openapi.json; /docs is the interactive reference (its assets ship in the package, so it works offline).
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ICON_SVG, WORDMARK_SVG } from './brand.js';
import { AppError } from './errors.js';
import { pathOf } from './http.js';

export interface OpenApiOptions {
  version: string;
  tags: { name: string; description: string }[];
  /**
   * Which part of the server serves an operation (`modelled` or `catalogue`), written into each operation
   * as `x-edgeplane-implementation`; and the operations a route answers through a router of its own (the
   * catalogue engine's), which Fastify's routes do not show.
   */
  implementationOf?: (operationId: string | undefined) => string;
  dispatched?: () => DispatchedOperation[];
}

export interface DispatchedOperation {
  method: string;
  /** The path as the reference spells it (`{param}`). */
  path: string;
  operationId: string;
  tag: string;
}

type OpenApiDocument = { paths?: Record<string, Record<string, { operationId?: string; [key: string]: unknown }>> };

/** A dispatched operation as the document lists it: what Fastify's swagger writes for a route without a schema. */
function describe(operation: DispatchedOperation) {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    ...(names.length > 0 ? { parameters: names.map((name) => ({ schema: { type: 'string' }, in: 'path', name, required: true })) } : {}),
    responses: { 200: { description: 'Default Response' } },
  };
}

function markImplementations(doc: OpenApiDocument, implementationOf: OpenApiOptions['implementationOf'], dispatched: DispatchedOperation[]): OpenApiDocument {
  if (!implementationOf) return doc;
  const paths = (doc.paths ??= {});
  for (const operation of dispatched) {
    const item = (paths[operation.path] ??= {});
    item[operation.method.toLowerCase()] ??= describe(operation);
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (operation && typeof operation === 'object' && 'operationId' in operation)
        operation['x-edgeplane-implementation'] = implementationOf(operation.operationId);
    }
  }
  return doc;
}

const DOCS_PREFIX = '/docs';
// Collapsed tags and no schema section: the page shows hundreds of operations, and expanding them all
// at once is most of what made it slow to open. The filter box finds a tag; operation ids are the ones
// faults and the journal use.
const UI_CONFIG = {
  docExpansion: 'none',
  defaultModelsExpandDepth: -1,
  deepLinking: true,
  filter: true,
  displayOperationId: true,
  persistAuthorization: true,
} as const;
// The top bar's "explore another URL" box belongs to a generic viewer, not to this server's reference.
const UI_CSS = '.swagger-ui .topbar .download-url-wrapper { display: none; } .swagger-ui .topbar { background: #0f3d5c; }';
const UI_THEME = {
  title: 'Edgeplane API reference',
  favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(ICON_SVG) }],
  css: [{ filename: 'edgeplane.css', content: UI_CSS }],
};
const UI_LOGO = { type: 'image/svg+xml', content: Buffer.from(WORDMARK_SVG), href: '/', target: '_self' } as const;

export async function registerOpenApi(app: FastifyInstance, { version, tags, implementationOf, dispatched }: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    transformObject: (document) =>
      markImplementations((document as { openapiObject: OpenApiDocument }).openapiObject, implementationOf, dispatched?.() ?? []) as never,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Edgeplane',
        version,
        description: 'Self-hostable implementation of the unified infrastructure API. Authenticate with `Authorization: APIKey <token>`.',
      },
      tags,
      components: {
        securitySchemes: {
          APIKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: "'APIKey <token>'" },
        },
      },
      security: [{ APIKey: [] }],
    },
  });
  // The document (half a megabyte) is the same for the life of the server: serialised and compressed once,
  // on its first request, then answered from memory to both /openapi.json and the reference page.
  let document: PreparedBody | undefined;
  const serveDocument = async (request: FastifyRequest, reply: FastifyReply) => {
    document ??= prepareBody(JSON.stringify(app.swagger()), 'application/json; charset=utf-8');
    return sendPrepared(request, reply, document);
  };
  const options = { config: { access: 'public' }, schema: { hide: true } } as const;
  app.get('/openapi.json', options, serveDocument);
  app.get(`${DOCS_PREFIX}/json`, options, serveDocument);
  registerDocs(app);
}

/** A body made once: as it is, gzipped, and its validator. */
interface PreparedBody {
  type: string;
  identity: Buffer;
  gzip: Buffer;
  etag: string;
}

function prepareBody(body: string | Buffer, type: string, etag?: string): PreparedBody {
  const identity = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { type, identity, gzip: gzipSync(identity), etag: etag ?? `"${createHash('sha1').update(identity).digest('base64url')}"` };
}

/** Answers a prepared body: 304 when the client has it, gzipped when the client takes gzip. */
function sendPrepared(request: FastifyRequest, reply: FastifyReply, body: PreparedBody): FastifyReply {
  reply.header('etag', body.etag).header('vary', 'Accept-Encoding').type(body.type);
  if (request.headers['if-none-match'] === body.etag) return reply.code(304).send();
  const encoding = negotiate(request.headers['accept-encoding'] ?? '', ['gzip', 'identity']);
  if (encoding === 'gzip') return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.identity);
}

// Text assets of the reference page worth compressing (swagger-ui's bundle alone is 1.5 MB).
const COMPRESSIBLE = /^(application\/javascript|text\/css|text\/html|application\/json)/;

/**
 * /docs is @fastify/swagger-ui. Loading it (with @fastify/static, yaml and their files) took about a
 * tenth of the whole start-up, for a page few runs ever open. So it is built on the first request under
 * /docs, as a Fastify instance of its own that serves this app's document, and its answers are relayed
 * (status, headers such as ETag and Last-Modified, body); text assets are compressed once and kept.
 */
function registerDocs(app: FastifyInstance): void {
  let docs: Promise<FastifyInstance> | undefined;
  const compressed = new Map<string, PreparedBody>();
  const relay = async (request: FastifyRequest, reply: FastifyReply) => {
    docs ??= buildDocsApp(app).catch((error: unknown) => {
      docs = undefined; // a failed build is retried by the next request
      throw error;
    });
    const answer = await (await docs).inject({ method: 'GET', url: request.url, headers: request.headers });
    // A missing asset is a 404 in the API's own error shape, as an unknown route is.
    if (answer.statusCode === 404) throw new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    const type = String(answer.headers['content-type'] ?? '');
    if (answer.statusCode === 200 && COMPRESSIBLE.test(type) && answer.rawPayload.length > 1024) {
      const key = `${pathOf(request.url)} ${answer.headers.etag ?? ''}`;
      let body = compressed.get(key);
      if (!body) compressed.set(key, (body = prepareBody(answer.rawPayload, type, answer.headers.etag as string | undefined)));
      return sendPrepared(request, reply, body);
    }
    // An empty body (a redirect, a 304) goes as none, so no content type is made up for it.
    return reply.code(answer.statusCode).send(answer.rawPayload.length > 0 ? answer.rawPayload : undefined);
  };
  const options = { config: { access: 'public' }, schema: { hide: true } } as const;
  app.get(DOCS_PREFIX, options, relay);
  app.get(`${DOCS_PREFIX}/*`, options, relay);
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => undefined))?.close();
  });
}

// Set by this app's own reply (length, connection handling, date), not copied from the inner answer.
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

async function buildDocsApp(app: FastifyInstance): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  const docs = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  // swagger-ui reads the document through `swagger()` of the plugin named @fastify/swagger: this app's.
  await docs.register(
    fp(
      async (instance) => {
        instance.decorate('swagger', ((options?: { yaml?: boolean }) => app.swagger(options as { yaml: true })) as FastifyInstance['swagger']);
      },
      { name: '@fastify/swagger' },
    ),
  );
  await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: UI_CONFIG, theme: UI_THEME, logo: UI_LOGO });
  await docs.ready();
  return docs;
}
