// The cloud routes against the reference, from the OpenAPI document the server publishes: every route
// the official client calls for a modelled resource is served by the cloud product; every modelled route
// is a reference operation; no response carries a field the reference does not declare; every string a
// client sends has a maximum length.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogue } from '../platform/catalogue/index.js';
import { operationKey } from '../platform/http.js';
import { createTestApp, type TestApp } from '../../tests/support/app.js';

type Node = Record<string, any>;
type Operation = Node & { operationId: string; parameters?: Node[]; requestBody?: Node; responses: Record<string, Node> };

/** The routes the official Python client (0.53) calls for the resources this product models. */
const CLIENT_ROUTES = `
POST /cloud/v1/projects|GET /cloud/v1/projects|GET /cloud/v1/projects/{project_id}|PATCH /cloud/v1/projects/{project_id}|DELETE /cloud/v1/projects/{project_id}
GET /cloud/v1/tasks|GET /cloud/v1/tasks/{task_id}|POST /cloud/v1/tasks/{task_id}/acknowledge|POST /cloud/v1/tasks/acknowledge_all
GET /cloud/v1/regions|GET /cloud/v1/regions/{region_id}
GET /cloud/v2/client_quotas|GET /cloud/v2/regional_quotas/{client_id}/{region_id}|GET /cloud/v2/global_quotas/{client_id}
POST /cloud/v2/instances/{p}/{r}|GET /cloud/v1/instances/{p}/{r}|GET /cloud/v1/instances/{p}/{r}/{id}|PATCH /cloud/v1/instances/{p}/{r}/{id}|DELETE /cloud/v1/instances/{p}/{r}/{id}
POST /cloud/v2/instances/{p}/{r}/{id}/action|POST /cloud/v1/instances/{p}/{r}/{id}/changeflavor|GET /cloud/v1/instances/{p}/{r}/{id}/get_console
POST /cloud/v1/instances/{p}/{r}/{id}/metrics|POST /cloud/v1/instances/{p}/{r}/{id}/addsecuritygroup|POST /cloud/v1/instances/{p}/{r}/{id}/delsecuritygroup
POST /cloud/v1/ports/{p}/{r}/{id}/enable_port_security|POST /cloud/v1/ports/{p}/{r}/{id}/disable_port_security
GET /cloud/v1/flavors/{p}/{r}|GET /cloud/v1/instances/{p}/{r}/{id}/interfaces|POST /cloud/v1/instances/{p}/{r}/{id}/attach_interface|POST /cloud/v1/instances/{p}/{r}/{id}/detach_interface
GET /cloud/v1/images/{p}/{r}|POST /cloud/v1/images/{p}/{r}|GET /cloud/v1/images/{p}/{r}/{id}|PATCH /cloud/v1/images/{p}/{r}/{id}|DELETE /cloud/v1/images/{p}/{r}/{id}|POST /cloud/v1/downloadimage/{p}/{r}
POST /cloud/v1/networks/{p}/{r}|GET /cloud/v1/networks/{p}/{r}|GET /cloud/v1/networks/{p}/{r}/{id}|PATCH /cloud/v1/networks/{p}/{r}/{id}|DELETE /cloud/v1/networks/{p}/{r}/{id}
POST /cloud/v1/subnets/{p}/{r}|GET /cloud/v1/subnets/{p}/{r}|GET /cloud/v1/subnets/{p}/{r}/{id}|PATCH /cloud/v1/subnets/{p}/{r}/{id}|DELETE /cloud/v1/subnets/{p}/{r}/{id}
POST /cloud/v1/volumes/{p}/{r}|GET /cloud/v1/volumes/{p}/{r}|GET /cloud/v1/volumes/{p}/{r}/{id}|PATCH /cloud/v1/volumes/{p}/{r}/{id}|DELETE /cloud/v1/volumes/{p}/{r}/{id}
POST /cloud/v2/volumes/{p}/{r}/{id}/attach|POST /cloud/v2/volumes/{p}/{r}/{id}/detach|POST /cloud/v1/volumes/{p}/{r}/{id}/extend|POST /cloud/v1/volumes/{p}/{r}/{id}/retype|POST /cloud/v1/volumes/{p}/{r}/{id}/revert
POST /cloud/v1/snapshots/{p}/{r}|GET /cloud/v1/snapshots/{p}/{r}|GET /cloud/v1/snapshots/{p}/{r}/{id}|PATCH /cloud/v1/snapshots/{p}/{r}/{id}|DELETE /cloud/v1/snapshots/{p}/{r}/{id}
POST /cloud/v1/floatingips/{p}/{r}|GET /cloud/v1/floatingips/{p}/{r}|GET /cloud/v1/floatingips/{p}/{r}/{id}|PATCH /cloud/v2/floatingips/{p}/{r}/{id}|DELETE /cloud/v1/floatingips/{p}/{r}/{id}
POST /cloud/v1/floatingips/{p}/{r}/{id}/assign|POST /cloud/v1/floatingips/{p}/{r}/{id}/unassign
POST /cloud/v2/security_groups/{p}/{r}|PATCH /cloud/v2/security_groups/{p}/{r}/{id}|GET /cloud/v1/securitygroups/{p}/{r}|GET /cloud/v1/securitygroups/{p}/{r}/{id}|DELETE /cloud/v1/securitygroups/{p}/{r}/{id}
POST /cloud/v1/securitygroups/{p}/{r}/{id}/copy|POST /cloud/v1/securitygroups/{p}/{r}/{id}/revert
POST /cloud/v2/security_groups/{p}/{r}/{id}/rules|DELETE /cloud/v2/security_groups/{p}/{r}/{id}/rules/{id}|PUT /cloud/v1/securitygrouprules/{p}/{r}/{id}
POST /cloud/v1/ssh_keys/{p}|GET /cloud/v1/ssh_keys/{p}|GET /cloud/v1/ssh_keys/{p}/{id}|PATCH /cloud/v1/ssh_keys/{p}/{id}|DELETE /cloud/v1/ssh_keys/{p}/{id}
GET /cloud/v2/k8s/{p}/{r}/create_versions|GET /cloud/v1/k8s/{p}/{r}/flavors
POST /cloud/v2/k8s/clusters/{p}/{r}|GET /cloud/v2/k8s/clusters/{p}/{r}|GET /cloud/v2/k8s/clusters/{p}/{r}/{n}|PATCH /cloud/v2/k8s/clusters/{p}/{r}/{n}|DELETE /cloud/v2/k8s/clusters/{p}/{r}/{n}
GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/certificates|GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/upgrade_versions|POST /cloud/v2/k8s/clusters/{p}/{r}/{n}/upgrade|GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/config
GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/instances|DELETE /cloud/v2/k8s/clusters/{p}/{r}/{n}/instances/{id}
POST /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools|GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools|GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}|PATCH /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}
DELETE /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}|POST /cloud/v2/k8s/clusters/{p}/{r}/pools/check_limits|POST /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}/resize
GET /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}/instances|DELETE /cloud/v2/k8s/clusters/{p}/{r}/{n}/pools/{m}/instances/{id}
POST /cloud/v1/loadbalancers/{p}/{r}|GET /cloud/v1/loadbalancers/{p}/{r}|GET /cloud/v1/loadbalancers/{p}/{r}/{id}|PATCH /cloud/v1/loadbalancers/{p}/{r}/{id}|DELETE /cloud/v1/loadbalancers/{p}/{r}/{id}
POST /cloud/v1/loadbalancers/{p}/{r}/{id}/failover|POST /cloud/v1/loadbalancers/{p}/{r}/{id}/resize|POST /cloud/v1/loadbalancers/{p}/{r}/{id}/metrics
GET /cloud/v1/loadbalancers/{p}/{r}/status|GET /cloud/v1/loadbalancers/{p}/{r}/{id}/status|GET /cloud/v1/lbflavors/{p}/{r}
POST /cloud/v1/lblisteners/{p}/{r}|GET /cloud/v1/lblisteners/{p}/{r}|GET /cloud/v1/lblisteners/{p}/{r}/{id}|PATCH /cloud/v2/lblisteners/{p}/{r}/{id}|DELETE /cloud/v1/lblisteners/{p}/{r}/{id}
POST /cloud/v1/lbpools/{p}/{r}|GET /cloud/v1/lbpools/{p}/{r}|GET /cloud/v1/lbpools/{p}/{r}/{id}|PATCH /cloud/v2/lbpools/{p}/{r}/{id}|DELETE /cloud/v1/lbpools/{p}/{r}/{id}
POST /cloud/v1/lbpools/{p}/{r}/{id}/healthmonitor|DELETE /cloud/v1/lbpools/{p}/{r}/{id}/healthmonitor|POST /cloud/v1/lbpools/{p}/{r}/{id}/member|DELETE /cloud/v1/lbpools/{p}/{r}/{id}/member/{m}
POST /cloud/v1/l7policies/{p}/{r}|GET /cloud/v1/l7policies/{p}/{r}|GET /cloud/v1/l7policies/{p}/{r}/{id}|PATCH /cloud/v1/l7policies/{p}/{r}/{id}|DELETE /cloud/v1/l7policies/{p}/{r}/{id}
POST /cloud/v1/reserved_fixed_ips/{p}/{r}|GET /cloud/v1/reserved_fixed_ips/{p}/{r}|GET /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}|PATCH /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}|DELETE /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}
GET /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}/available_devices|GET /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}/connected_devices|PATCH /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}/connected_devices|PUT /cloud/v1/reserved_fixed_ips/{p}/{r}/{id}/connected_devices
POST /cloud/v1/routers/{p}/{r}|GET /cloud/v1/routers/{p}/{r}|GET /cloud/v1/routers/{p}/{r}/{id}|PATCH /cloud/v2/routers/{p}/{r}/{id}|DELETE /cloud/v1/routers/{p}/{r}/{id}
POST /cloud/v1/routers/{p}/{r}/{id}/attach|POST /cloud/v1/routers/{p}/{r}/{id}/detach
POST /cloud/v1/file_shares/{p}/{r}|GET /cloud/v1/file_shares/{p}/{r}|GET /cloud/v1/file_shares/{p}/{r}/{id}|PATCH /cloud/v3/file_shares/{p}/{r}/{id}|DELETE /cloud/v1/file_shares/{p}/{r}/{id}
POST /cloud/v1/file_shares/{p}/{r}/{id}/extend|POST /cloud/v1/file_shares/{p}/{r}/{id}/access_rule|GET /cloud/v1/file_shares/{p}/{r}/{id}/access_rule|DELETE /cloud/v1/file_shares/{p}/{r}/{id}/access_rule/{m}
POST /cloud/v1/servergroups/{p}/{r}|GET /cloud/v1/servergroups/{p}/{r}|GET /cloud/v1/servergroups/{p}/{r}/{id}|DELETE /cloud/v1/servergroups/{p}/{r}/{id}
POST /cloud/v1/instances/{p}/{r}/{id}/put_into_servergroup|POST /cloud/v1/instances/{p}/{r}/{id}/remove_from_servergroup
POST /cloud/v1/l7policies/{p}/{r}/{id}/rules|GET /cloud/v1/l7policies/{p}/{r}/{id}/rules|GET /cloud/v1/l7policies/{p}/{r}/{id}/rules/{m}|PUT /cloud/v1/l7policies/{p}/{r}/{id}/rules/{m}|DELETE /cloud/v1/l7policies/{p}/{r}/{id}/rules/{m}
`
  .trim()
  .split(/[|\n]/)
  .map((s) => s.trim());

