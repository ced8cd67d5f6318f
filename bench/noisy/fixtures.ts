// What the noisy-neighbour benchmark sets up through the API before measuring: a victim client (the
// requests whose latency is measured) and a noisy one owning the data its worst requests work on: a
// WAAP log of a few hundred thousand events, 500 CDN rule templates and a CDN resource with 100 rules
// whose patterns are as slow to match as the linear-time matcher allows, and a DNS zone.
import http from 'node:http';
import { call, json, OPERATOR, seedClients } from './lib.js';

/** The noisy client's requests (see noise.ts), in the order it sends them. */
export const ALL_KINDS = [
  'waap-list',
  'waap-stats',
  'waap-traffic',
  'cdn-templates',
  'cdn-effective',
  'big-json',
  'deep-json',
  'gzip-bomb',
  'gzip-lines',
  'dns-import',
  'dns-mappings',
  'csv-export',
  'engine-report',
  'engine-wrong-items',
  'cloud-wrong-items',
];

export interface Fixtures {
  url: string;
  operator: string;
  victim: { clientId: number; token: string };
  noisy: { clientId: number; token: string };
  resourceId: number;
  zone: string;
  events: number;
}

/**
 * Patterns the rule checks accept (RE2 compiles them) that cost the most per character of the path:
 * `(?:a?){N}a{N}` makes the matcher follow about N states at each character (33 ms for N = 500 against
 * a 2,000-character path here).
 */
export function slowPattern(i: number, n = 500): string {
  return `^/(?:a?){${n}}a{${n}}(?:x${i})?$`;
}

async function post(agent: http.Agent, url: string, token: string, body: unknown, expect = [200, 201]): Promise<any> {
  const answer = await call(agent, 'POST', url, json(token), JSON.stringify(body));
  if (!expect.includes(answer.status)) throw new Error(`POST ${url}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer.body ? JSON.parse(answer.body) : undefined;
}

export async function setUp(url: string, options: { events: number; log: (line: string) => void }): Promise<Fixtures> {
  const agent = new http.Agent({ keepAlive: true });
  const { victim, noisy } = await seedClients(url, ['victim', 'noisy']);
  const started = performance.now();
  await post(agent, `${url}/_edgeplane/waap/generate`, OPERATOR, { client_ids: [noisy.clientId], events: options.events, days: 29, seed: 1 });
  options.log(`  WAAP: ${options.events.toLocaleString('en')} events generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const templates = 500;
  for (let i = 0; i < templates; i += 1) {
    await post(agent, `${url}/cdn/resources/rule_templates`, noisy.token, {
      name: `slow ${i}`,
      rule: slowPattern(i),
      ruleType: 0,
      weight: i + 1,
      options: {
        edge_cache_settings: { enabled: true, value: '43200s' },
        browser_cache_settings: { enabled: true, value: '3600s' },
        gzipOn: { enabled: true, value: true },
      },
    });
  }
  const group = await post(agent, `${url}/cdn/origin_groups`, noisy.token, { name: `noisy-${process.pid}`, sources: [{ source: 'origin.example.com' }] });
  const resource = await post(agent, `${url}/cdn/resources`, noisy.token, { cname: `noisy-${process.pid}-${Date.now()}.example.com`, originGroup: group.id });
  for (let i = 0; i < 100; i += 1) {
    await post(agent, `${url}/cdn/resources/${resource.id}/rules`, noisy.token, {
      name: `slow ${i}`,
      rule: slowPattern(i),
      ruleType: 0,
      active: true,
      weight: i + 1,
    });
  }
  options.log(`  CDN: ${templates} rule templates, resource ${resource.id} with 100 rules`);

  const zone = `noisy-${process.pid}.example`;
  await post(agent, `${url}/dns/v2/zones`, noisy.token, { name: zone });
  agent.destroy();
  return { url, operator: OPERATOR, victim, noisy, resourceId: resource.id, zone, events: options.events };
}
