// The value sets of load balancers, listeners, pools, health monitors and L7 policies, as the reference
// declares them.

export const PROVISIONING_STATUSES = ['ACTIVE', 'DELETED', 'ERROR', 'PENDING_CREATE', 'PENDING_DELETE', 'PENDING_UPDATE'] as const;
export type ProvisioningStatus = (typeof PROVISIONING_STATUSES)[number];
export const OPERATING_STATUSES = ['DEGRADED', 'DRAINING', 'ERROR', 'NO_MONITOR', 'OFFLINE', 'ONLINE'] as const;
export type OperatingStatus = (typeof OPERATING_STATUSES)[number];

export const LISTENER_PROTOCOLS = ['HTTP', 'HTTPS', 'PROMETHEUS', 'TCP', 'TERMINATED_HTTPS', 'UDP'] as const;
export type ListenerProtocol = (typeof LISTENER_PROTOCOLS)[number];
export const POOL_PROTOCOLS = ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP', 'UDP'] as const;
export type PoolProtocol = (typeof POOL_PROTOCOLS)[number];
export const LB_ALGORITHMS = ['LEAST_CONNECTIONS', 'ROUND_ROBIN', 'SOURCE_IP'] as const;
export const MONITOR_TYPES = ['HTTP', 'HTTPS', 'K8S', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT'] as const;
export type MonitorType = (typeof MONITOR_TYPES)[number];
export const HTTP_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const;
export const PERSISTENCE_TYPES = ['APP_COOKIE', 'HTTP_COOKIE', 'SOURCE_IP'] as const;
export const CONNECTIVITY = ['L2', 'L3'] as const;
export const IP_FAMILIES = ['dual', 'ipv4', 'ipv6'] as const;

export const POLICY_ACTIONS = ['REDIRECT_PREFIX', 'REDIRECT_TO_POOL', 'REDIRECT_TO_URL', 'REJECT'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];
export const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;
export const COMPARE_TYPES = ['CONTAINS', 'ENDS_WITH', 'EQUAL_TO', 'REGEX', 'STARTS_WITH'] as const;
export const L7_RULE_TYPES = ['COOKIE', 'FILE_TYPE', 'HEADER', 'HOST_NAME', 'PATH', 'SSL_CONN_HAS_CERT', 'SSL_DN_FIELD', 'SSL_VERIFY_RESULT'] as const;
export type L7RuleType = (typeof L7_RULE_TYPES)[number];
