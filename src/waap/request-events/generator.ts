// Deterministic, realistic WAAP traffic: sessions of browsers, bots and attackers spread over the last
// D days; about 90% of requests pass, the rest are blocked, monitored or allowed, some with a captcha or
// a JS challenge. The same seed always gives the same events (ids included).
import type { Clock } from '../../platform/clock.js';
import { CATALOGUE, type Attack, type Org, type Agent } from './generator-data.js';
import { BATCH, toRow, type DomainInfo } from './records.js';
import type { IngestRecord } from './schemas.js';
import type { EventRow } from './log/index.js';

export interface GenerateOptions {
  clientIds: number[];
  events: number;
  days: number;
  seed: number;
  /** Share of the events going to the first client (the rest is split evenly); default even split. */
  firstShare?: number;
  /** Told how many events are done after each batch (the command line's progress bar). */
  onProgress?: (done: number) => void;
}

export interface DomainSource {
  domainsOf(clientId: number): Promise<{ id: number; name: string }[]>;
  createDefaultDomains(clientId: number): Promise<{ id: number; name: string }[]>;
}

export interface RowSink {
  ingestRows(rows: EventRow[]): Promise<number>;
}

/** mulberry32: small, fast and good enough for synthetic traffic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Session {
  ip: string;
  org: Org;
  agent: Agent;
  sessionId: string;
  referenceId: string;
  attack?: Attack;
  left: number;
  count: number;
}

export class TrafficGenerator {
  readonly random: () => number;
  private seq = 0;

  constructor(seed: number) {
    this.random = prng(seed);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private weighted<T extends { weight: number }>(items: readonly T[], total: number): T {
    let r = this.random() * total;
    for (const item of items) {
      r -= item.weight;
      if (r < 0) return item;
    }
    return items[items.length - 1];
  }

  private hex(chars: number): string {
    let out = '';
    while (out.length < chars)
      out += Math.floor(this.random() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, chars);
  }

  newSession(): Session {
    const org = this.weighted(CATALOGUE.orgs, CATALOGUE.orgWeight);
    const attackerRoll = this.random();
    const attack = attackerRoll < 0.025 ? this.pick(CATALOGUE.attacks) : undefined;
    const agent = attack ? this.pick(attack.agents.map((i) => CATALOGUE.agents[i])) : this.weighted(CATALOGUE.agents, CATALOGUE.agentWeight);
    const [a, b] = org.prefix;
    const ip = org.v6
      ? `2001:db8:${a.toString(16)}:${b.toString(16)}::${Math.floor(this.random() * 65535).toString(16)}`
      : `${a}.${b}.${Math.floor(this.random() * 256)}.${1 + Math.floor(this.random() * 254)}`;
    const left = attack ? 10 + Math.floor(this.random() * 30) : 1 + Math.floor(this.random() * 14);
    return { ip, org, agent, attack, sessionId: this.hex(32), referenceId: this.hex(32), left, count: 0 };
  }

  /** One request of a session at a time. */
  record(session: Session, domain: { id: number; name: string }, time: number): IngestRecord {
    session.left -= 1;
    session.count += 1;
    const attack = session.attack;
    let decision: IngestRecord['decision'] = 'passed';
    let optional: '' | 'captcha' | 'challenge' = '';
    let rule: { id: string; name: string; tags: string[] } | undefined;
    const roll = this.random();
    if (attack) {
      decision = roll < 0.62 ? 'blocked' : roll < 0.86 ? 'monitored' : roll < 0.9 ? 'allowed' : 'passed';
      if (decision !== 'passed') rule = attack.rule;
      if (decision === 'blocked') optional = this.random() < 0.25 ? (this.random() < 0.5 ? 'captcha' : 'challenge') : '';
    } else if (roll < 0.015) {
      decision = 'allowed';
      rule = this.pick(CATALOGUE.allowRules);
    } else if (roll < 0.02) {
      decision = 'blocked';
      rule = this.pick(CATALOGUE.benignBlocks);
      optional = this.random() < 0.5 ? 'captcha' : 'challenge';
    } else if (roll < 0.023) {
      decision = 'monitored';
      rule = this.pick(CATALOGUE.benignBlocks);
    } else if (roll < 0.03) {
      optional = 'challenge';
    }
    const route = attack && decision !== 'passed' ? this.pick(attack.paths) : this.weighted(CATALOGUE.routes, CATALOGUE.routeWeight);
    const method = route.methods[Math.floor(this.random() * route.methods.length)];
    const status = decision === 'blocked' ? 403 : this.weighted(route.statuses, route.statusWeight).code;
    const path = route.path.replace('{n}', String(1 + Math.floor(this.random() * 5000)));
    this.seq = (this.seq + 1) % 1_000_000;
    const tags = rule && decision !== 'allowed' ? rule.tags : [];
    return {
      domain_id: domain.id,
      // Time-ordered ids (time in the first 12 hex digits) keep the id index append-mostly on bulk loads.
      id: `${time.toString(16).padStart(12, '0').slice(-12)}${this.hex(20)}-${String(this.seq).padStart(6, '0')}`,
      request_time: time,
      decision,
      optional_action: optional,
      network: { client_ip: session.ip, country: session.org.country, organization: { name: session.org.name, subnet: session.org.subnet } },
      method,
      path,
      query_string: attack && decision !== 'passed' ? attack.query : route.query,
      http_status_code: status,
      rule_id: rule?.id ?? '',
      rule_name: rule?.name ?? '',
      reference_id: decision === 'blocked' || optional !== '' ? session.referenceId : '',
      session_id: session.sessionId,
      user_agent: session.agent.parsed,
      request_headers: { host: domain.name, 'user-agent': session.agent.parsed.full_string, accept: route.accept, 'x-forwarded-proto': 'https' },
      traffic_types: route.traffic,
      pattern_matched_tags: tags.map((t) => ({
        ...CATALOGUE.tags[t],
        field: 'uri',
        field_name: 'q',
        pattern_name: CATALOGUE.tags[t].display_name,
        pattern_value: attack?.query.slice(0, 40) ?? '',
        execution_phase: 'access',
      })),
      common_tags: attack && decision !== 'passed' ? [CATALOGUE.commonTags[attack.common]] : [],
      detector: [],
      content_type: route.contentType,
      scheme: 'https',
      http_version: session.agent.http2 ? '2.0' : '1.1',
      response_time: `${decision === 'blocked' ? 1 + Math.floor(this.random() * 5) : 20 + Math.floor(this.random() * 400)}ms`,
      incident_id: optional !== '' ? this.hex(32) : '',
      request_type: route.traffic[0] ?? 'page',
      session_request_count: String(session.count),
      requested_domain: domain.name,
      ja3: session.agent.ja3,
      ja4: session.agent.ja4,
    };
  }
}

