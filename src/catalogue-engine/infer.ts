// What each catalogue operation does, inferred from the paths and schemas of all of them: which resource
// it acts on (a collection and its items, a nested collection, a singleton), what the action is (create,
// list, read, merge, replace, delete, an action on an item, a report, a read-only catalogue), where the
// record's key lives and how lists are shaped. Pure: the catalogue in, plans out, nothing stored.
import type { Catalogue, CatalogueOperation, JsonSchema } from '../platform/catalogue/index.js';
import { CREATED_KEY_FACTS, RESOURCE_ALIASES } from './facts.js';
import { answersTasks, taskTypeName } from './route-index.js';
import { type Schema, Schemas } from './schema.js';
import { isParam, isVersion, normalPattern, normalWord, paramName, SCOPE_PARAMS, segmentsOf, singular } from './words.js';

export type PlanKind =
  | 'create' // a new record in a collection (key made by the server or chosen by the client)
  | 'list' // the records of a collection
  | 'read' // one record
  | 'merge' // PATCH: the given fields change
  | 'replace' // PUT: the record becomes what was sent
  | 'delete' // the record (and what is nested under it) goes
  | 'action' // a verb on one record (`.../{id}/resize`): fields it names change, answered as declared
  | 'singleton' // one settings object per client or per parent (GET, PUT, PATCH, POST, DELETE)
  | 'catalogList' // a read-only list the client cannot add to (flavors, regions, templates)
  | 'catalogRead' // one entry of such a list
  | 'report' // statistics and series: generated, deterministic, shaped by the query
  | 'lookup' // a record found by one of its fields (`/apps/by-name/{name}`)
  | 'view'; // anything else: a deterministic answer of the declared shape, nothing stored

export interface Resource {
  /** Identity of the collection: normalised path of the collection, or of the item's parent plus `<k>` for multi-part keys. */
  collection: string;
  /** Path parameters of the collection part (their values are the record's scope). */
  scopeParams: number;
  /** How many trailing path parameters form the key (2 for `{rrsetName}/{rrsetType}`). */
  keyParams: number;
  /** Record fields the key parameters fill, in order (`id`, `name`, `type`). */
  keyFields: string[];
  /** How the server makes a key when the client does not give one. */
  keyForm: 'uuid' | 'integer' | 'string';
  /** The record's schema: what a read answers. */
  record?: JsonSchema;
  /** Whether records can be created at all (else the collection is a read-only catalogue). */
  creatable: boolean;
  /** Whether a list of its records exists (a catalogue's entries can then be enumerated). */
  listable: boolean;
  /** `created_resources` key for cloud tasks that make this resource. */
  createdKey: string;
  /**
   * Whether its records carry their key (some schema of theirs has the key field). A "collection" whose
   * answers never name a key (price quotes under `/pricing/...`) is computed, not stored.
   */
  keyed: boolean;
}

export interface ListShape {
  /** The response is a bare array. */
  bare: boolean;
  /** Envelope field holding the items, and the one holding the total. */
  itemsField?: string;
  countField?: string;
  /** A union of both forms (CDN): the envelope is answered when a pagination parameter is given. */
  envelopeOnPaging: boolean;
  itemSchema?: JsonSchema;
  envelopeSchema?: Schema;
}

/** A read that must succeed first: the read's path, filled with the values of this request's parameters. */
export interface PathCheck {
  /** The item read's reference path. */
  path: string;
  /** For each of its parameters, in order, the name of this operation's parameter holding the value. */
  from: string[];
}

export interface Plan {
  op: CatalogueOperation;
  kind: PlanKind;
  resource?: Resource;
  /** Number of leading path parameters that locate the resource (scope and parent keys). */
  status: number;
  /** The declared success body (JSON), if any. */
  responseSchema?: JsonSchema;
  /** Cloud: the change runs as a durable task and the answer is `{tasks: [...]}`. */
  tasks: boolean;
  taskType?: string;
  list?: ListShape;
  /** Item reads of the records this one is nested under, outermost first. */
  parents: PathCheck[];
  /** Item reads of other records named by path parameters (a project, a region). */
  references: PathCheck[];
  /** The item read of the record an item operation acts on (a modelled product may own the record). */
  itemRead?: PathCheck;
  /** For lookups: the record field the last path parameter matches. */
  lookupField?: string;
  /** For singletons and views: the normalised path the stored object lives at. */
  singletonPattern?: string;
}

