// GET /: where a person who opens the server's address in a browser finds the API reference, the OpenAPI
// document and the console; a program asking the same URL gets the same links as JSON.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ICON_SVG } from './brand.js';

/** The server's own pages, relative to its address. */
export const LINKS = {
  docs: '/docs',
  openapi: '/openapi.json',
  console: '/console',
  health: '/_edgeplane/health',
  metrics: '/metrics',
} as const;

const ICON_DATA_URL = `data:image/svg+xml;base64,${Buffer.from(ICON_SVG).toString('base64')}`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(version: string, origin: string): string {
  const base = escapeHtml(origin);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Edgeplane ${escapeHtml(version)}</title>
<link rel="icon" href="${ICON_DATA_URL}">
<style>
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1c2733; background: #f4f7fa; }
  header { background: #0f3d5c; color: #fff; padding: 24px 32px; display: flex; align-items: center; gap: 16px; }
  header img { width: 48px; height: 48px; }
  header h1 { margin: 0; font-size: 28px; }
  header span { opacity: .75; }
  main { max-width: 760px; margin: 0 auto; padding: 24px 32px; }
  ul.links { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px; }
  ul.links a { display: block; padding: 14px 16px; background: #fff; border: 1px solid #d5dee6; border-radius: 8px; text-decoration: none; color: #0f3d5c; }
  ul.links a:hover { border-color: #0f3d5c; }
  ul.links b { display: block; }
  ul.links small { color: #5a6b7b; }
  code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 14px; }
  pre { background: #fff; border: 1px solid #d5dee6; border-radius: 8px; padding: 12px 16px; overflow-x: auto; }
</style>
</head>
<body>
<header><img src="${ICON_DATA_URL}" alt=""><h1>Edgeplane</h1><span>${escapeHtml(version)}</span></header>
<main>
<p>A self-hosted, API-compatible control plane for CDN, cloud, WAAP, DDoS, edge and IAM APIs. Point the official clients at this address.</p>
<ul class="links">
  <li><a href="${LINKS.docs}"><b>API reference</b><small>every operation, try it in the browser</small></a></li>
  <li><a href="${LINKS.console}"><b>Console</b><small>browse and change what the server holds</small></a></li>
  <li><a href="${LINKS.openapi}"><b>OpenAPI document</b><small>for code generators and API tools</small></a></li>
  <li><a href="${LINKS.health}"><b>Health</b><small>liveness and readiness, for probes</small></a></li>
  <li><a href="${LINKS.metrics}"><b>Metrics</b><small>Prometheus text format</small></a></li>
</ul>
<p>Every API call carries <code>Authorization: APIKey &lt;token&gt;</code>. The demo account's token is printed when the server first starts (or set it with <code>EDGEPLANE_API_KEY</code>).</p>
<pre>curl -H 'Authorization: APIKey &lt;token&gt;' ${base}/iam/clients/me</pre>
</main>
</body>
</html>
`;
}

/** Whether the request prefers a page: browsers list text/html in Accept; curl and API clients do not. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

export function registerLandingPage(app: FastifyInstance, version: string): void {
  app.get('/', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'Accept');
    if (!wantsHtml(request)) return { name: 'Edgeplane', version, links: LINKS };
    return reply.type('text/html; charset=utf-8').send(page(version, `${request.protocol}://${request.host}`));
  });
}
