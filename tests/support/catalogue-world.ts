// A client's world for requests generated from the catalogue: one record of every resource an operation
// needs (parents first, made through the API itself), and valid path parameters, queries and bodies for
// any operation. Used by the whole-API conformance test and the collection round trips.
import type { LightMyRequestResponse } from 'fastify';
import { fill, type FillContext } from '../../src/catalogue-engine/fill.js';
import { Inference, type Plan, type Resource } from '../../src/catalogue-engine/infer.js';
import { isParam, paramName, segmentsOf } from '../../src/catalogue-engine/words.js';
import { type CatalogueOperation, readCatalogue } from '../../src/platform/catalogue/index.js';
import type { TestAccount, TestApp } from './app.js';

export interface Generated {
  url: string;
  body?: unknown;
  contentType?: string;
}

export class World {
  readonly catalogue = readCatalogue();
  readonly inference = new Inference(this.catalogue);
  /** Concrete values per item, by collection and scope: `collection|scopeValues` -> key values. */
  private readonly made = new Map<string, string[] | undefined>();
  readonly problems: string[] = [];
  readonly known: Record<string, string> = {};

  constructor(
    private readonly t: TestApp,
    readonly account: TestAccount,
  ) {}

  async setup(): Promise<void> {
    const projects = await this.t.request('GET', '/cloud/v1/projects', { headers: this.account.headers });
    const regions = await this.t.request('GET', '/cloud/v1/regions', { headers: this.account.headers });
    Object.assign(this.known, {
      project_id: String(projects.json().results[0].id),
      region_id: String(regions.json().results[0].id),
      client_id: String(this.account.clientId),
      clientId: String(this.account.clientId),
      userId: String(this.account.userId),
    });
  }