interface PatternInfo {
  ops: CatalogueOperation[];
  methods: Set<string>;
}

const REPORT_WORDS =
  /(^|\/)(statistics|stats|metrics|usage|series|report|reports|analytics|traffic|capacity|heatmap|cost_report|usage_report|attack-map|attack-time-series|top-[a-z-]+|counts|logs)(\/|$)/;
const TIME_RANGE = /^(from|to|date_from|date_to|start|end|time_from|time_to|from_timestamp|to_timestamp|min_requested_at|max_requested_at)$/;

export class Inference {
  readonly schemas: Schemas;
  private readonly patterns = new Map<string, PatternInfo>();
  private readonly plans = new Map<CatalogueOperation, Plan>();
  private readonly resources = new Map<string, Resource>();
  private readonly byRoute = new Map<string, CatalogueOperation>();
  /** Each path segment's normal form (null for a version): plans normalise the same few hundred words again and again. */
  private readonly normalSegments = new Map<string, string | null>();
  /** GET operations by the pattern two segments above them (see linkedResource). */
  private getsByGrandparent: Map<string, CatalogueOperation[]> | undefined;
  private createdKeys: string[] | undefined;

  constructor(private readonly catalogue: Catalogue) {
    this.schemas = new Schemas(catalogue);
    // Run by the first engine request, in code not compiled yet: each path's pattern is made once (the
    // 1,017 operations have about 600 paths), and an operation's keys (a lazy catalogue's proxy) read once.
    const infoOfPath = new Map<string, PatternInfo>();
    for (const op of catalogue.operations) {
      const { method, path } = op;
      let info = infoOfPath.get(path);
      if (!info) {
        const key = this.pattern(segmentsOf(path));
        info = this.patterns.get(key);
        if (!info) this.patterns.set(key, (info = { ops: [], methods: new Set<string>() }));
        infoOfPath.set(path, info);
      }
      info.ops.push(op);
      info.methods.add(method);
      this.byRoute.set(`${method} ${path}`, op);
    }
  }

  operation(method: string, path: string): CatalogueOperation {
    const op = this.byRoute.get(`${method} ${path}`);
    if (!op) throw new Error(`catalogue: no operation ${method} ${path}`);
    return op;
  }

  plan(op: CatalogueOperation): Plan {
    let plan = this.plans.get(op);
    if (!plan) this.plans.set(op, (plan = this.infer(op)));
    return plan;
  }

  // ---- the shape of the API -----------------------------------------------------------------------

  /** normalPattern (words.ts), with each segment's form kept. */
  private pattern(segments: string[]): string {
    const words: string[] = [];
    for (const segment of segments) {
      let word = this.normalSegments.get(segment);
      if (word === undefined) this.normalSegments.set(segment, (word = isVersion(segment) ? null : normalPattern([segment])));
      if (word !== null) words.push(word);
    }
    return words.join('/');
  }

  private at(pattern: string): PatternInfo | undefined {
    return this.patterns.get(pattern);
  }

  private opAt(pattern: string, method: string): CatalogueOperation | undefined {
    return this.at(pattern)?.ops.find((o) => o.method === method);
  }

  /** A pattern with item operations under it (`pattern/{}`), or a list with a create beside it. */
  private isCollection(pattern: string): boolean {
    if (this.isItemPattern(pattern)) return false;
    const items = this.at(`${pattern}/{}`);
    const own = this.at(pattern);
    // `/zones/{}/{}` holds no operation of its own: its `{}`s are part of an item key, not a collection.
    // `/bmflavors/{region_id}` beside `/bmflavors/{p}/{r}` is a read-only view, not the items of `/bmflavors`.
    const standsAlone = own !== undefined || (!pattern.endsWith('{}') && items !== undefined && ['DELETE', 'PATCH', 'PUT'].some((m) => items.methods.has(m)));
    if (items && standsAlone && ['GET', 'DELETE', 'PATCH', 'PUT'].some((m) => items.methods.has(m))) return true;
    const get = this.opAt(pattern, 'GET');
    return get !== undefined && this.listShape(get) !== undefined && this.createAt(pattern) !== undefined;
  }

