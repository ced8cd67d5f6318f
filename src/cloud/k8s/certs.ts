// The credentials of a Kubernetes cluster: a CA of its own and an administrator's client certificate
// signed by it (real X.509, EC P-256, through sshpk), and the kubeconfig that uses them.
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';

export interface ClusterCredentials {
  ca_certificate: string;
  ca_key: string;
  client_certificate: string;
  client_key: string;
  created_at: number;
  expires_at: number;
}

const YEAR_MS = 365 * 86_400_000;

function ecKey(): { pem: string; key: sshpk.PrivateKey } {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { pem, key: sshpk.parsePrivateKey(pem, 'pem') };
}

/** New credentials valid for a year from `now` (server clock). */
export function issueCredentials(clusterName: string, now: number): ClusterCredentials {
  const validFrom = new Date(now);
  const validUntil = new Date(now + YEAR_MS);
  const ca = ecKey();
  const caId = sshpk.identityFromDN(`CN=${clusterName}-ca`);
  const caCert = sshpk.createSelfSignedCertificate(caId, ca.key, { validFrom, validUntil, purposes: ['ca'] });
  const client = ecKey();
  const clientCert = sshpk.createCertificate(sshpk.identityFromDN('CN=kubernetes-admin, O=system:masters'), client.key, caId, ca.key, {
    validFrom,
    validUntil,
    purposes: ['clientAuth'],
  });
  return {
    ca_certificate: caCert.toBuffer('pem').toString(),
    ca_key: ca.pem,
    client_certificate: clientCert.toBuffer('pem').toString(),
    client_key: client.pem,
    created_at: now,
    expires_at: now + YEAR_MS,
  };
}

/** The API server address of a cluster (a documentation address: nothing listens there). */
export function apiHost(clusterId: string, regionSlug: string): string {
  return `https://${clusterId.slice(0, 8)}.k8s.${regionSlug}.cloud.example:6443`;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

export function kubeconfig(clusterName: string, host: string, credentials: ClusterCredentials): string {
  const user = `${clusterName}-admin`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${clusterName}`,
    '  cluster:',
    `    server: ${host}`,
    `    certificate-authority-data: ${b64(credentials.ca_certificate)}`,
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate-data: ${b64(credentials.client_certificate)}`,
    `    client-key-data: ${b64(credentials.client_key)}`,
    'contexts:',
    `- name: ${user}@${clusterName}`,
    '  context:',
    `    cluster: ${clusterName}`,
    `    user: ${user}`,
    `current-context: ${user}@${clusterName}`,
    '',
  ].join('\n');
}

export { b64 as base64 };