  operatorRequest(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> {
    return this.t.request(method, url, { headers: this.t.operator, body });
  }

  /** A cloud create through its task; the id `created_resources` names under `key`. */
  async cloudCreate(base: string, body: unknown, key: string): Promise<string[] | undefined> {
    const res = await this.request('POST', `${base}/${this.known.project_id}/${this.known.region_id}`, body, 'application/json');
    if (res.statusCode >= 300) {
      this.problems.push(`recipe ${base} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
      return undefined;
    }
    const task = (await this.request('GET', `/cloud/v1/tasks/${res.json().tasks[0]}`)).json();
    const id = task.created_resources?.[key]?.[0];
    return id === undefined ? undefined : [String(id)];
  }

  /** The key of the world's record of a collection (made if needed). */
  async made1(collection: string): Promise<string | undefined> {
    const resource = [...this.catalogue.operations].map((o) => this.plan(o).resource).find((r) => r?.collection === collection);
    if (!resource) return undefined;
    const scope = this.scopeOf(resource);
    return (await this.ensure(resource, scope))?.[0];
  }

  private scopeOf(resource: Resource): string[] {
    const names = ['project_id', 'region_id'];
    return resource.scopeParams === 2 && resource.collection.startsWith('cloud/') ? names.map((n) => this.known[n]) : [];
  }

  async anyTask(): Promise<string> {
    const tasks = (await this.request('GET', '/cloud/v1/tasks?limit=1')).json();
    return tasks.results[0].id;
  }

  plan(op: CatalogueOperation): Plan {
    return this.inference.plan(op);
  }

  request(method: string, url: string, body?: unknown, contentType?: string): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...this.account.headers };
    if (contentType) headers['content-type'] = contentType;
    return this.t.request(method, url, { headers, body: contentType && contentType !== 'application/json' ? body : body });
  }

  /** A valid request for the operation, with every record its path names made first. */
  async generate(op: CatalogueOperation, seed = 'a'): Promise<Generated> {
    const override = MODELLED[`${op.method} ${op.path}`];
    if (override) return override(this);
    const plan = this.plan(op);
    const url = (await this.lookupUrl(op, seed)) ?? (await this.url(op, seed, plan.kind === 'create' ? plan.resource : undefined));
    const query = this.query(op, seed);
    const body = this.body(op, seed);
    return { url: query ? `${url}?${query}` : url, ...body };
  }

  /** `.../by-name/{name}`: the name of a record that exists. */
  private async lookupUrl(op: CatalogueOperation, seed: string): Promise<string | undefined> {
    const plan = this.plan(op);
    if (plan.kind !== 'lookup' || !plan.resource) return undefined;
    const list = this.catalogue.operations.find(
      (o) => o.method === 'GET' && this.plan(o).kind === 'list' && this.plan(o).resource?.collection === plan.resource!.collection,
    );
    if (!list) return undefined;
    await this.create(plan.resource, `${seed}-lookup`);
    const body = safeJson((await this.request('GET', await this.url(list, seed))).body);
    const items = Array.isArray(body) ? body : body?.[this.plan(list).list?.itemsField ?? 'results'];
    const value = Array.isArray(items) ? items.at(-1)?.[plan.lookupField!] : undefined;
    return value === undefined ? undefined : op.path.replace(/\{[^}]+\}$/, encodeURIComponent(String(value))).replace(/^(.*)$/, (p) => p);
  }

  /** The operation's path with values: records it names are made first (except `fresh`, being made now). */
  async url(op: CatalogueOperation, seed: string, fresh?: Resource): Promise<string> {
    const segments = segmentsOf(op.path);
    const out: string[] = [];
    for (let i = 0; i < segments.length; i += 1) {
      const segment = segments[i];
      if (!isParam(segment)) {
        out.push(segment);
        continue;
      }
      const resource = this.inference.itemAt(segments.slice(0, i + 1));
      if (resource && (resource.creatable || resource.listable || RECIPES[resource.collection]) && resource.collection !== fresh?.collection) {
        const pending = resource.keyParams - 1;
        const scope = out.slice(0, out.length - pending).filter((_, j) => isParam(segments[j]));
        const values = await this.ensure(
          resource,
          scope.map((v) => decodeURIComponent(v)),
        );
        if (values) {
          out.splice(out.length - pending, pending, ...values.map((v) => encodeURIComponent(v)));
          continue;
        }
      }
      out.push(encodeURIComponent(this.value(op, paramName(segment), seed)));
    }
    return `/${out.join('/')}`;
  }

  private value(op: CatalogueOperation, name: string, seed: string): string {
    if (this.known[name] !== undefined) return this.known[name];
    const param = op.parameters.find((p) => p.name === name);
    return String(fill(param?.schema, `${seed}:${name}`, this.fillContext()));
  }

  /** Makes (once per scope) a record of the resource; returns its key values. */
  private async ensure(resource: Resource, scopeSoFar: string[]): Promise<string[] | undefined> {
    const scopeKey = `${resource.collection}|${scopeSoFar.join('/')}`;
    if (this.made.has(scopeKey)) return this.made.get(scopeKey);
    const recipe = RECIPES[resource.collection];
    const created = recipe
      ? { key: await recipe(this) }
      : resource.creatable
        ? await this.create(resource, 'world')
        : await this.firstListed(resource, scopeSoFar);
    this.made.set(scopeKey, created?.key);
    return created?.key;
  }

  /** A catalogue's first entry (what nobody creates, its list enumerates), in the scope of `values`. */
  private async firstListed(resource: Resource, values: string[]): Promise<{ key: string[] } | undefined> {
    const list = this.catalogue.operations.find(
      (o) => o.method === 'GET' && ['list', 'catalogList'].includes(this.plan(o).kind) && this.plan(o).resource?.collection === resource.collection,
    );
    if (!list) return undefined;
    let i = 0;
    const path = `/${segmentsOf(list.path)
      .map((s) => (isParam(s) ? (values[i++] ?? '') : s))
      .join('/')}`;
    const body = safeJson((await this.request('GET', path)).body);
    const items = Array.isArray(body) ? body : body?.[this.plan(list).list?.itemsField ?? 'results'];
    const key = Array.isArray(items) ? items[0]?.[resource.keyFields[0]] : undefined;
    return key === undefined ? undefined : { key: [String(key)] };
  }

  /** Creates a record of the resource through its create operation; its key values and item URL. */
  async create(resource: Resource, seed: string): Promise<{ key: string[]; response: LightMyRequestResponse } | undefined> {
    const op = this.createOp(resource);
    if (!op) return undefined;
    const generated = await this.generateCreate(op, resource, seed);
    const response = await this.request(op.method, generated.url, generated.body, generated.contentType);
    if (response.statusCode >= 300) {
      this.problems.push(`create ${resource.collection} via ${op.method} ${op.path} -> ${response.statusCode} ${response.body.slice(0, 300)}`);
      return undefined;
    }
    const key = await this.keyOf(op, resource, response, generated.url);
    if (!key) this.problems.push(`create ${resource.collection} via ${op.method} ${op.path}: no key in ${response.body.slice(0, 200)}`);
    return key ? { key, response } : undefined;
  }

  private async generateCreate(op: CatalogueOperation, resource: Resource, seed: string): Promise<Generated> {
    const url = await this.url(op, seed, resource);
    const query = this.query(op, seed);
    const body = this.body(op, seed);
    // A key the client chooses in the body must also be a valid path parameter of the item routes.
    const keyParam = this.itemKeyParam(resource);
    const field = resource.keyFields[0];
    if (keyParam && body.contentType === 'application/json' && isRecord(body.body) && field in body.body) {
      const bodySchema = this.inference.schemas.objectOf(op.requestBody?.content['application/json'])?.properties?.[field];
      const patterns = [keyParam.schema, bodySchema]
        .map((s) => this.inference.schemas.flat(s).pattern as string | undefined)
        .filter((p): p is string => typeof p === 'string');
      const candidates = [
        fill(keyParam.schema, `${seed}:${resource.collection}`, this.fillContext()),
        fill(bodySchema, `${seed}:${resource.collection}`, this.fillContext()),
      ];
      const value = candidates.find((c) => patterns.every((p) => new RegExp(p).test(String(c)))) ?? candidates[0];
      if (typeof value === 'string' || typeof value === 'number')
        (body.body as Record<string, unknown>)[field] = typeof body.body[field] === 'number' ? Number(value) : value;
    }
    return { url: query ? `${url}?${query}` : url, ...body };
  }

  /** The path parameter that holds a record's key on its item routes. */
  private itemKeyParam(resource: Resource) {
    for (const op of this.catalogue.operations) {
      if (op.method !== 'GET') continue;
      const segments = segmentsOf(op.path);
      if (!isParam(segments.at(-1)!) || this.inference.resourceAt(segments)?.collection !== resource.collection) continue;
      return op.parameters.find((p) => p.name === paramName(segments.at(-1)!));
    }
    return undefined;
  }

  createOp(resource: Resource): CatalogueOperation | undefined {
    const creates = this.catalogue.operations.filter((o) => {
      const plan = this.plan(o);
      return plan.kind === 'create' && plan.resource?.collection === resource.collection;
    });
    return creates.find((o) => o.method === 'POST') ?? creates[0];
  }

  private async keyOf(op: CatalogueOperation, resource: Resource, response: LightMyRequestResponse, url: string): Promise<string[] | undefined> {
    if (this.inference.resourceAt(segmentsOf(op.path))?.collection === resource.collection) {
      const parts = segmentsOf(url.split('?')[0]);
      return parts.slice(parts.length - resource.keyParams).map(decodeURIComponent);
    }
    const body = response.body ? safeJson(response.body) : undefined;
    if (body && Array.isArray(body.tasks)) {
      const task = (await this.request('GET', `/cloud/v1/tasks/${body.tasks[0]}`)).json();
      const id = task.created_resources?.[resource.createdKey]?.[0] ?? body.id;
      return id === undefined ? undefined : [String(id)];
    }
    const keyField = resource.keyFields[0];
    if (body && body[keyField] !== undefined && body[keyField] !== null) return [String(body[keyField])];
    return this.newestKey(resource);
  }

  /** A create that answers no key: the newest record of its collection's list. */
  private async newestKey(resource: Resource): Promise<string[] | undefined> {
    const list = this.catalogue.operations.find(
      (o) => o.method === 'GET' && this.plan(o).kind === 'list' && this.plan(o).resource?.collection === resource.collection,
    );
    if (!list) return undefined;
    const response = await this.request('GET', await this.url(list, 'list'));
    const body = safeJson(response.body);
    const plan = this.plan(list);
    const items = Array.isArray(body) ? body : body?.[plan.list?.itemsField ?? 'results'];
    const last = Array.isArray(items) ? items.at(-1) : undefined;
    return last && last[resource.keyFields[0]] !== undefined ? [String(last[resource.keyFields[0]])] : undefined;
  }

  query(op: CatalogueOperation, seed: string): string {
    const pairs: string[] = [];
    for (const p of op.parameters.filter((q) => q.in === 'query' && q.required)) {
      const value = this.known[p.name] ?? fill(p.schema, `${seed}:${p.name}`, this.fillContext());
      for (const v of Array.isArray(value) ? value : [value])
        pairs.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(typeof v === 'object' ? JSON.stringify(v) : String(v))}`);
    }
    return pairs.join('&');
  }

  body(op: CatalogueOperation, seed: string): { body?: unknown; contentType?: string } {
    const content = op.requestBody?.content ?? {};
    const type = ['application/json', 'application/x-www-form-urlencoded'].find((t) => t in content) ?? Object.keys(content)[0];
    if (!type) return {};
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') return { body: 'binary-content', contentType: type };
    const value = fill(content[type], `${seed}:body`, this.fillContext());
    if (type === 'application/json') return { body: value, contentType: 'application/json' };
    return {
      body: new URLSearchParams(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
      ).toString(),
      contentType: type,
    };
  }

  private fillContext(): FillContext {
    return { schemas: this.inference.schemas, now: Date.now(), known: {} };
  }
}

/** Requests to modelled operations that a schema-generated request cannot pass (values their services check). */
const MODELLED: Record<string, (world: World) => Promise<Generated>> = {
  'POST /cdn/advanced/v2/query': async () => ({ url: '/cdn/advanced/v2/query', body: { query: '{ __typename }' }, contentType: 'application/json' }),
  'POST /cdn/resources/rule_templates': async () => ({
    url: '/cdn/resources/rule_templates',
    body: { name: 'generated', rule: '/static/*', ruleType: 0, options: {} },
    contentType: 'application/json',
  }),
  'PUT /cdn/resources/rule_templates/{rule_template_id}': async (world) => ({
    url: `/cdn/resources/rule_templates/${await world.made1('cdn/resources/ruletemplates')}`,
    body: { name: 'replaced', rule: '/static/*', ruleType: 0, options: {} },
    contentType: 'application/json',
  }),
  'POST /cloud/v1/subnets/{project_id}/{region_id}': async (world) => ({
    url: `/cloud/v1/subnets/${world.known.project_id}/${world.known.region_id}`,
    body: { name: 'generated', network_id: await world.made1('cloud/networks/{}/{}'), cidr: '10.30.0.0/24' },
    contentType: 'application/json',
  }),
  'POST /cloud/v2/instances/{project_id}/{region_id}': async (world) => ({
    url: `/cloud/v2/instances/${world.known.project_id}/${world.known.region_id}`,
    body: {
      name: 'generated-vm',
      flavor: 'g1-standard-2-4',
      volumes: [{ source: 'new-volume', size: 20, type_name: 'ssd_hiiops' }],
      interfaces: [{ type: 'external' }],
    },
    contentType: 'application/json',
  }),
  'POST /cloud/v2/k8s/clusters/{project_id}/{region_id}': async (world) => ({
    url: `/cloud/v2/k8s/clusters/${world.known.project_id}/${world.known.region_id}`,
    body: { name: 'generated-k8s', keypair: 'my-key', version: 'v1.30.8', pools: [{ name: 'pool-1', flavor_id: 'g1-standard-2-4', min_node_count: 1 }] },
    contentType: 'application/json',
  }),
  'POST /cloud/v2/k8s/clusters/{project_id}/{region_id}/{cluster_name}/upgrade': async (world) => {
    await world.made1('cloud/k8s/clusters/{}/{}');
    return {
      url: `/cloud/v2/k8s/clusters/${world.known.project_id}/${world.known.region_id}/world-k8s/upgrade`,
      body: { version: 'v1.31.4' },
      contentType: 'application/json',
    };
  },
  'POST /cloud/v2/instances/{project_id}/{region_id}/{instance_id}/action': async (world) => ({
    url: `/cloud/v2/instances/${world.known.project_id}/${world.known.region_id}/${await world.made1('cloud/instances/{}/{}')}/action`,
    body: { action: 'stop' },
    contentType: 'application/json',
  }),
  'GET /waap/v1/statistics/series': async () => ({
    url: `/waap/v1/statistics/series?from=${new Date(Date.now() - 86_400_000).toISOString()}&to=${new Date().toISOString()}&granularity=1h&metrics=total_requests`,
  }),
  'GET /security/notifier/v1/event_logs/{event_log_id}': async (world) => {
    const log = await world.operatorRequest('POST', '/_edgeplane/security/event-logs', { client_id: world.account.clientId, alert_type: 'ddos_alert' });
    return { url: `/security/notifier/v1/event_logs/${log.json().id}` };
  },
  'POST /iam/clients/{clientId}/tokens': async (world) => ({
    url: `/iam/clients/${world.account.clientId}/tokens`,
    body: { name: 'generated', exp_date: null, client_user: { role: { id: 2, name: 'Users' } } },
    contentType: 'application/json',
  }),
  'POST /iam/v2/clients/{clientId}/tokens': async (world) => ({
    url: `/iam/v2/clients/${world.account.clientId}/tokens`,
    body: { name: 'generated2', exp_date: null, client_user: { role: { id: 2, name: 'Users' } } },
    contentType: 'application/json',
  }),
  'GET /cloud/v1/tasks/{task_id}': async (world) => ({ url: `/cloud/v1/tasks/${await world.anyTask()}` }),
  'POST /cloud/v1/tasks/{task_id}/acknowledge': async (world) => ({ url: `/cloud/v1/tasks/${await world.anyTask()}/acknowledge` }),
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Records of modelled products that a generated body cannot make (their services check values a schema
 * does not state: flavors, versions, CDN rules, domains made by the operator): made the way their own
 * tests make them.
 */
const RECIPES: Record<string, (world: World) => Promise<string[] | undefined>> = {
  'waap/domains': async (world) => {
    const res = await world.operatorRequest('POST', '/_edgeplane/waap/domains', {
      client_id: world.account.clientId,
      name: `world-${world.account.clientId}.example.com`,
    });
    return res.statusCode < 300 ? [String(res.json().id)] : undefined;
  },
  'cdn/resources/ruletemplates': async (world) => {
    const res = await world.request(
      'POST',
      '/cdn/resources/rule_templates',
      { name: 'world', rule: '/images/*', ruleType: 0, options: {} },
      'application/json',
    );
    return res.statusCode < 300 ? [String(res.json().id)] : undefined;
  },
  'cloud/networks/{}/{}': async (world) => world.cloudCreate('/cloud/v1/networks', { name: 'world-net', create_router: true, type: 'vxlan' }, 'networks'),
  'cloud/subnets/{}/{}': async (world) => {
    const [network] = (await world.cloudCreate('/cloud/v1/networks', { name: 'world-net2', create_router: true, type: 'vxlan' }, 'networks')) ?? [];
    return world.cloudCreate('/cloud/v1/subnets', { name: 'world-subnet', network_id: network, cidr: '10.20.0.0/24' }, 'subnets');
  },
  'cloud/volumes/{}/{}': async (world) => world.cloudCreate('/cloud/v1/volumes', { source: 'new-volume', name: 'world-vol', size: 1 }, 'volumes'),
  'cloud/floatingips/{}/{}': async (world) => world.cloudCreate('/cloud/v1/floatingips', {}, 'floatingips'),
  'cloud/instances/{}/{}': async (world) =>
    world.cloudCreate(
      '/cloud/v2/instances',
      {
        name: 'world-vm',
        flavor: 'g1-standard-2-4',
        volumes: [{ source: 'new-volume', size: 20, type_name: 'ssd_hiiops' }],
        interfaces: [{ type: 'external' }],
      },
      'instances',
    ),
  'cloud/k8s/clusters/{}/{}': async (world) => {
    const made = await world.cloudCreate(
      '/cloud/v2/k8s/clusters',
      { name: 'world-k8s', keypair: 'my-key', version: 'v1.30.8', pools: [{ name: 'pool-1', flavor_id: 'g1-standard-2-4', min_node_count: 2 }] },
      'k8s_clusters',
    );
    return made ? ['world-k8s'] : undefined;
  },
};

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