  /** An item of a collection (`.../advanced-rules/{}`) is not itself a collection, whatever hangs under it. */
  private isItemPattern(pattern: string): boolean {
    if (!pattern.endsWith('/{}')) return false;
    const parent = pattern.slice(0, -3);
    return this.at(parent) !== undefined && this.isCollection(parent);
  }

  /** The operation that creates records of a collection: POST, or a PUT answering a record (storage v1). */
  private createAt(pattern: string): CatalogueOperation | undefined {
    const post = this.opAt(pattern, 'POST');
    if (post) return post;
    const put = this.opAt(pattern, 'PUT');
    const body = put?.requestBody?.content['application/json'];
    return put && body && !this.schemas.types(body).includes('array') && this.successSchema(put) ? put : undefined;
  }

  successStatus(op: CatalogueOperation): number {
    const status = Object.keys(op.responses)
      .filter((s) => /^2\d\d$/.test(s))
      .sort()[0];
    return status ? Number(status) : 200;
  }

  successSchema(op: CatalogueOperation): JsonSchema | undefined {
    const response = op.responses[String(this.successStatus(op))];
    return response?.content['application/json'];
  }

  /** How a list answer is shaped, or undefined when the schema is not a list. */
  listShape(op: CatalogueOperation): ListShape | undefined {
    const schema = this.successSchema(op);
    if (!schema) return undefined;
    const branches = this.schemas.branches(schema);
    const array = branches.find((b) => b.type === 'array');
    const envelope = branches.map((b) => this.envelopeOf(b)).find((e) => e !== undefined);
    if (array && envelope) return { ...envelope, bare: false, envelopeOnPaging: true };
    if (array) return { bare: true, envelopeOnPaging: false, itemSchema: array.items };
    return envelope ? { ...envelope, bare: false, envelopeOnPaging: false } : undefined;
  }

  private envelopeOf(branch: Schema): Omit<ListShape, 'bare' | 'envelopeOnPaging'> | undefined {
    const properties = (branch.properties ?? {}) as Record<string, JsonSchema>;
    const arrays = Object.entries(properties).filter(([, s]) => {
      const items = this.schemas.arrayItems(s);
      return items !== undefined && (items.properties !== undefined || items.type === 'object' || items.allOf !== undefined);
    });
    const preferred = ['results', 'data', 'items'];
    const items = arrays.find(([name]) => preferred.includes(name)) ?? (arrays.length === 1 ? arrays[0] : undefined);
    if (!items) return undefined;
    const count = ['count', 'total_amount', 'total_count', 'total', 'totalCount'].find((name) => name in properties);
    return { itemsField: items[0], countField: count, itemSchema: this.schemas.flat(items[1]).items, envelopeSchema: branch };
  }

  // ---- one operation ------------------------------------------------------------------------------

  private infer(op: CatalogueOperation): Plan {
    const segments = segmentsOf(op.path);
    const pattern = this.pattern(segments);
    const tasks = op.product === 'cloud' && answersTasks(this.schemas, op);
    const base: Plan = {
      op,
      kind: 'view',
      status: this.successStatus(op),
      responseSchema: this.successSchema(op),
      tasks,
      taskType: tasks ? taskTypeName(op.method, op.path) : undefined,
      parents: this.parentsOf(segments, isParam(segments.at(-1)!) ? 1 : 0),
      references: this.referencesOf(op),
    };
    const lookup = this.lookupOf(segments);
    if (lookup && op.method === 'GET') return { ...base, kind: 'lookup', resource: lookup.resource, lookupField: lookup.field };
    const item = this.itemResource(segments);
    if (item && !item.keyed) return { ...base, kind: this.isReport(op, pattern) ? 'report' : 'view' };
    if (item) return { ...base, ...this.itemPlan(op, item), itemRead: this.itemReadOf(item, segments) };
    if (this.isCollection(pattern) || this.aliasOf(pattern)) {
      const plan = this.collectionPlan(op, pattern, segments);
      if (plan.resource && !plan.resource.keyed) return { ...base, kind: this.isReport(op, pattern) ? 'report' : 'view', list: plan.list };
      return { ...base, ...plan };
    }
    return { ...base, ...this.otherPlan(op, pattern, segments) };
  }

