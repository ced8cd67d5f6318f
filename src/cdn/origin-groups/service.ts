// Origin groups: their origins checked and stored, names unique in the account, a quota, changes checked
// against the resources using the group, and no deletion while a resource or a rule uses it.
import type { Principal } from '../../platform/auth/principal.js';
import type { Clock } from '../../platform/clock.js';
import { bodyField, type FieldError, notFound } from '../../platform/errors.js';
import type { Page } from '../../platform/pagination.js';
import { bareRefusal, limitReached, refused } from '../errors.js';
import { type ListRequest, pageOf } from '../http.js';
import { QUOTAS } from '../limits.js';
import type { AuthInputValue, OriginGroup, OriginGroupInput, SourceInputValue } from './schemas.js';
import { maskAuth, maskSource, portOf, readAuth, readSources, type StoredAuth, type StoredSource } from './sources.js';
import type { OriginGroupFields, OriginGroupRow, OriginGroupStore } from './store.js';
import { isUniqueViolation } from '../unique.js';

/** What the group rules need to know of the resources and rules that use groups. */
export interface GroupUsage {
  resourcesUsing(clientId: number, groupId: number): Promise<{ id: number; hostnames: string[]; originProtocol: string }[]>;
  rulesUsing(clientId: number, groupId: number): Promise<number>;
  groupsUsedByResources(clientId: number): Promise<Set<number>>;
}

export interface GroupFilters {
  name?: string;
  sources?: string;
  has_related_resources?: boolean;
}

/** A group as the resources see it. */
export interface GroupView {
  id: number;
  name: string;
  sources: StoredSource[];
}

const DEFAULT_NEXT_UPSTREAM = ['error', 'timeout'];

function storedSources(row: OriginGroupRow): StoredSource[] {
  return JSON.parse(row.sources) as StoredSource[];
}

function present(row: OriginGroupRow, used: boolean): OriginGroup {
  const base = {
    id: row.id,
    name: row.name,
    use_next: row.use_next === 1,
    proxy_next_upstream: JSON.parse(row.proxy_next_upstream) as string[],
    auth_type: row.auth_type,
    path: row.path,
    has_related_resources: used,
  };
  if (row.auth_type === 'awsSignatureV4' && row.auth) return { ...base, auth: maskAuth(JSON.parse(row.auth) as StoredAuth) } as OriginGroup;
  return { ...base, sources: storedSources(row).map(maskSource) } as OriginGroup;
}

const asObject = (body: unknown): OriginGroupInput => (body && typeof body === 'object' && !Array.isArray(body) ? (body as OriginGroupInput) : {});

export class OriginGroupService {
  constructor(
    private readonly store: OriginGroupStore,
    private readonly usage: GroupUsage,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, filters: GroupFilters, list: ListRequest): Promise<Page<OriginGroup>> {
    const clientId = principal.clientId;
    const [rows, used] = await Promise.all([this.store.all(clientId), this.usage.groupsUsedByResources(clientId)]);
    const wanted = rows.filter((row) => {
      if (filters.name !== undefined && row.name !== filters.name) return false;
      if (filters.has_related_resources !== undefined && used.has(row.id) !== filters.has_related_resources) return false;
      if (filters.sources !== undefined && !storedSources(row).some((s) => 'source' in s && s.source.toLowerCase() === filters.sources!.toLowerCase()))
        return false;
      return true;
    });
    return pageOf(
      wanted.map((row) => present(row, used.has(row.id))),
      list,
    );
  }

  async get(principal: Principal, id: number): Promise<OriginGroup> {
    const row = await this.owned(principal.clientId, id);
    return present(row, (await this.usage.resourcesUsing(principal.clientId, id)).length > 0);
  }

  /** Names of the client's groups by id, for presenting resources. */
  async names(clientId: number): Promise<Map<number, string>> {
    return new Map((await this.store.all(clientId)).map((row) => [row.id, row.name]));
  }

