// L7 policies and rules: what an HTTP or TERMINATED_HTTPS listener does with the requests all of whose
// rules match (redirect to a URL, a prefix or a pool of the same balancer, or reject), evaluated by
// position. Every change is a task that holds the balancer.
import { Static } from 'typebox';
import { notFound } from '../../platform/errors.js';
import { badInput, bodyField } from '../common/errors.js';
import { pageOf } from '../common/filters.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { TaskIds } from '../common/regional-records.js';
import { attrsOf, type ResourceRow, type Scope } from '../common/resource-store.js';
import { Balancers } from './balancers.js';
import { isRedirectUrl, L7_LISTENERS, poolProtocolMisfit, ruleMisfits } from './checks.js';
import type { PolicyAction } from './enums.js';
import type { PolicyCreateBody, PolicySchema, PolicyUpdateBody, RuleCreateBody, RuleReplaceBody, RuleSchema } from './l7-schemas.js';
import { pendingChild, type ListenerAttrs, type PoolAttrs } from './records.js';

type Policy = Static<typeof PolicySchema>;
type Rule = Static<typeof RuleSchema>;
type PolicyBody = Static<typeof PolicyUpdateBody>;

export interface PolicyAttrs {
  action: PolicyAction;
  position: number;
  redirect_http_code: number | null;
  redirect_pool_id: string | null;
  redirect_prefix: string | null;
  redirect_url: string | null;
  tags: string[];
}

export interface RuleAttrs {
  type: string;
  compare_type: string;
  value: string;
  key: string | null;
  invert: boolean;
  tags: string[];
}

/** The actions that take each action-specific field. */
const ACTION_FIELDS = {
  redirect_url: ['REDIRECT_TO_URL'],
  redirect_prefix: ['REDIRECT_PREFIX'],
  redirect_pool_id: ['REDIRECT_TO_POOL'],
  redirect_http_code: ['REDIRECT_TO_URL', 'REDIRECT_PREFIX'],
} as const satisfies Record<string, readonly PolicyAction[]>;

/** The field each action cannot do without. */
const REQUIRED: Record<PolicyAction, 'redirect_url' | 'redirect_prefix' | 'redirect_pool_id' | null> = {
  REDIRECT_TO_URL: 'redirect_url',
  REDIRECT_PREFIX: 'redirect_prefix',
  REDIRECT_TO_POOL: 'redirect_pool_id',
  REJECT: null,
};

export class L7Service {
  constructor(
    private readonly ops: Operations,
    private readonly balancers: Balancers,
  ) {}

  async createPolicy(caller: Caller, projectId: number, regionId: number, body: Static<typeof PolicyCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const listener = await this.ops.resources.get('lb_listener', scope, body.listener_id);
    if (!listener) throw badInput([bodyField(['listener_id'], `listener ${body.listener_id} does not exist in project ${projectId}, region ${regionId}`)]);
    const protocol = attrsOf<ListenerAttrs>(listener).protocol;
    if (!L7_LISTENERS.includes(protocol))
      throw badInput([bodyField(['listener_id'], `L7 policies act on HTTP and TERMINATED_HTTPS listeners; listener ${listener.id} is ${protocol}`)]);
    const lb = await this.balancers.forChange(scope, listener.parent_id!);
    const siblings = await this.ops.resources.children(listener.id, 'l7policy');
    const attrs = await this.policyAttrs(scope, listener, body, siblings.length + 1);
    const row = pendingChild(scope, 'l7policy', body.name ?? '', attrs, this.ops.clock.now(), { parent_id: listener.id });
    return this.balancers.startChildTask(caller, scope, lb, 'create_l7policy', { l7policy_id: row.id }, row.id, (store, taskId) =>
      Balancers.insertHeld(store, [row], taskId),
    );
  }

