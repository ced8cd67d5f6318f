// Shared set-up for the WAAP tests: domains through the control API and events through bulk ingestion.
import type { TestApp } from './app.js';

export async function createDomain(t: TestApp, clientId: number, name: string, status?: string): Promise<{ id: number; name: string }> {
  const res = await t.request('POST', '/_edgeplane/waap/domains', { headers: t.operator, body: { client_id: clientId, name, ...(status ? { status } : {}) } });
  if (res.statusCode !== 201) throw new Error(`domain creation failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A request id in the provider's form, made unique by n. */
export function rid(n: number): string {
  return `${n.toString(16).padStart(32, '0')}-${String(n % 1_000_000).padStart(6, '0')}`;
}

export function hex32(n: number): string {
  return n.toString(16).padStart(32, 'a');
}

/** A minimal valid ingestion record; `over` overrides any field. */
export function event(domainId: number, n: number, time: number | string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    domain_id: domainId,
    id: rid(n),
    request_time: time,
    decision: 'passed',
    network: { client_ip: `10.0.${n % 250}.${1 + (n % 200)}`, country: 'US', organization: { name: 'Example ISP', subnet: '10.0.0.0/8' } },
    method: 'GET',
    path: '/index.html',
    http_status_code: 200,
    ...over,
  };
}

export async function ingest(t: TestApp, records: unknown[]): Promise<{ accepted: number; rejected: number; errors: { line: number; detail: string }[] }> {
  const res = await t.request('POST', '/_edgeplane/waap/events', {
    headers: { ...t.operator, 'content-type': 'application/x-ndjson' },
    body: records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n'),
  });
  if (res.statusCode !== 200) throw new Error(`ingestion failed: ${res.statusCode} ${res.body}`);
  return res.json();
}
