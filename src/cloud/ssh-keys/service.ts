// SSH keys of a project (no region): made, shared and deleted at once, not by tasks. A key not shared
// in the project is seen by the user who made it only. Names are unique in a project; the client's
// keys (all projects) count against its keypair quota.
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import { zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { attrsOf, newRow, NO_REGION, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { QuotaService } from '../quotas/service.js';
import { generateKeyPair, parsePublicKey } from './keys.js';
import type { CreatedSshKeySchema, SshKeyCreateBody, SshKeyListQuery, SshKeySchema } from './schemas.js';

type SshKey = Static<typeof SshKeySchema>;
type CreatedSshKey = Static<typeof CreatedSshKeySchema>;

interface KeyAttrs {
  public_key: string;
  fingerprint: string;
  shared_in_project: boolean;
  /** The user who made it: the only one to see it while it is not shared. */
  user_id: number;
}

export class SshKeyService {
  constructor(
    private readonly ops: Operations,
    private readonly quotas: QuotaService,
  ) {}

  async create(caller: Caller, projectId: number, body: Static<typeof SshKeyCreateBody>): Promise<CreatedSshKey> {
    const scope = await this.scope(caller, projectId);
    const generated = body.public_key === undefined || body.public_key.trim() === '' ? generateKeyPair(body.name) : null;
    const parsed = generated ?? parsePublicKey(body.public_key!);
    if ('error' in parsed) throw badInput([bodyField(['public_key'], parsed.error)]);
    const id = randomUUID();
    const attrs: KeyAttrs = {
      public_key: parsed.publicKey,
      fingerprint: parsed.fingerprint,
      shared_in_project: body.shared_in_project ?? true,
      user_id: caller.userId,
    };
    const now = this.ops.clock.now();
    await this.ops.transaction(scope, async (trx) => {
      // The quota check locks the client's quota row: creates of one client are serial, so two cannot both take a free name.
      await this.quotas.checkNow(trx, caller.clientId, { keypair_count: 1 });
      const store = new ResourceStore(trx);
      if (await store.getByName('ssh_key', scope, body.name))
        throw new AppError('conflict', `An SSH key named ${body.name} already exists in project ${projectId}`);
      await store.insert({ ...newRow(scope, 'ssh_key', id, body.name, 'ACTIVE', '', attrs, now), creator_task_id: null, task_id: null, ready: 1 });
    });
    const row = (await this.ops.resources.get('ssh_key', scope, id))!;
    return { ...present(row), project_id: projectId, created_at: zonedTime(row.created_at), private_key: generated?.privateKey ?? null };
  }

  async list(caller: Caller, projectId: number, query: Static<typeof SshKeyListQuery>) {
    const scope = await this.scope(caller, projectId);
    const name = query.name?.toLowerCase();
    const keys = (await this.ops.resources.all('ssh_key', scope)).filter(
      (r) => visibleTo(r, caller) && (name === undefined || r.name.toLowerCase().includes(name)),
    );
    const [field, dir] = (query.order_by ?? 'created_at.asc').split('.');
    keys.sort((a, b) => (field === 'name' ? a.name.localeCompare(b.name) : Number(a.created_at) - Number(b.created_at)) * (dir === 'desc' ? -1 : 1));
    return pageOf(keys.map(present), query);
  }

  async get(caller: Caller, projectId: number, id: string): Promise<SshKey> {
    return present(await this.row(caller, await this.scope(caller, projectId), id));
  }

  async share(caller: Caller, projectId: number, id: string, shared: boolean): Promise<SshKey> {
    const scope = await this.scope(caller, projectId);
    const row = await this.row(caller, scope, id);
    const attrs = attrsOf<KeyAttrs>(row);
    attrs.shared_in_project = shared;
    await this.ops.resources.update(id, { attrs: JSON.stringify(attrs), updated_at: this.ops.clock.now() });
    return present(await this.row(caller, scope, id));
  }

  async delete(caller: Caller, projectId: number, id: string): Promise<void> {
    const scope = await this.scope(caller, projectId);
    await this.row(caller, scope, id);
    await this.ops.resources.delete(id);
  }

  /** The key named `name` the caller may use in the project, if any (instances and clusters name their key). */
  async named(caller: Caller, projectId: number, name: string): Promise<ResourceRow | undefined> {
    const row = await this.ops.resources.getByName('ssh_key', { clientId: caller.clientId, projectId, regionId: NO_REGION }, name);
    return row && visibleTo(row, caller) ? row : undefined;
  }

  /** The keys among `ids` the caller may not use in the project (unknown, or another user's unshared key). */
  async missing(caller: Caller, projectId: number, ids: string[]): Promise<string[]> {
    const scope = { clientId: caller.clientId, projectId, regionId: NO_REGION };
    const found = await Promise.all(ids.map((id) => this.ops.resources.get('ssh_key', scope, id)));
    return ids.filter((_, i) => !found[i] || !visibleTo(found[i]!, caller));
  }

  private async scope(caller: Caller, projectId: number): Promise<Scope> {
    await this.ops.projects.requireActive(caller.clientId, projectId);
    return { clientId: caller.clientId, projectId, regionId: NO_REGION };
  }

  private async row(caller: Caller, scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.ops.resources.get('ssh_key', scope, id);
    if (!row || !visibleTo(row, caller)) throw notFound(`SSH key ${id}`);
    return row;
  }
}

function visibleTo(row: ResourceRow, caller: Caller): boolean {
  const attrs = attrsOf<KeyAttrs>(row);
  return attrs.shared_in_project || Number(attrs.user_id) === caller.userId;
}

function present(row: ResourceRow): SshKey {
  const attrs = attrsOf<KeyAttrs>(row);
  return {
    id: row.id,
    name: row.name,
    public_key: attrs.public_key,
    fingerprint: attrs.fingerprint,
    shared_in_project: attrs.shared_in_project,
    state: 'ACTIVE',
    project_id: Number(row.project_id),
    created_at: zonedTime(row.created_at),
  };
}