  /** A group of the client for the resources (undefined when it has none with this id). */
  async view(clientId: number, id: number): Promise<GroupView | undefined> {
    const row = await this.store.find(clientId, id);
    return row && { id: row.id, name: row.name, sources: storedSources(row) };
  }

  async create(principal: Principal, body: unknown): Promise<OriginGroup> {
    const input = asObject(body);
    const fields = this.checked(input, undefined, []);
    await this.checkName(principal.clientId, fields.name, undefined);
    if ((await this.store.count(principal.clientId)) >= QUOTAS.originGroups) {
      throw limitReached('forbidden', `The account already has ${QUOTAS.originGroups} origin groups, its limit: delete one to create another`);
    }
    const id = await this.insert(principal.clientId, fields);
    return this.get(principal, id);
  }

  /** The group a resource created with `origin` gets: that one origin, named after the resource. */
  async createForOrigin(clientId: number, cname: string, origin: string): Promise<number> {
    const taken = new Set((await this.store.all(clientId)).map((r) => r.name));
    let n = 1;
    const nameOf = (k: number) => (k === 1 ? cname : `${cname} (${k})`);
    const nextName = () => {
      while (taken.has(nameOf(n))) n += 1;
      taken.add(nameOf(n));
      return nameOf(n);
    };
    // The name is the server's to choose: when a concurrent request took it first (two creates of the same
    // host name at once), the next free one is tried, and the resource's own cname check decides.
    for (let attempt = 1; ; attempt += 1) {
      const fields = this.checked({ name: nextName(), sources: [{ source: origin }] }, undefined, []);
      try {
        return await this.store.insert(clientId, fields, this.clock.now());
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
  }

  /** Removes a group made by createForOrigin whose resource could not be created. */
  async discard(clientId: number, id: number): Promise<void> {
    await this.store.delete(clientId, id);
  }

  /** The origin a resource was given, checked as a source would be (errors under `origin`). */
  originErrors(origin: string): FieldError[] {
    return readSources([{ source: origin }], []).errors.map((e) => ({ ...e, path: ['origin'] }));
  }

  /** PUT: the body replaces the group; omitted optional fields go back to their defaults. */
  async replace(principal: Principal, id: number, body: unknown): Promise<OriginGroup> {
    const row = await this.owned(principal.clientId, id);
    const fields = this.checked(asObject(body), row, await this.linkErrors(principal.clientId, id, asObject(body).sources));
    await this.save(principal, row, fields);
    return this.get(principal, id);
  }

  /** PATCH: only the fields sent change. */
  async update(principal: Principal, id: number, body: unknown): Promise<OriginGroup> {
    const row = await this.owned(principal.clientId, id);
    const input = asObject(body);
    const merged: OriginGroupInput = {
      name: input.name ?? row.name,
      use_next: input.use_next ?? row.use_next === 1,
      proxy_next_upstream: input.proxy_next_upstream ?? (JSON.parse(row.proxy_next_upstream) as OriginGroupInput['proxy_next_upstream']),
      auth_type: input.auth_type ?? (row.auth_type as OriginGroupInput['auth_type']),
      auth: input.auth !== undefined ? input.auth : row.auth ? (JSON.parse(row.auth) as AuthInputValue) : null,
      sources: input.sources ?? (storedSources(row) as SourceInputValue[]),
      path: input.path ?? row.path,
    };
    const fields = this.checked(merged, row, await this.linkErrors(principal.clientId, id, input.sources));
    await this.save(principal, row, fields);
    return this.get(principal, id);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    await this.owned(principal.clientId, id);
    if ((await this.usage.resourcesUsing(principal.clientId, id)).length > 0)
      throw bareRefusal('name', 'The origin group is used by CDN resources and cannot be deleted');
    if ((await this.usage.rulesUsing(principal.clientId, id)) > 0)
      throw bareRefusal('name', 'The origin group is used by resource rules and cannot be deleted');
    await this.store.delete(principal.clientId, id);
  }

  private async owned(clientId: number, id: number): Promise<OriginGroupRow> {
    const row = await this.store.find(clientId, id);
    if (!row) throw notFound('Origin group');
    return row;
  }

  /** The fields to store, or a refusal with every problem of the request. */
  private checked(input: OriginGroupInput, row: OriginGroupRow | undefined, extra: FieldError[]): OriginGroupFields {
    const errors: FieldError[] = [...extra];
    const authType = input.auth_type ?? 'none';
    const nextUpstream = input.proxy_next_upstream ?? DEFAULT_NEXT_UPSTREAM;
    if (input.use_next === true && nextUpstream.length === 0)
      errors.push(bodyField(['proxy_next_upstream'], 'Give at least one case when use_next is true', 'missing'));
    let sources: StoredSource[] = [];
    let auth: StoredAuth | undefined;
    if (authType === 'awsSignatureV4') {
      const read = readAuth(input.auth, row?.auth ? (JSON.parse(row.auth) as StoredAuth) : null);
      errors.push(...read.errors);
      auth = read.auth;
    } else {
      if (input.auth)
        errors.push(bodyField(['auth'], 'Group-wide credentials go with auth_type awsSignatureV4; an S3 origin takes them in its config', 'conflict'));
      if (input.sources === undefined) errors.push(bodyField(['sources'], 'Field required', 'missing'));
      else {
        const read = readSources(input.sources, row ? storedSources(row) : []);
        errors.push(...read.errors);
        sources = read.sources;
      }
    }
    if (errors.length > 0) throw refused(errors);
    return {
      name: input.name!,
      use_next: input.use_next ? 1 : 0,
      proxy_next_upstream: JSON.stringify(nextUpstream),
      auth_type: authType,
      auth: auth ? JSON.stringify(auth) : null,
      sources: JSON.stringify(sources),
      path: input.path ?? '',
    };
  }

  /** New host origins of a group in use must not be a resource's own host name, nor have a port under MATCH. */
  private async linkErrors(clientId: number, groupId: number, sources: SourceInputValue[] | undefined): Promise<FieldError[]> {
    if (!sources) return [];
    const resources = await this.usage.resourcesUsing(clientId, groupId);
    const errors: FieldError[] = [];
    sources.forEach((source, i) => {
      if (source.source === undefined) return;
      const host = source.source.toLowerCase();
      if (resources.some((r) => r.hostnames.includes(host)))
        errors.push(bodyField(['sources', i, 'source'], 'The origin is a host name of a CDN resource using this group'));
      const port = portOf({ source: source.source, backup: false, enabled: true, host_header_override: null });
      if (port !== null && resources.some((r) => r.originProtocol === 'MATCH')) {
        errors.push(
          bodyField(['sources', i, 'source'], 'A CDN resource using this group has originProtocol MATCH, which chooses the port: give the origin without one'),
        );
      }
    });
    return errors;
  }

  private async checkName(clientId: number, name: string, exceptId: number | undefined): Promise<void> {
    const other = await this.store.findByName(clientId, name);
    if (other && other.id !== exceptId) throw refused([bodyField(['name'], 'Another origin group of the account has this name', 'conflict')]);
  }

  private async insert(clientId: number, fields: OriginGroupFields): Promise<number> {
    try {
      return await this.store.insert(clientId, fields, this.clock.now());
    } catch (error) {
      if (isUniqueViolation(error)) throw refused([bodyField(['name'], 'Another origin group of the account has this name', 'conflict')]);
      throw error;
    }
  }

  private async save(principal: Principal, row: OriginGroupRow, fields: OriginGroupFields): Promise<void> {
    await this.checkName(principal.clientId, fields.name, row.id);
    try {
      await this.store.update(principal.clientId, row.id, fields, this.clock.now());
    } catch (error) {
      if (isUniqueViolation(error)) throw refused([bodyField(['name'], 'Another origin group of the account has this name', 'conflict')]);
      throw error;
    }
  }
}