let t: TestApp;
let operations: { method: string; path: string; op: Operation }[];
beforeAll(async () => {
  t = await createTestApp();
  const doc = (await t.request('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
});
afterAll(async () => t.close());

const catalogue = readCatalogue();
const components = catalogue.components.schemas as Record<string, Node>;
const resolve = (node: Node): Node => (node && typeof node.$ref === 'string' ? resolve(components[node.$ref.split('/').pop()!]) : node);
const variants = (node: Node | undefined): Node[] => {
  if (!node || typeof node !== 'object') return [];
  const n = resolve(node);
  const branches = n.anyOf ?? n.oneOf ?? n.allOf;
  return branches ? (branches as Node[]).flatMap(variants) : [n];
};
const cloudOps = () => operations.filter((o) => o.op.operationId?.startsWith('cloud.'));

/** Properties ours sends that no variant of theirs declares (where theirs is an object with declared properties). */
function undeclared(ours: Node, theirs: Node[], path: string, out: string[]): void {
  const mine = variants(ours).filter((v) => v.type !== 'null');
  const objects = theirs.flatMap(variants).filter((v) => v.type !== 'null');
  for (const node of mine) {
    if (node.type === 'array' && node.items)
      undeclared(
        node.items,
        objects.filter((o) => o.items).map((o) => o.items),
        `${path}[]`,
        out,
      );
    if (!node.properties) continue;
    const declared = objects.filter((o) => o.properties || o.additionalProperties);
    if (declared.length === 0 || declared.some((o) => o.additionalProperties && !o.properties)) continue;
    for (const [key, child] of Object.entries(node.properties as Record<string, Node>)) {
      const matches = declared.filter((o) => o.properties?.[key]).map((o) => o.properties[key]);
      if (matches.length === 0 && !declared.some((o) => o.additionalProperties)) out.push(`${path}.${key}`);
      else undeclared(child, matches, `${path}.${key}`, out);
    }
  }
}

/** Strings a client sends with no maximum length (nor a fixed set of values). */
function unbounded(node: Node | undefined, path: string, out: string[]): void {
  if (!node || typeof node !== 'object') return;
  if (node.type === 'string' && node.maxLength === undefined && node.enum === undefined && node.const === undefined) out.push(path);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const branch of node[key] ?? []) unbounded(branch, path, out);
  if (node.items) unbounded(node.items, `${path}[]`, out);
  if (node.propertyNames) unbounded(node.propertyNames, `${path}{key}`, out);
  if (typeof node.additionalProperties === 'object') unbounded(node.additionalProperties, `${path}{}`, out);
  for (const [key, child] of Object.entries((node.patternProperties ?? {}) as Record<string, Node>)) unbounded(child, `${path}{${key}}`, out);
  for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Node>)) unbounded(child, `${path}.${key}`, out);
}

