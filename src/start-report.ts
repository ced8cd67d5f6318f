// What the server says once it listens: where it is, what it runs on, and the tokens to call it with.
// On a terminal, one block a person reads at a glance; as JSON lines, one record per fact, with fields a
// script can pick up (the URL of a server started on --port 0, the tokens of a fresh database).
import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyOutcome, DemoAccount } from './iam/bootstrap.js';
import { UNKNOWN_TOKEN } from './iam/tokens/service.js';
import { LINKS } from './platform/landing.js';
import { VERSION } from './version.js';

export interface StartReport {
  url: string;
  /** e.g. `sqlite /path/edgeplane.sqlite`, `postgres host/db` */
  database: string;
  taskMode: string;
  /** The demo account this start created, with its token. */
  demo?: DemoAccount;
  /** Whether the demo token came from EDGEPLANE_API_KEY (so it is not shown). */
  demoFromApiKey: boolean;
  /** The operator token this start generated. */
  operatorToken?: string;
  /** What became of EDGEPLANE_API_KEY on a database made by an earlier start. */
  apiKey?: ApiKeyOutcome;
}

/** The fix for an EDGEPLANE_API_KEY the database does not know, in the README's words. */
export const APPLY_API_KEY_HINT =
  'to make it apply, start once with --apply-api-key (EDGEPLANE_APPLY_API_KEY=true), which adds it to the demo account; or start on an empty data dir (--data-dir, --memory)';

function apiKeyWarning(outcome: ApiKeyOutcome | undefined): string | undefined {
  if (outcome?.kind !== 'ignored') return undefined;
  return outcome.problem !== UNKNOWN_TOKEN
    ? `EDGEPLANE_API_KEY cannot be used on this database: ${outcome.problem} Choose another key, or issue a token through /iam`
    : `EDGEPLANE_API_KEY is ignored: it is not a token of this database, whose demo account was created by an earlier start (with the token printed then). Calls with it get 401; ${APPLY_API_KEY_HINT}`;
}

export function banner(report: StartReport): string {
  const rows: [string, string][] = [
    ['API reference', `${report.url}${LINKS.docs}  (OpenAPI: ${report.url}${LINKS.openapi})`],
    ['console', `${report.url}${LINKS.console}`],
    ['database', report.database],
    ['cloud tasks', report.taskMode],
  ];
  if (report.demo) {
    rows.push([
      'demo account',
      `client ${report.demo.clientId}, API token ${report.demoFromApiKey ? 'from EDGEPLANE_API_KEY' : `${report.demo.token}  (shown once)`}`,
    ]);
  }
  if (report.apiKey?.kind === 'applied') rows.push(['API key', `EDGEPLANE_API_KEY added to the demo account (client ${report.apiKey.clientId})`]);
  if (report.operatorToken) rows.push(['operator token', `${report.operatorToken}  (for /_edgeplane; shown once)`]);
  if (report.demo && !report.demoFromApiKey) rows.push(['first call', `curl -H 'Authorization: APIKey ${report.demo.token}' ${report.url}/iam/clients/me`]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return [`Edgeplane ${VERSION} is ready at ${report.url}`, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join('\n');
}

/** Logs the start: a banner when the log is for a person, else the JSON records scripts rely on. */
export function announceStart(log: FastifyBaseLogger, report: StartReport, pretty: boolean): void {
  const warning = apiKeyWarning(report.apiKey);
  if (pretty) {
    log.info(banner(report));
    if (warning) log.warn(warning);
    return;
  }
  if (report.demo && !report.demoFromApiKey) log.warn(`demo account ${report.demo.clientId} created; its API token (shown once): ${report.demo.token}`);
  else if (report.demo) log.info(`demo account ${report.demo.clientId} created with the API token from EDGEPLANE_API_KEY`);
  if (report.apiKey?.kind === 'applied') log.info(`EDGEPLANE_API_KEY added to the demo account (client ${report.apiKey.clientId})`);
  if (warning) log.warn(warning);
  if (report.operatorToken) log.warn(`operator token for /_edgeplane (shown once): ${report.operatorToken}`);
  log.info({ url: report.url, docs: `${report.url}${LINKS.docs}`, database: report.database }, `edgeplane listening on ${report.url} (${report.database})`);
}