  /** The resource whose item the path (reference segments, ending with key parameters) is, if any. */
  resourceAt(segments: string[]): Resource | undefined {
    return this.itemResource(segments);
  }

  /** The resource an item path (ending with key parameters) addresses, with how many parameters form its key. */
  private itemResource(segments: string[]): Resource | undefined {
    let keyParams = 0;
    for (let i = segments.length - 1; i >= 0 && isParam(segments[i]); i -= 1) keyParams += 1;
    // A path ending with a project or region places things; it does not name one.
    if (keyParams === 0 || SCOPE_PARAMS.has(paramName(segments.at(-1)!))) return undefined;
    const parentSegments = segments.slice(0, segments.length - 1);
    const parent = this.pattern(parentSegments);
    if (this.isCollection(parent) || this.aliasOf(parent)) return this.resource(this.aliasOf(parent) ?? parent, parentSegments, 1);
    // A key in several parts right under another item (`/zones/{zoneName}/{rrsetName}/{rrsetType}`).
    for (let k = 2; k < keyParams; k += 1) {
      const owner = segments.slice(0, segments.length - k);
      if (this.itemResource(owner)) return this.resource(`${this.pattern(owner)}/<${k}>`, owner, k, segments);
    }
    return undefined;
  }

  /** A flat path that names items of a nested collection (`securitygrouprules` for `securitygroups/{}/rules`). */
  private aliasOf(pattern: string): string | undefined {
    return RESOURCE_ALIASES[pattern];
  }

  private resource(collection: string, collectionSegments: string[], keyParams: number, itemSegments?: string[]): Resource {
    let found = this.resources.get(collection);
    if (found) return found;
    const itemPath = itemSegments ?? this.itemSegmentsOf(collection) ?? [...collectionSegments, '{id}'];
    const record = this.recordSchema(collection, itemPath);
    const keyNames = itemPath.slice(itemPath.length - keyParams).map(paramName);
    const word = collectionSegments.filter((s) => !isParam(s) && !isVersion(s)).at(-1) ?? '';
    const keyFields = keyNames.map((name) => keyFieldOf(name, word, this.keySchema(collection, record)));
    found = {
      collection,
      scopeParams: collectionSegments.filter(isParam).length,
      keyParams,
      keyFields,
      keyForm: this.keyForm(record, keyFields[0], collectionSegments),
      record,
      creatable: this.creatable(collection, itemPath),
      listable: !collection.endsWith('>') && this.opAt(collection, 'GET') !== undefined,
      createdKey: this.createdKeyOf(collection, collectionSegments),
      keyed: this.keyed(collection, record, keyFields[0]),
    };
    this.resources.set(collection, found);
    return found;
  }

  /** The item read of a resource, with this path's parameters (the first scope + key ones) for its values. */
  private itemReadOf(resource: Resource, segments: string[]): PathCheck | undefined {
    const itemSegments = resource.collection.endsWith('>') ? undefined : this.itemSegmentsOf(resource.collection);
    const read = itemSegments && this.opAt(`${resource.collection}/{}`, 'GET');
    const mine = segments
      .filter(isParam)
      .map(paramName)
      .slice(0, resource.scopeParams + resource.keyParams);
    if (!read || segmentsOf(read.path).filter(isParam).length !== mine.length) return undefined;
    return { path: read.path, from: mine };
  }

  /** The fields a record may carry: its read's, its create answer's and its list items'. */
  private keySchema(collection: string, record: JsonSchema | undefined): Schema {
    const create = collection.endsWith('>') ? undefined : this.createAt(collection);
    const list = collection.endsWith('>') ? undefined : this.opAt(collection, 'GET');
    const properties: Record<string, unknown> = {};
    for (const schema of [
      list && this.listShape(list)?.itemSchema,
      create && !answersTasks(this.schemas, create) ? this.successSchema(create) : undefined,
      record,
    ]) {
      Object.assign(properties, this.schemas.objectOf(schema)?.properties ?? {});
    }
    return { type: 'object', properties };
  }