describe('the cloud routes against the reference', () => {
  it('serves every route the official client calls for a modelled resource in the cloud product', () => {
    const served = new Map(operations.map((o) => [operationKey(o.method, o.path), o.op.operationId]));
    const missing = CLIENT_ROUTES.map((line) => line.split(' ')).filter(([method, path]) => !served.get(operationKey(method, path))?.startsWith('cloud.'));
    expect(missing).toEqual([]);
    expect(CLIENT_ROUTES.length).toBeGreaterThan(100);
  });

  it('keeps the method and path of a reference operation on every modelled route', () => {
    const reference = new Set(catalogue.operations.map((o) => operationKey(o.method, o.path)));
    // Older official clients update a project with PUT (docs/cloud.md, "Where we differ").
    const olderClients = new Set([operationKey('PUT', '/cloud/v1/projects/{project_id}')]);
    const strays = cloudOps()
      .filter((o) => !reference.has(operationKey(o.method, o.path)) && !olderClients.has(operationKey(o.method, o.path)))
      .map((o) => `${o.method} ${o.path}`);
    expect(strays).toEqual([]);
  });

  it('answers no field the reference does not declare (every modelled operation, not only cloud)', () => {
    const reference = new Map(catalogue.operations.map((o) => [operationKey(o.method, o.path), o]));
    const extra: string[] = [];
    for (const { method, path, op } of operations.filter((o) => o.op['x-edgeplane-implementation'] === 'modelled')) {
      const theirs = reference.get(operationKey(method, path));
      if (!theirs) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const ours = response.content?.['application/json']?.schema;
        const declared = theirs.responses[status]?.content['application/json'];
        if (ours && declared) undeclared(ours, [declared as Node], `${method} ${path} ${status}`, extra);
      }
    }
    expect(extra).toEqual([]);
  });

  it('bounds every string of every body, query and path parameter', () => {
    const found: string[] = [];
    for (const { method, path, op } of cloudOps()) {
      unbounded(op.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`, found);
      for (const param of op.parameters ?? []) unbounded(param.schema, `${method} ${path} ${param.in}.${param.name}`, found);
    }
    expect(found).toEqual([]);
  });
});