  /**
   * The action's fields, checked: each action takes its own (a redirect to an http(s) URL, a prefix or a
   * pool of the balancer the listener can send to). A position past the last (`last`) is the last.
   */
  private async policyAttrs(scope: Scope, listener: ResourceRow, body: PolicyBody, last: number): Promise<PolicyAttrs> {
    const misplaced = (Object.keys(ACTION_FIELDS) as (keyof typeof ACTION_FIELDS)[]).filter(
      (f) => body[f] !== undefined && !(ACTION_FIELDS[f] as readonly PolicyAction[]).includes(body.action),
    );
    if (misplaced.length > 0) throw badInput(misplaced.map((f) => bodyField([f], `a ${body.action} policy takes no ${f}`)));
    const attrs: PolicyAttrs = {
      action: body.action,
      position: Math.min(body.position ?? last, last),
      redirect_http_code: null,
      redirect_pool_id: null,
      redirect_prefix: null,
      redirect_url: null,
      tags: body.tags ?? [],
    };
    const required = REQUIRED[body.action];
    if (required && body[required] === undefined) throw badInput([bodyField([required], `a ${body.action} policy needs ${required}`, 'missing')]);
    if (body.action === 'REDIRECT_TO_URL' || body.action === 'REDIRECT_PREFIX') {
      const field = required as 'redirect_url' | 'redirect_prefix';
      if (!isRedirectUrl(body[field]!)) throw badInput([bodyField([field], `${body[field]} is not an absolute http or https URL`)]);
      Object.assign(attrs, { [field]: body[field], redirect_http_code: body.redirect_http_code ?? 302 });
    }
    if (body.action === 'REDIRECT_TO_POOL') attrs.redirect_pool_id = await this.redirectPool(scope, listener, body.redirect_pool_id!);
    return attrs;
  }

  /** A pool of the listener's balancer, of a protocol the listener sends traffic to. */
  private async redirectPool(scope: Scope, listener: ResourceRow, poolId: string): Promise<string> {
    const pool = await this.ops.resources.get('lb_pool', scope, poolId);
    if (!pool || pool.parent_id !== listener.parent_id)
      throw badInput([bodyField(['redirect_pool_id'], `pool ${poolId} is not a pool of load balancer ${listener.parent_id}`)]);
    const misfit = poolProtocolMisfit(attrsOf<ListenerAttrs>(listener).protocol, attrsOf<PoolAttrs>(pool).protocol, ['redirect_pool_id']);
    if (misfit.length > 0) throw badInput(misfit);
    return pool.id;
  }

  async policies(caller: Caller, projectId: number, regionId: number, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const rows = await this.ops.resources.all('l7policy', scope);
    const sorted = rows.sort(
      (a, b) => (a.parent_id ?? '').localeCompare(b.parent_id ?? '') || attrsOf<PolicyAttrs>(a).position - attrsOf<PolicyAttrs>(b).position,
    );
    const out = pageOf(sorted, page);
    return { count: out.count, results: await Promise.all(out.results.map((r) => this.presentPolicy(r))) };
  }