  /** The resource whose item a path prefix is, when an item read there names its parameters alike. */
  itemAt(segments: string[]): Resource | undefined {
    const resource = this.itemResource(segments);
    if (!resource) return undefined;
    const read = this.opAt(this.pattern(segments), 'GET') ?? this.at(this.pattern(segments))?.ops[0];
    const mine = segments.filter(isParam);
    if (!read || resource.scopeParams + resource.keyParams !== mine.length) return undefined;
    // The same item when its read names the parameters alike or spells the same words (not another version's look-alike).
    const theirs = segmentsOf(read.path).slice(0, segments.length);
    return sameItem(theirs, segments, (name) => this.referenceTargets().has(name)) ? resource : undefined;
  }

  private keyed(collection: string, record: JsonSchema | undefined, keyField: string): boolean {
    const create = collection.endsWith('>') ? undefined : this.createAt(collection);
    const list = collection.endsWith('>') ? undefined : this.opAt(collection, 'GET');
    const schemas = [record, create && this.successSchema(create), list && this.listShape(list)?.itemSchema];
    return (
      schemas.some((s) => s !== undefined && keyField in (this.schemas.objectOf(s)?.properties ?? {})) ||
      (create !== undefined && answersTasks(this.schemas, create))
    );
  }

  /** The path segments of an item of a collection, as one of its item operations spells them. */
  private itemSegmentsOf(collection: string): string[] | undefined {
    const items = this.at(`${collection}/{}`);
    const op = items?.ops.find((o) => o.method === 'GET') ?? items?.ops[0];
    return op ? segmentsOf(op.path) : undefined;
  }

  /** The record schema: the item read's answer, else the create's, else the list's item. */
  private recordSchema(collection: string, itemSegments: string[]): JsonSchema | undefined {
    const itemPattern = collection.endsWith('>') ? this.pattern(itemSegments) : `${collection}/{}`;
    const read = this.opAt(itemPattern, 'GET');
    const readSchema = read && this.successSchema(read);
    if (readSchema && this.schemas.objectOf(readSchema)) return readSchema;
    const create = this.createAt(collection) ?? this.opAt(itemPattern, 'POST') ?? this.opAt(itemPattern, 'PUT');
    const createSchema = create && this.successSchema(create);
    if (createSchema && this.schemas.objectOf(createSchema) && !answersTasks(this.schemas, create!)) return createSchema;
    const list = this.opAt(collection, 'GET');
    return list ? this.listShape(list)?.itemSchema : undefined;
  }

  private keyForm(record: JsonSchema | undefined, keyField: string, collectionSegments: string[]): Resource['keyForm'] {
    const property = this.schemas.objectOf(record)?.properties?.[keyField];
    if (property) {
      const types = this.schemas.types(property);
      const format = this.schemas.flat(property).format;
      if (types.includes('integer') || types.includes('number')) return 'integer';
      if (format === 'uuid' || format === 'uuid4') return 'uuid';
      if (keyField === 'id') return collectionSegments[0] === 'cloud' ? 'uuid' : 'string';
      return 'string';
    }
    return collectionSegments[0] === 'cloud' ? 'uuid' : 'integer';
  }

  private creatable(collection: string, itemSegments: string[]): boolean {
    if (collection.endsWith('>')) return ['POST', 'PUT'].some((m) => this.at(this.pattern(itemSegments))?.methods.has(m));
    if (this.createAt(collection)) return true;
    const items = this.at(`${collection}/{}`);
    return items !== undefined && (items.methods.has('POST') || items.methods.has('PUT'));
  }

  /** The `created_resources` key a cloud task that makes records of this collection fills. */
  private createdKeyOf(collection: string, collectionSegments: string[]): string {
    const fact = CREATED_KEY_FACTS[collection];
    if (fact) return fact;
    const keys = this.createdResourceKeys();
    const words = collectionSegments.filter((s) => !isParam(s) && !isVersion(s)).map(normalWord);
    const word = words.at(-1) ?? '';
    const parent = singular(words.at(-2) ?? '');
    const normal = new Map(keys.map((k) => [normalWord(k), k]));
    const plural = word.endsWith('s') ? word : `${word}s`;
    return (
      normal.get(word) ??
      normal.get(plural) ??
      normal.get(`${parent}${plural}`) ??
      keys.find((k) => normalWord(k).endsWith(plural)) ??
      keys.find((k) => plural.endsWith(normalWord(k))) ??
      plural
    );
  }

