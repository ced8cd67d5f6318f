// The rules of the catalogue engine: one method per plan kind, over the generic record store. No SQL and
// no HTTP here; routes hand in the request's parts and get back a status and a body.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from '../platform/auth/caller.js';
import type { Clock } from '../platform/clock.js';
import type { Database } from '../platform/db/index.js';
import { AppError, type ErrorCode, notFound } from '../platform/errors.js';
import type { TaskEngine } from '../platform/tasks/engine.js';
import { fill, type FillContext, type ReportCall, seedDigest, seededInt, seededUuid } from './fill.js';
import type { Inference, Plan, Resource } from './infer.js';
import { completeRecord, fromBody, type Json, mergeRecords, project } from './present.js';
import { seriesFor } from './report.js';
import { type Locator, RecordStore, type RecordRow } from './store.js';
import type { EngineTaskData } from './tasks.js';
import { fillPath, isParam, isVersion, normalWord, paramName, segmentsOf, singular } from './words.js';

/** Quotas of the engine's records, per client (docs/catalogue.md). */
export const RECORDS_PER_COLLECTION = 5_000;
export const RECORDS_PER_CLIENT = 50_000;

export interface Call {
  plan: Plan;
  caller: Caller;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** Whether the record at an item path (a parent, a referenced project) exists for the caller: its pattern and its values in order. */
  exists(template: string, ids: readonly string[]): Promise<boolean>;
  /**
   * The record at an item path when a modelled product serves its read (undefined when the engine does,
   * or when there is none): engine operations on a modelled record (its metadata, an action) start from it.
   */
  adopt(template: string, path: string): Promise<Json | undefined>;
}

export interface Answer {
  status: number;
  body?: unknown;
}

const CATALOGUE_SIZE = 3;