/** Generates `events` events over the last `days` days for the given clients and ingests them in batches. */
export async function generateTraffic(
  options: GenerateOptions,
  domains: DomainSource,
  sink: RowSink,
  clock: Clock,
): Promise<{ generated: number; accepted: number; perClient: Record<string, number> }> {
  const { clientIds, events, days, seed } = options;
  const gen = new TrafficGenerator(seed);
  const owners: { clientId: number; domains: DomainInfo[]; ids: { id: number; name: string }[]; sessions: Session[] }[] = [];
  for (const clientId of clientIds) {
    let list = await domains.domainsOf(clientId);
    if (list.length === 0) list = await domains.createDefaultDomains(clientId);
    owners.push({ clientId, domains: list.map((d) => ({ client_id: clientId, name: d.name })), ids: list, sessions: [] });
  }
  const first = clientIds.length > 1 ? (options.firstShare ?? 1 / clientIds.length) : 1;
  const rest = clientIds.length > 1 ? (1 - first) / (clientIds.length - 1) : 0;
  const end = clock.now();
  const span = days * 86_400_000;
  const start = end - span;
  const perClient: Record<string, number> = {};
  let batch: EventRow[] = [];
  let accepted = 0;
  for (let i = 0; i < events; i += 1) {
    const r = gen.random();
    const index = r < first ? 0 : Math.min(owners.length - 1, 1 + Math.floor((r - first) / rest));
    const owner = owners[index];
    // Time grows with i so batches stay local in time; a little jitter avoids a perfect comb.
    const time = Math.min(end - 1, Math.floor(start + ((i + gen.random()) * span) / events));
    const slot = Math.floor(gen.random() * 8);
    if (!owner.sessions[slot] || owner.sessions[slot].left <= 0) owner.sessions[slot] = gen.newSession();
    const domainIndex = Math.floor(gen.random() * owner.ids.length);
    const record = gen.record(owner.sessions[slot], owner.ids[domainIndex], time);
    batch.push(toRow(record, owner.domains[domainIndex]));
    perClient[owner.clientId] = (perClient[owner.clientId] ?? 0) + 1;
    if (batch.length >= BATCH) {
      accepted += await sink.ingestRows(batch);
      batch = [];
      options.onProgress?.(i + 1);
    }
  }
  if (batch.length > 0) accepted += await sink.ingestRows(batch);
  options.onProgress?.(events);
  return { generated: events, accepted, perClient };
}