  /** Every key `created_resources` may hold, read from the task record's schema in the catalogue. */
  createdResourceKeys(): string[] {
    if (this.createdKeys) return this.createdKeys;
    const task = this.byRoute.get('GET /cloud/v1/tasks/{task_id}');
    const created = task && this.schemas.objectOf(this.successSchema(task))?.properties?.created_resources;
    this.createdKeys = Object.keys(this.schemas.objectOf(created)?.properties ?? {}).sort();
    return this.createdKeys;
  }

  private itemPlan(op: CatalogueOperation, resource: Resource): Partial<Plan> {
    const collection = resource.collection;
    const hasCreate = collection.endsWith('>') ? false : this.createAt(collection) !== undefined;
    switch (op.method) {
      case 'GET':
        // Records nobody can create or list (a schedule, an artifact): any key reads as a generated record.
        if (!resource.creatable && !resource.listable) return { kind: 'view', resource };
        return { kind: resource.creatable ? 'read' : 'catalogRead', resource };
      case 'DELETE':
        return { kind: 'delete', resource };
      case 'PATCH':
        return { kind: 'merge', resource };
      case 'PUT':
        return { kind: hasCreate || !resource.creatable ? 'replace' : 'create', resource };
      default:
        return { kind: hasCreate ? 'action' : 'create', resource };
    }
  }

  private collectionPlan(op: CatalogueOperation, pattern: string, segments: string[]): Partial<Plan> {
    const resource = this.resource(this.aliasOf(pattern) ?? pattern, segments, 1);
    if (op.method === 'GET') {
      const list = this.listShape(op);
      if (!list) return { kind: 'singleton', singletonPattern: pattern };
      return { kind: resource.creatable ? 'list' : 'catalogList', resource, list };
    }
    const body = op.requestBody?.content['application/json'];
    const createsOne = body !== undefined && !this.schemas.types(body).includes('array') && this.successSchema(op) !== undefined;
    if (op.method === 'POST' || op === this.createAt(pattern) || (op.method === 'PUT' && createsOne)) return { kind: 'create', resource };
    return { kind: 'view' };
  }

  /** Paths that are neither a collection nor an item: settings, actions, reports, catalogues, views. */
  private otherPlan(op: CatalogueOperation, pattern: string, segments: string[]): Partial<Plan> {
    const owner = this.ownerItem(segments);
    const writes =
      ['PUT', 'PATCH'].some((m) => m !== op.method && this.at(pattern)?.methods.has(m)) || (op.method !== 'GET' && this.opAt(pattern, 'GET') !== undefined);
    if (op.method === 'GET') {
      if (this.isReport(op, pattern)) return { kind: 'report' };
      const list = this.listShape(op);
      const linked = list && this.linkedResource(segments, list);
      if (linked) return { kind: 'list', list, resource: linked };
      if (list && !owner) return { kind: 'catalogList', list, resource: this.catalogueResource(pattern, segments, list) };
      if (writes && !list) return { kind: 'singleton', singletonPattern: pattern };
      return { kind: 'view', list };
    }
    if (op.method === 'POST' && this.isReport(op, pattern)) return { kind: 'report' };
    if (owner && !writes && !this.opAt(pattern, 'GET')) return { kind: 'action', resource: owner, itemRead: this.itemReadOf(owner, segments) };
    if (this.opAt(pattern, 'GET') || writes || op.method === 'DELETE') return { kind: 'singleton', singletonPattern: pattern };
    return { kind: owner ? 'action' : 'view', resource: owner, itemRead: owner ? this.itemReadOf(owner, segments) : undefined };
  }

  /** `.../apps/by-name/{name}`: a record of `.../apps` found by one of its fields. */
  private lookupOf(segments: string[]): { resource: Resource; field: string } | undefined {
    const by = segments.at(-2);
    if (segments.length < 3 || !by?.startsWith('by-') || !isParam(segments.at(-1)!)) return undefined;
    const collectionSegments = segments.slice(0, -2);
    const collection = this.pattern(collectionSegments);
    if (!this.isCollection(collection)) return undefined;
    return { resource: this.resource(collection, collectionSegments, 1), field: by.slice(3).replace(/-/g, '_') };
  }