export class CatalogueService {
  private readonly store: RecordStore;
  /** Each report's response schema as JSON, as the thread is sent it. */
  private readonly reportSchemas = new WeakMap<Plan, string>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly inference: Inference,
    private readonly tasks: TaskEngine | undefined,
    private readonly errorCode: (plan: Plan) => ErrorCode,
    /** The registered task type for a derived name (a name a modelled product runs is prefixed). */
    private readonly taskTypeOf: (name: string) => string = (name) => name,
    /** Where reports are generated (the engine's thread); rejects when it could not answer. */
    private readonly reports?: (call: ReportCall) => Promise<unknown>,
  ) {
    this.store = new RecordStore(db.kysely);
  }

  async handle(call: Call): Promise<Answer> {
    await this.checkPlace(call);
    const { plan } = call;
    switch (plan.kind) {
      case 'create':
        return this.create(call);
      case 'list':
        return this.list(call);
      case 'read':
        return this.read(call);
      case 'merge':
      case 'replace':
      case 'action':
        return this.change(call);
      case 'delete':
        return this.delete(call);
      case 'singleton':
        return this.singleton(call);
      case 'catalogList':
        return this.catalogueList(call);
      case 'catalogRead':
        return this.catalogueRead(call);
      case 'lookup':
        return this.lookup(call);
      case 'report':
        return this.answer(plan, await this.report(call));
      default:
        return plan.resource ? this.keyedView(call) : this.answer(plan, this.generated(call, {}));
    }
  }

  // ---- where: parents and references --------------------------------------------------------------

  /** Every record the path is nested under, and every record it names, must exist for the caller. */
  private async checkPlace(call: Call): Promise<void> {
    for (const check of [...call.plan.references, ...call.plan.parents]) {
      const ids = check.from.map((name) => String(call.params[name] ?? ''));
      if (!(await call.exists(check.path, ids))) throw notFound(describe(check.path, call.params[check.from.at(-1)!]));
    }
  }

  // ---- records ------------------------------------------------------------------------------------

  private async create(call: Call): Promise<Answer> {
    const { plan, caller } = call;
    const resource = plan.resource!;
    const at = this.locator(resource, call);
    const fields = fromBody(call.body, resource.record, this.inference.schemas);
    const pathKey = this.pathKey(resource, call);
    const chosen = pathKey ?? this.chosenKey(resource, fields);
    const existing = chosen === undefined ? undefined : await this.store.get(at, chosen);
    // PUT on an item path creates the record, or replaces it when it exists.
    if (existing && plan.op.method === 'PUT' && pathKey !== undefined) return this.change({ ...call, plan: { ...plan, kind: 'replace' } });
    if (existing) throw new AppError(this.conflictCode(plan), `${this.label(resource)} ${decodeURIComponent(chosen!)} already exists`);
    await this.checkQuota(resource, at);
    const now = this.clock.now();
    const write = async (db: Kysely<any>, taskId: string | null) => {
      const store = new RecordStore(db);
      const provisional = chosen ?? (resource.keyForm === 'integer' ? `pending-${randomUUID()}` : randomUUID());
      const id = await store.insert({
        client_id: caller.clientId,
        collection: at.collection,
        scope: at.scope,
        record_key: provisional,
        path: '',
        body: '{}',
        state: taskId ? 'creating' : 'ready',
        task_id: taskId,
        created_at: now,
        updated_at: now,
      });
      const key = chosen ?? (resource.keyForm === 'integer' ? String(id) : provisional);
      const record = this.newRecord(resource, call, fields, key, now, id);
      await store.update(id, { record_key: key, path: this.itemPath(call.plan, call.params, key), body: JSON.stringify(record) });
      return { id, key, record };
    };
    if (plan.tasks && this.tasks) {
      let key = '';
      const made = await this.submit(
        call,
        async (trx, taskId) => {
          const row = await write(trx, taskId);
          key = row.key;
          return row;
        },
        (row) => ({ kind: 'create', record: row.id, key: row.key, createdKey: resource.createdKey, integer: resource.keyForm === 'integer' }),
      );
      return this.answer(plan, { tasks: [made.taskId], id: decodeURIComponent(key) });
    }
    const made = await write(this.db.kysely, null);
    return this.answer(plan, this.view(plan, made.record, `${at.collection}/${made.key}`));
  }

  private newRecord(resource: Resource, call: Call, fields: Json, key: string, now: number, rowId: number): Json {
    const keyFields: Json = {};
    // A record keyed by name still has an id when its schema says so: the row id, or a UUID.
    const idSchema = this.inference.schemas.objectOf(resource.record)?.properties?.id;
    if (idSchema && !resource.keyFields.includes('id') && fields.id === undefined) {
      const types = this.inference.schemas.types(idSchema);
      keyFields.id = types.includes('integer') || types.includes('number') ? rowId : randomUUID();
    }
    const keyValues = key.split('/');
    resource.keyFields.forEach((field, i) => {
      keyFields[field] = this.typed(resource, field, decodeURIComponent(keyValues[i] ?? key));
    });
    const record = completeRecord({ ...fields, ...keyFields }, resource.record, `${resource.collection}/${key}`, this.fillContext(call, now, keyFields));
    return { ...record, ...keyFields };
  }

  private async list(call: Call): Promise<Answer> {
    const { plan } = call;
    const resource = plan.resource!;
    const at = this.locator(resource, call);
    const rows = (await this.store.all(at, resource.collection.endsWith('>'))).filter((r) => r.state !== 'creating');
    const records = rows.map((r) => JSON.parse(r.body) as Json);
    return this.answer(
      plan,
      this.page(call, records, (record) => `${at.collection}/${this.keyOf(resource, record)}`),
    );
  }

  private async read(call: Call): Promise<Answer> {
    const row = await this.row(call);
    const record = await this.withChildren(call.plan, row);
    return this.answer(call.plan, this.view(call.plan, record, `${row.collection}/${row.record_key}`));
  }

  /**
   * A record lists its nested records where its schema has a list field named for them: a security
   * group's `security_group_rules` are the rules stored under it (`.../{group_id}/rules`).
   */
  private async withChildren(plan: Plan, row: RecordRow): Promise<Json> {
    const record = JSON.parse(row.body) as Json;
    const properties = this.inference.schemas.objectOf(plan.responseSchema)?.properties ?? {};
    const lists = Object.keys(properties).filter((name) => this.inference.schemas.arrayItems(properties[name])?.properties);
    if (lists.length === 0) return record;
    const children = (await this.store.under(row.client_id, row.path)).filter((child) => child.state === 'ready' && child.record_key !== '');
    for (const name of lists) {
      const word = normalWord(name);
      const mine = children.filter((child) => {
        const childWord =
          child.collection
            .split('/')
            .filter((s) => !s.startsWith('{') && !s.startsWith('<'))
            .at(-1) ?? '';
        return childWord !== '' && word.endsWith(childWord) && child.path.split('/').length === row.path.split('/').length + 2;
      });
      if (mine.length > 0) record[name] = mine.map((child) => JSON.parse(child.body));
    }
    return record;
  }

  /** PATCH merges, PUT replaces, an action changes the fields its body names; tasks apply it when they finish. */
  private async change(call: Call): Promise<Answer> {
    const { plan } = call;
    const resource = plan.resource!;
    const row = resource.creatable ? await this.row(call) : await this.overlay(call);
    const current = JSON.parse(row.body) as Json;
    const fields = fromBody(call.body, resource.record, this.inference.schemas);
    const next = plan.kind === 'replace' ? this.replaced(call, current, fields) : mergeRecords(current, fields);
    for (const [i, field] of resource.keyFields.entries()) next[field] = current[field] ?? this.typed(resource, field, row.record_key.split('/')[i]);
    if (plan.tasks && this.tasks) {
      if (row.task_id) throw new AppError('conflict', `${this.label(resource)} ${row.record_key} is busy with task ${row.task_id}; wait for it to finish`);
      const made = await this.submit(
        call,
        async (trx, taskId) => {
          await new RecordStore(trx).update(row.id, { task_id: taskId, state: 'updating' });
          return row;
        },
        () => ({ kind: 'update', record: row.id, changes: next }),
      );
      return this.answer(plan, { tasks: [made.taskId], id: decodeURIComponent(row.record_key) });
    }
    await this.store.update(row.id, { body: JSON.stringify(next), updated_at: this.clock.now() });
    return this.answer(plan, this.view(plan, next, `${row.collection}/${row.record_key}`));
  }

  /** PUT: the record becomes what was sent; fields the request cannot set (ids, timestamps, statuses) stay. */
  private replaced(call: Call, current: Json, fields: Json): Json {
    const body = call.plan.op.requestBody?.content['application/json'];
    const settable = new Set(Object.keys(this.inference.schemas.objectOf(body)?.properties ?? {}));
    const kept = Object.fromEntries(Object.entries(current).filter(([key]) => !settable.has(key)));
    return completeRecord(
      { ...kept, ...fields },
      call.plan.resource!.record,
      `${call.plan.resource!.collection}/replaced`,
      this.fillContext(call, this.clock.now(), {}),
    );
  }

  private async delete(call: Call): Promise<Answer> {
    const { plan } = call;
    if (!plan.resource!.creatable) {
      // What the client cannot create (an artifact, a catalogue entry) it may still remove: nothing stored goes.
      const stored = await this.store.get(this.locator(plan.resource!, call), this.pathKey(plan.resource!, call) ?? '');
      if (stored) await this.store.deleteTree(call.caller.clientId, stored.path);
      return this.answer(plan, plan.tasks ? { tasks: [], id: String(Object.values(call.params).at(-1) ?? '') } : this.generated(call, {}));
    }
    const row = await this.row(call);
    if (plan.tasks && this.tasks) {
      if (row.task_id)
        throw new AppError('conflict', `${this.label(plan.resource!)} ${row.record_key} is busy with task ${row.task_id}; wait for it to finish`);
      const made = await this.submit(
        call,
        async (trx, taskId) => {
          await new RecordStore(trx).update(row.id, { task_id: taskId, state: 'deleting' });
          return row;
        },
        () => ({ kind: 'delete', record: row.id }),
      );
      return this.answer(plan, { tasks: [made.taskId], id: decodeURIComponent(row.record_key) });
    }
    await this.store.deleteTree(call.caller.clientId, row.path);
    return this.answer(plan, this.view(plan, JSON.parse(row.body), `${row.collection}/${row.record_key}`));
  }

  private async lookup(call: Call): Promise<Answer> {
    const { plan } = call;
    const resource = plan.resource!;
    const value = String(Object.values(call.params).at(-1));
    const at = this.locator(resource, call);
    const found = (await this.store.all(at)).map((r) => JSON.parse(r.body) as Json).find((r) => String(r[plan.lookupField!]) === value);
    if (!found) throw notFound(`${this.label(resource)} with ${plan.lookupField} ${value}`);
    const types = plan.responseSchema ? this.inference.schemas.types(plan.responseSchema) : [];
    if (types.length > 0 && !types.includes('object')) return this.answer(plan, found[resource.keyFields[0]]);
    return this.answer(plan, this.view(plan, found, `${at.collection}/${value}`));
  }

  // ---- singletons: one settings object per client or per parent --------------------------------------

  private async singleton(call: Call): Promise<Answer> {
    const { plan, caller } = call;
    const at: Locator = { clientId: caller.clientId, collection: plan.singletonPattern!, scope: paramValues(plan.op.path, call.params).join('/') };
    const schema = this.singletonSchema(plan);
    const row = await this.store.get(at, '');
    const stored = row ? (JSON.parse(row.body) as Json) : undefined;
    const seed = `${at.collection}/${at.scope}`;
    const now = this.clock.now();
    const current = stored ?? (fill(schema, seed, this.fillContext(call, now, {}, true)) as Json) ?? {};
    if (plan.op.method === 'GET') return this.answer(plan, this.view(plan, isObject(current) ? current : {}, seed));
    if (plan.op.method === 'DELETE') {
      if (row) await this.store.deleteRow(row.id);
      return this.answer(plan, this.view(plan, isObject(current) ? current : {}, seed));
    }
    const fields = fromBody(call.body, schema, this.inference.schemas);
    const next = plan.op.method === 'PATCH' ? mergeRecords(isObject(current) ? current : {}, fields) : { ...(isObject(current) ? current : {}), ...fields };
    const body = JSON.stringify(next);
    if (row) await this.store.update(row.id, { body, updated_at: now });
    else
      await this.store.insert({
        client_id: caller.clientId,
        collection: at.collection,
        scope: at.scope,
        record_key: '',
        path: normalPath(plan.op.path, call.params),
        body,
        state: 'ready',
        task_id: null,
        created_at: now,
        updated_at: now,
      });
    return this.answer(plan, this.view(plan, next, seed));
  }

  private singletonSchema(plan: Plan) {
    const read = this.inference.plan(this.sibling(plan, 'GET') ?? plan.op);
    return read.responseSchema ?? plan.op.requestBody?.content['application/json'];
  }

  private sibling(plan: Plan, method: string) {
    try {
      return this.inference.operation(method, plan.op.path);
    } catch {
      return undefined;
    }
  }

  // ---- read-only catalogues -----------------------------------------------------------------------

  private catalogue(call: Call, resource: Resource): Json[] {
    const scope = paramValues(call.plan.op.path, call.params).slice(0, resource.scopeParams).join('/');
    const word =
      segmentsOf(call.plan.op.path)
        .filter((s) => !isParam(s) && !isVersion(s))
        .at(resource.keyParams > 0 ? -1 : -1) ?? 'item';
    const entries: Json[] = [];
    for (let i = 1; i <= CATALOGUE_SIZE; i += 1) {
      const seed = `${resource.collection}/${scope}#${i}`;
      const key = resource.keyForm === 'integer' ? i : resource.keyForm === 'uuid' ? seededUuid(seed) : `${normalWord(word)}-${i}`;
      const keyField = resource.keyFields[0];
      entries.push({ ...(fill(resource.record, seed, this.fillContext(call, this.clock.now(), { [keyField]: key }, true)) as Json), [keyField]: key });
    }
    return entries;
  }

  private async catalogueList(call: Call): Promise<Answer> {
    const resource = call.plan.resource!;
    return this.answer(
      call.plan,
      this.page(call, this.catalogue(call, resource), (r) => `${resource.collection}/${this.keyOf(resource, r)}`),
    );
  }

  private async catalogueRead(call: Call): Promise<Answer> {
    const resource = call.plan.resource!;
    const key = String(Object.values(call.params).at(-1));
    const listPlan = { ...call.plan, op: call.plan.op };
    const entry = this.catalogue({ ...call, plan: listPlan }, resource).find((e) => String(e[resource.keyFields[0]]) === key);
    if (!entry) throw notFound(`${this.label(resource)} ${key}`);
    return this.answer(call.plan, this.view(call.plan, entry, `${resource.collection}/${key}`));
  }

  // ---- answers ------------------------------------------------------------------------------------

  /** A record nobody creates or lists: what was stored for its key, else its generated form. */
  private async keyedView(call: Call): Promise<Answer> {
    const resource = call.plan.resource!;
    const key = this.pathKey(resource, call);
    if (key === undefined || call.plan.op.method !== 'GET') return this.answer(call.plan, this.generated(call, {}));
    const at = this.locator(resource, call);
    const stored = await this.store.get(at, key);
    if (stored) return this.answer(call.plan, this.view(call.plan, JSON.parse(stored.body), `${at.collection}/${key}`));
    const keyFields = Object.fromEntries(resource.keyFields.map((f, i) => [f, this.typed(resource, f, decodeURIComponent(key.split('/')[i] ?? key))]));
    const record = { ...(fill(resource.record, `${at.collection}/${key}`, this.fillContext(call, this.clock.now(), keyFields, true)) as Json), ...keyFields };
    return this.answer(call.plan, this.view(call.plan, record, `${at.collection}/${key}`));
  }

  private generated(call: Call, extra: Partial<FillContext>, now = this.clock.now()): unknown {
    const { plan } = call;
    if (!plan.responseSchema) return undefined;
    return fill(plan.responseSchema, generatedSeed(call), this.fillContext(call, now, {}, plan.kind === 'report', extra));
  }

  /**
   * A report, generated in the engine's thread when there is one (else, or when it could not answer,
   * here): 200 points of seeded values held the main thread 3-9 ms a report, every other client's wait.
   */
  private async report(call: Call): Promise<unknown> {
    const { plan } = call;
    const now = this.clock.now();
    const series = seriesFor(call.query, call.body, now);
    if (!this.reports || !plan.responseSchema) return this.generated(call, { series }, now);
    let schema = this.reportSchemas.get(plan);
    if (schema === undefined) this.reportSchemas.set(plan, (schema = JSON.stringify(plan.responseSchema)));
    const key = `${plan.op.method} ${plan.op.path}`;
    return this.reports({ key, schema, seed: generatedSeed(call), now, known: { ...call.params }, series }).catch(() => this.generated(call, { series }, now));
  }

  /** A list answer: filtered by the declared equality filters, ordered, paged, in the declared envelope. */
  private page(call: Call, records: Json[], seedOf: (r: Json) => string): unknown {
    const { plan, query } = call;
    const list = plan.list!;
    const declared = new Set(plan.op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    let items = records.filter((record) => matches(record, query, declared));
    items = ordered(items, query);
    const { offset, limit, paged } = paging(query, declared);
    const total = items.length;
    const window = items.slice(offset, limit === undefined ? undefined : offset + limit);
    const shaped = window.map((r) => project(r, list.itemSchema, seedOf(r), this.fillContext(call, this.clock.now(), {})));
    if (list.bare || (list.envelopeOnPaging && !paged)) return shaped;
    const envelope: Json = {};
    const schema = list.envelopeSchema ?? {};
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
      if (key === list.itemsField) envelope[key] = shaped;
      else if (key === list.countField) envelope[key] = total;
      else if ((key === 'next' || key === 'previous') && this.inference.schemas.types(property as never).includes('null')) envelope[key] = null;
      else if (key === 'limit') envelope[key] = limit ?? total;
      else if (key === 'offset') envelope[key] = offset;
      else
        envelope[key] = fill(
          property as never,
          `${plan.op.path}.${key}`,
          this.fillContext(call, this.clock.now(), { total_count: total, total, count: total }),
        );
    }
    return envelope;
  }

  private view(plan: Plan, record: Json, seed: string): unknown {
    if (!plan.responseSchema) return undefined;
    // An answer that lists what was made (`POST /streaming/videos` answers `[video]`).
    const types = this.inference.schemas.types(plan.responseSchema);
    const items = this.inference.schemas.arrayItems(plan.responseSchema);
    if (items && !types.includes('object')) return [project(record, items, seed, { schemas: this.inference.schemas, now: this.clock.now(), known: {} })];
    return project(record, plan.responseSchema, seed, { schemas: this.inference.schemas, now: this.clock.now(), known: {} });
  }

  private answer(plan: Plan, body: unknown): Answer {
    if (plan.status === 204 || !plan.responseSchema) return { status: plan.status };
    if (body && isObject(body) && 'tasks' in body)
      return { status: plan.status, body: project(body, plan.responseSchema, 'tasks', { schemas: this.inference.schemas, now: this.clock.now(), known: {} }) };
    return { status: plan.status, body };
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private async row(call: Call): Promise<RecordRow> {
    const resource = call.plan.resource!;
    const at = this.locator(resource, call);
    const key = this.pathKey(resource, call) ?? '';
    const row = (await this.store.get(at, key)) ?? (await this.adopted(call, at, key));
    if (!row || row.state === 'creating') throw notFound(`${this.label(resource)} ${decodeURIComponent(key)}`);
    return row;
  }

  /** A record nobody creates, changed for the first time: stored from its generated form. */
  private async overlay(call: Call): Promise<RecordRow> {
    const resource = call.plan.resource!;
    const at = this.locator(resource, call);
    const key = this.pathKey(resource, call) ?? '';
    const found = (await this.store.get(at, key)) ?? (await this.adopted(call, at, key));
    if (found) return found;
    const now = this.clock.now();
    const keyFields = Object.fromEntries(resource.keyFields.map((f, i) => [f, this.typed(resource, f, decodeURIComponent(key.split('/')[i] ?? key))]));
    const body = { ...(fill(resource.record, `${at.collection}/${key}`, this.fillContext(call, now, keyFields, true)) as Json), ...keyFields };
    const row = {
      client_id: call.caller.clientId,
      collection: at.collection,
      scope: at.scope,
      record_key: key,
      path: this.itemPath(call.plan, call.params, key),
      body: JSON.stringify(body),
      state: 'ready' as const,
      task_id: null,
      created_at: now,
      updated_at: now,
    };
    return { id: await this.store.insert(row), ...row };
  }

  /** A modelled product's record, copied into the engine's store so engine operations can change it. */
  private async adopted(call: Call, at: Locator, key: string): Promise<RecordRow | undefined> {
    const read = call.plan.itemRead;
    if (!read || key === '') return undefined;
    const body = await call.adopt(
      read.path,
      fillPath(
        read.path,
        read.from.map((name) => String(call.params[name] ?? '')),
      ),
    );
    if (!body) return undefined;
    const now = this.clock.now();
    const row = {
      client_id: call.caller.clientId,
      collection: at.collection,
      scope: at.scope,
      record_key: key,
      path: this.itemPath(call.plan, call.params, key),
      body: JSON.stringify(body),
      state: 'ready' as const,
      task_id: null,
      created_at: now,
      updated_at: now,
    };
    return { id: await this.store.insert(row), ...row };
  }

  /** Where the records of a resource live for this request: the client and the scope's parameter values. */
  private locator(resource: Resource, call: Call): Locator {
    const values = paramValues(call.plan.op.path, call.params);
    return { clientId: call.caller.clientId, collection: resource.collection, scope: values.slice(0, resource.scopeParams).join('/') };
  }

  /** The key the path gives (item operations), URL-safe: parts of multi-part keys joined by `/`. */
  private pathKey(resource: Resource, call: Call): string | undefined {
    const values = paramValues(call.plan.op.path, call.params);
    if (values.length < resource.scopeParams + resource.keyParams || resource.keyParams === 0) return undefined;
    const keys = values.slice(resource.scopeParams, resource.scopeParams + resource.keyParams);
    return keys.map((v) => encodeURIComponent(v)).join('/');
  }

  private chosenKey(resource: Resource, fields: Json): string | undefined {
    if (resource.keyForm !== 'string' || resource.keyParams !== 1) return undefined;
    const value = fields[resource.keyFields[0]];
    return typeof value === 'string' || typeof value === 'number' ? encodeURIComponent(String(value)) : undefined;
  }

  private keyOf(resource: Resource, record: Json): string {
    return resource.keyFields.map((f) => encodeURIComponent(String(record[f] ?? ''))).join('/');
  }

  /** A key field's value in its schema's type (an integer key is a number in the record). */
  private typed(resource: Resource, field: string, value: string): unknown {
    const property = this.inference.schemas.objectOf(resource.record)?.properties?.[field];
    const types = property ? this.inference.schemas.types(property) : [];
    const numeric =
      types.includes('integer') || types.includes('number') || (types.length === 0 && resource.keyForm === 'integer' && field === resource.keyFields[0]);
    return numeric && /^-?\d+$/.test(value) ? Number(value) : value;
  }

  /** The canonical path of an item: its collection's normalised path with values, then its key. */
  private itemPath(plan: Plan, params: Record<string, unknown>, key: string): string {
    const resource = plan.resource!;
    const scopeValues = paramValues(plan.op.path, params).slice(0, resource.scopeParams);
    const base = resource.collection.replace(/\/<\d+>$/, '');
    return `${fillPath(base, scopeValues)}/${key}`;
  }

  private fillContext(call: Call, now: number, known: Json, optional = false, extra: Partial<FillContext> = {}): FillContext {
    return { schemas: this.inference.schemas, now, known: { ...call.params, ...known }, optional, ...extra };
  }

  /**
   * Every client-owned collection has a quota (docs/catalogue.md): records of one collection, and records
   * in all, per client. Without one a client could fill the database, and every list would read it all.
   */
  private async checkQuota(resource: Resource, at: Locator): Promise<void> {
    const counts = await this.store.counts(at.clientId, at.collection);
    if (counts.collection >= RECORDS_PER_COLLECTION) {
      throw new AppError(
        'bad_request',
        `The account has ${RECORDS_PER_COLLECTION} ${this.label(resource)} records, the most Edgeplane keeps; delete some first.`,
      );
    }
    if (counts.all >= RECORDS_PER_CLIENT) {
      throw new AppError('bad_request', `The account has ${RECORDS_PER_CLIENT} records of the catalogue engine, the most Edgeplane keeps; delete some first.`);
    }
  }

  private label(resource: Resource): string {
    const word = singular(
      resource.collection
        .split('/')
        .filter((s) => !s.startsWith('{') && !s.startsWith('<'))
        .at(-1) ?? 'record',
    );
    return word.charAt(0).toUpperCase() + word.slice(1);
  }

  private conflictCode(plan: Plan): ErrorCode {
    return plan.op.responses['409'] ? 'conflict' : this.errorCode(plan);
  }

  /** Writes the record change and its task in one transaction, then lets the task run. */
  private async submit<T extends { id: number }>(
    call: Call,
    write: (trx: Kysely<any>, taskId: string) => Promise<T & { key?: string }>,
    data: (made: T & { key?: string }) => EngineTaskData,
  ): Promise<{ taskId: string }> {
    const engine = this.tasks!;
    const { caller, plan } = call;
    const projectId = numeric(call.params.project_id);
    const regionId = numeric(call.params.region_id);
    const type = this.taskTypeOf(plan.taskType!);
    const taskId = await engine.submit(caller, { projectId, regionId }, type, async (trx, id) => data(await write(trx, id)));
    return { taskId };
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const numeric = (value: unknown) => (value === undefined || value === null || Number.isNaN(Number(value)) ? null : Number(value));

/** Path parameter values in path order, as text. */
function paramValues(path: string, params: Record<string, unknown>): string[] {
  return segmentsOf(path)
    .filter(isParam)
    .map((s) => String(params[paramName(s)] ?? ''));
}

/** The normalised path (versions dropped, words normalised) with values: where a record's nested records live. */
function normalPath(path: string, params: Record<string, unknown>): string {
  return segmentsOf(path)
    .filter((s) => !isVersion(s))
    .map((s) => (isParam(s) ? encodeURIComponent(String(params[paramName(s)] ?? '')) : normalWord(s)))
    .join('/');
}

function describe(template: string, value: unknown): string {
  const word =
    segmentsOf(template)
      .filter((s) => !isParam(s) && !isVersion(s))
      .at(-1) ?? 'Record';
  return `${singular(word)} ${String(value ?? '')}`.trim();
}

const PAGING = new Set([
  'limit',
  'offset',
  'page',
  'page_size',
  'per_page',
  'size',
  'ordering',
  'order_by',
  'order_direction',
  'sort',
  'sorting',
  'search',
  'fields',
]);

function matches(record: Json, query: Record<string, unknown>, declared: Set<string>): boolean {
  for (const [name, wanted] of Object.entries(query)) {
    if (!declared.has(name) || PAGING.has(name) || !(name in record) || wanted === undefined) continue;
    const have = record[name];
    const options = (Array.isArray(wanted) ? wanted : [wanted]).map(String);
    if (have === null || typeof have === 'object') continue;
    if (!options.includes(String(have))) return false;
  }
  return true;
}

function ordered(items: Json[], query: Record<string, unknown>): Json[] {
  const spec = query.ordering ?? query.order_by ?? query.sort ?? query.sorting;
  if (typeof spec !== 'string' || spec === '') return items;
  let field = spec.replace(/^-/, '').replace(/\.(asc|desc)$/, '');
  const descending = spec.startsWith('-') || spec.endsWith('.desc') || query.order_direction === 'desc';
  if (!items.some((i) => field in i)) field = 'id';
  const value = (r: Json) => r[field] as string | number;
  return [...items].sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0) * (descending ? -1 : 1));
}

function paging(query: Record<string, unknown>, declared: Set<string>): { offset: number; limit?: number; paged: boolean } {
  const num = (name: string) => (declared.has(name) && query[name] !== undefined ? Number(query[name]) : undefined);
  const limit = num('limit') ?? num('page_size') ?? num('per_page') ?? num('size');
  const page = num('page');
  if (page !== undefined) {
    const size = limit ?? 25;
    return { offset: Math.max(0, page - 1) * size, limit: size, paged: true };
  }
  const offset = num('offset') ?? 0;
  return { offset, limit, paged: limit !== undefined || num('offset') !== undefined };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export { seededInt };

/** A generated answer's seed: the operation and a digest of the request, so the same request answers the same. */
function generatedSeed(call: Call): string {
  const { op } = call.plan;
  return `${op.method} ${op.path} ${seedDigest(`${stableJson(call.params)} ${stableJson(call.query)} ${stableJson(call.body ?? null)}`)}`;
}
