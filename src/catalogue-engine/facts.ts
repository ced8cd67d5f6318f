// Facts about the reference API the catalogue does not state and no rule derives. Each entry says why.
// Keep this small: a fact belongs here only when the paths and schemas cannot tell it.

/**
 * `created_resources` keys whose name is not a form of the collection word. The official client reads
 * these keys (its `*_and_poll` helpers), so they must be exact.
 */
export const CREATED_KEY_FACTS: Readonly<Record<string, string>> = {
  // The provider's key is misspelled; the client reads it as spelled.
  'cloud/l7policies/{}/{}': 'l7polices',
  'cloud/l7policies/{}/{}/{}/rules': 'l7rules',
  // Reserved fixed IPs are ports.
  'cloud/reservedfixedips/{}/{}': 'ports',
  // Kubernetes pools, inference deployments and registries have product-prefixed keys.
  'cloud/k8s/clusters/{}/{}/{}/pools': 'k8s_pools',
  'cloud/inference/{}/deployments': 'inference_instances',
  'cloud/registries/{}/{}': 'registry_registries',
  'cloud/registries/{}/{}/{}/users': 'registry_users',
  'cloud/dbaas/postgres/clusters/{}/{}': 'postgresql_clusters',
  // Images uploaded from a URL, and bare-metal servers, are images and instances.
  'cloud/downloadimage/{}/{}': 'images',
  'cloud/bminstances/{}/{}': 'instances',
  'cloud/lbpools/{}/{}/{}/member': 'members',
};

/**
 * Flat paths that address items of a nested collection without naming the parent: a security group's
 * rules are created under `/security_groups/{p}/{r}/{group_id}/rules` and changed at
 * `/securitygrouprules/{p}/{r}/{rule_id}`.
 */
export const RESOURCE_ALIASES: Readonly<Record<string, string>> = {};