  /**
   * A list under an item whose path is not its items' collection (`/zones/{zoneName}/rrsets` lists the
   * records at `/zones/{zoneName}/{rrsetName}/{rrsetType}`): linked by the item schema both name.
   */
  private linkedResource(segments: string[], list: ListShape): Resource | undefined {
    const itemName = Schemas.refName(list.itemSchema);
    if (!itemName || segments.length < 2) return undefined;
    const parent = this.pattern(segments.slice(0, -1));
    for (const candidate of this.getsTwoBelow(parent)) {
      const resource = this.itemResource(segmentsOf(candidate.path));
      if (resource && Schemas.refName(resource.record) === itemName) return resource;
    }
    return undefined;
  }

  /** GET operations two segments below a pattern, in the order of the patterns' first operations. */
  private getsTwoBelow(parent: string): CatalogueOperation[] {
    return this.getsByGrandparentIndex().get(parent) ?? [];
  }

  private getsByGrandparentIndex(): Map<string, CatalogueOperation[]> {
    if (this.getsByGrandparent) return this.getsByGrandparent;
    const index = new Map<string, CatalogueOperation[]>();
    for (const info of this.patterns.values()) {
      for (const op of info.ops) {
        if (op.method !== 'GET') continue;
        const key = this.pattern(segmentsOf(op.path).slice(0, -2));
        const list = index.get(key) ?? [];
        list.push(op);
        index.set(key, list);
      }
    }
    this.getsByGrandparent = index;
    return index;
  }

  /**
   * Makes now the indexes over every operation that the first plans needing them would make (a few
   * milliseconds of a first request): the server's warm-up calls it while no request waits.
   */
  prepareIndexes(): void {
    this.referenceTargets();
    this.getsByGrandparentIndex();
    this.createdResourceKeys();
  }

  /** The record a sub-path hangs from (`/loadbalancers/{p}/{r}/{id}/failover` -> the load balancer). */
  private ownerItem(segments: string[]): Resource | undefined {
    for (let end = segments.length - 1; end > 1; end -= 1) {
      if (!isParam(segments[end - 1])) continue;
      const resource = this.itemAt(segments.slice(0, end));
      if (resource) return resource;
      // A look-alike of another version's item (`/v1/ai/clusters/{p}/{r}/{instance_id}`): no owner.
      if (this.itemResource(segments.slice(0, end))) return undefined;
    }
    return undefined;
  }

  private catalogueResource(pattern: string, segments: string[], list: ListShape): Resource {
    const existing = this.resources.get(pattern);
    if (existing) return existing;
    const record = list.itemSchema;
    const properties = this.schemas.objectOf(record)?.properties ?? {};
    const keyField = ['id', 'name', 'slug', 'key'].find((f) => f in properties) ?? 'id';
    const resource: Resource = {
      collection: pattern,
      scopeParams: segments.filter(isParam).length,
      keyParams: 0,
      keyFields: [keyField],
      keyForm: this.keyForm(record, keyField, segments),
      record,
      creatable: false,
      listable: true,
      createdKey: '',
      keyed: true,
    };
    this.resources.set(pattern, resource);
    return resource;
  }

  private isReport(op: CatalogueOperation, pattern: string): boolean {
    if (op.method === 'GET' && op.parameters.some((p) => p.in === 'query' && TIME_RANGE.test(p.name))) return true;
    if (!REPORT_WORDS.test(op.path.replace(/^\/[^/]+/, ''))) return false;
    return op.method === 'GET' || (op.method === 'POST' && !this.isCollection(pattern));
  }

  /** Item paths of the records a path is nested under (each checked to exist before the operation runs). */
  private parentsOf(segments: string[], skipLast: number): PathCheck[] {
    const parents: PathCheck[] = [];
    for (let end = 2; end <= segments.length - skipLast - 1; end += 1) {
      const prefix = segments.slice(0, end);
      if (!isParam(prefix.at(-1)!) || !this.itemResource(prefix)) continue;
      const read = this.opAt(this.pattern(prefix), 'GET');
      // The read of the same item: its parameters stand where this path's do (not a look-alike of another version).
      const mine = prefix.filter(isParam).map(paramName);
      const theirs = read ? segmentsOf(read.path).filter(isParam).map(paramName) : [];
      if (read && theirs.length === mine.length && sameItem(segmentsOf(read.path), prefix, (name) => this.referenceTargets().has(name)))
        parents.push({ path: read.path, from: mine });
    }
    return parents;
  }