  async policy(caller: Caller, projectId: number, regionId: number, id: string): Promise<Policy> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presentPolicy(await this.balancers.child(scope, 'l7policy', 'L7 policy', id));
  }

  /** Replaces the action and its fields (and name, position, tags when given), through update_l7policy. */
  async updatePolicy(caller: Caller, projectId: number, regionId: number, id: string, body: PolicyBody): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const policy = await this.balancers.child(scope, 'l7policy', 'L7 policy', id);
    const listener = (await this.ops.resources.byId(policy.parent_id!))!;
    const lb = await this.balancers.forChange(scope, listener.parent_id!);
    const current = attrsOf<PolicyAttrs>(policy);
    const siblings = await this.ops.resources.children(listener.id, 'l7policy');
    const attrs = await this.policyAttrs(
      scope,
      listener,
      { ...body, position: body.position ?? current.position, tags: body.tags ?? current.tags },
      siblings.length,
    );
    const name = body.name ?? policy.name;
    if (name === policy.name && JSON.stringify(attrs) === JSON.stringify(current)) return { tasks: [], id };
    return this.balancers.startChildTask(caller, scope, lb, 'update_l7policy', { l7policy_id: id, name, attrs }, id, (store, taskId) =>
      store.update(id, { status: 'PENDING_UPDATE', task_id: taskId }),
    );
  }

  async deletePolicy(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const policy = await this.balancers.child(scope, 'l7policy', 'L7 policy', id);
    const lb = await this.balancers.forChange(scope, (await this.ops.resources.byId(policy.parent_id!))!.parent_id!);
    return this.balancers.startChildTask(caller, scope, lb, 'delete_l7policy', { l7policy_id: id }, id, (store, taskId) =>
      store.update(id, { status: 'PENDING_DELETE', task_id: taskId }),
    );
  }

  async createRule(caller: Caller, projectId: number, regionId: number, policyId: string, body: Static<typeof RuleCreateBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const policy = await this.balancers.child(scope, 'l7policy', 'L7 policy', policyId);
    const misfits = ruleMisfits(body, []);
    if (misfits.length > 0) throw badInput(misfits);
    const lb = await this.lbOf(scope, policy);
    const attrs: RuleAttrs = {
      type: body.type,
      compare_type: body.compare_type,
      value: body.value,
      key: body.key ?? null,
      invert: body.invert ?? false,
      tags: body.tags ?? [],
    };
    const row = pendingChild(scope, 'l7rule', `${body.type.toLowerCase()}-rule`, attrs, this.ops.clock.now(), { parent_id: policyId });
    return this.balancers.startChildTask(caller, scope, lb, 'create_l7rule', { l7rule_id: row.id, l7policy_id: policyId }, row.id, (store, taskId) =>
      Balancers.insertHeld(store, [row], taskId),
    );
  }

  async rules(caller: Caller, projectId: number, regionId: number, policyId: string, page: { limit: number; offset: number }) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    await this.balancers.child(scope, 'l7policy', 'L7 policy', policyId);
    const out = pageOf(await this.ops.resources.children(policyId, 'l7rule'), page);
    return { count: out.count, results: out.results.map((r) => this.presentRule(r)) };
  }

  async rule(caller: Caller, projectId: number, regionId: number, policyId: string, ruleId: string): Promise<Rule> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    return this.presentRule(await this.ruleOf(scope, policyId, ruleId));
  }

  /** PUT: the fields given replace the rule's, through put_l7rule. */
  async replaceRule(
    caller: Caller,
    projectId: number,
    regionId: number,
    policyId: string,
    ruleId: string,
    body: Static<typeof RuleReplaceBody>,
  ): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    const rule = await this.ruleOf(scope, policyId, ruleId);
    const current = attrsOf<RuleAttrs>(rule);
    const attrs: RuleAttrs = { ...current, ...definedOf(body) };
    const misfits = ruleMisfits(attrs, []);
    if (misfits.length > 0) throw badInput(misfits);
    const lb = await this.lbOf(scope, (await this.ops.resources.byId(policyId))!);
    return this.balancers.startChildTask(caller, scope, lb, 'put_l7rule', { l7rule_id: ruleId, attrs }, ruleId, (store, taskId) =>
      store.update(ruleId, { status: 'PENDING_UPDATE', task_id: taskId }),
    );
  }

  async deleteRule(caller: Caller, projectId: number, regionId: number, policyId: string, ruleId: string): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'network');
    await this.ruleOf(scope, policyId, ruleId);
    const lb = await this.lbOf(scope, (await this.ops.resources.byId(policyId))!);
    return this.balancers.startChildTask(caller, scope, lb, 'delete_l7rule', { l7rule_id: ruleId }, ruleId, (store, taskId) =>
      store.update(ruleId, { status: 'PENDING_DELETE', task_id: taskId }),
    );
  }

  private async ruleOf(scope: Scope, policyId: string, ruleId: string): Promise<ResourceRow> {
    await this.balancers.child(scope, 'l7policy', 'L7 policy', policyId);
    const rule = await this.ops.resources.get('l7rule', scope, ruleId);
    if (!rule || rule.parent_id !== policyId) throw notFound(`L7 rule ${ruleId} of policy ${policyId}`);
    return rule;
  }

  private async lbOf(scope: Scope, policy: ResourceRow): Promise<ResourceRow> {
    const listener = (await this.ops.resources.byId(policy.parent_id!))!;
    return this.balancers.forChange(scope, listener.parent_id!);
  }

  async presentPolicy(row: ResourceRow): Promise<Policy> {
    const a = attrsOf<PolicyAttrs>(row);
    const rules = await this.ops.resources.children(row.id, 'l7rule');
    const placed = { project_id: Number(row.project_id), region_id: Number(row.region_id), region: this.ops.regions.name(Number(row.region_id)) };
    return {
      id: row.id,
      name: row.name,
      listener_id: row.parent_id!,
      action: a.action,
      position: a.position,
      redirect_http_code: a.redirect_http_code,
      redirect_pool_id: a.redirect_pool_id,
      redirect_prefix: a.redirect_prefix,
      redirect_url: a.redirect_url,
      tags: a.tags,
      rules: rules.map((r) => ({ id: r.id, ...placed })),
      ...placed,
      provisioning_status: row.status as Policy['provisioning_status'],
      operating_status: row.status === 'ACTIVE' ? 'ONLINE' : 'OFFLINE',
      task_id: row.task_id,
    };
  }

  presentRule(row: ResourceRow): Rule {
    const a = attrsOf<RuleAttrs>(row);
    return {
      id: row.id,
      type: a.type as Rule['type'],
      compare_type: a.compare_type as Rule['compare_type'],
      value: a.value,
      key: a.key,
      invert: a.invert,
      tags: a.tags,
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      provisioning_status: row.status as Rule['provisioning_status'],
      operating_status: row.status === 'ACTIVE' ? 'ONLINE' : 'OFFLINE',
      task_id: row.task_id,
    };
  }
}

/** The fields of a partial body that were given. */
function definedOf<T extends object>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}