  /**
   * Other records a path names by parameter (`{project_id}` -> `/cloud/v1/projects/{project_id}`): found by
   * an item read elsewhere in the catalogue whose only parameter has the same name.
   */
  private referencesOf(op: CatalogueOperation): PathCheck[] {
    const out: PathCheck[] = [];
    const segments = segmentsOf(op.path);
    for (const [index, segment] of segments.entries()) {
      if (!isParam(segment)) continue;
      const target = this.referenceTargets().get(paramName(segment));
      // A parameter that names an item of the path's own collections is a key, not a reference.
      if (!target || this.isItemPattern(this.pattern(segments.slice(0, index + 1)))) continue;
      if (!op.path.startsWith(target.replace(/\{[^}]+\}$/, ''))) out.push({ path: target, from: [paramName(segment)] });
    }
    return out;
  }

  private referenceIndex: Map<string, string> | undefined;

  referenceTargets(): Map<string, string> {
    if (this.referenceIndex) return this.referenceIndex;
    const index = new Map<string, string>();
    for (const op of this.catalogue.operations) {
      // Cheap tests first: this runs over every operation on the first request that needs it.
      if (op.method !== 'GET' || !op.path.endsWith('}')) continue;
      const segments = segmentsOf(op.path);
      const params = segments.filter(isParam);
      if (params.length !== 1 || !isParam(segments.at(-1)!)) continue;
      const name = paramName(params[0]);
      if (!/_id$/.test(name)) continue;
      const word = segments.filter((s) => !isParam(s) && !isVersion(s)).at(-1) ?? '';
      // `{project_id}` is a project when the collection word is its plural (`projects`).
      if (singular(normalWord(word)) === normalWord(name.replace(/_id$/, ''))) index.set(name, op.path);
    }
    this.referenceIndex = index;
    return index;
  }
}

/**
 * Two paths address the same item when their parameters are named alike, or when they spell the same
 * words and the last parameter is not a reference to another collection (`/tasks/{task_id}` is not
 * `/tasks/{project_id}/...`; `/sslData/{cert_id}` is `/sslData/{ssl_id}`).
 */
export function sameItem(a: string[], b: string[], isReference: (name: string) => boolean): boolean {
  const paramsA = a.filter(isParam);
  const paramsB = b.filter(isParam);
  if (paramsA.join() === paramsB.join()) return true;
  const sameWords = a.filter((s) => !isParam(s)).join() === b.filter((s) => !isParam(s)).join();
  const lastA = paramName(paramsA.at(-1) ?? '{}');
  const lastB = paramName(paramsB.at(-1) ?? '{}');
  return sameWords && !isReference(lastA) && !isReference(lastB);
}

/** The record field a key parameter fills: `load_balancer_id` -> `id`, `zoneName` -> `name`, `rrsetType` -> `type`. */
export function keyFieldOf(param: string, collectionWord: string, record: Schema | undefined): string {
  const properties = record?.properties ?? {};
  const has = (f: string) => f in properties;
  if (has(param) && param !== 'id') return param;
  if (/(_id|Id|ID)$/.test(param) || param === 'id') {
    if (has('id') || Object.keys(properties).length === 0) return 'id';
    if (has('uuid')) return 'uuid';
    // `keypair_id` is the record's `sshkey_id`: the one id field that does not place it (project, region).
    const identifying = (f: string) => /uuid/.test(String((properties[f] as Schema).format ?? '')) || f.startsWith(normalWord(param.replace(/_id$/, '')));
    const candidates = Object.keys(properties).filter((f) => /_id$/.test(f) && !/^(project|region|client|user|task|creator_task)_id$/.test(f));
    return candidates.find(identifying) ?? (candidates.length === 1 ? candidates[0] : 'id');
  }
  if (/(_name|Name)$/.test(param)) return 'name';
  if (/(_type|Type)$/.test(param)) return 'type';
  const stripped = param.replace(new RegExp(`^${singular(normalWord(collectionWord))}_?`, 'i'), '');
  if (stripped !== param && stripped !== '') return stripped.charAt(0).toLowerCase() + stripped.slice(1);
  return has('name') && !has(param) ? 'name' : param;
}
