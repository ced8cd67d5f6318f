// Uploaded certificates and keys, really read (node's X509 support): a chain of PEM certificates, a
// private key that must belong to the first certificate, the validity period, and the names shown in
// the certificate's answer (issuer, subject CN, subject alternative names).
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const MAX_CHAIN = 10;

export type Parsed<T> = { value: T } | { problem: string };

/** The certificates of a PEM text, leaf first. */
export function parseChain(pem: string): Parsed<X509Certificate[]> {
  const blocks = pem.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return { problem: 'Not a PEM certificate: expected -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----' };
  if (blocks.length > MAX_CHAIN) return { problem: `A chain holds at most ${MAX_CHAIN} certificates` };
  const certificates: X509Certificate[] = [];
  for (const [i, block] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(block));
    } catch {
      return {
        problem:
          blocks.length === 1
            ? 'The certificate cannot be read: its PEM data is damaged'
            : `Certificate ${i + 1} of the chain cannot be read: its PEM data is damaged`,
      };
    }
  }
  return { value: certificates };
}

export function parseKey(pem: string): Parsed<KeyObject> {
  // PKCS#8 "ENCRYPTED PRIVATE KEY" blocks, and traditional ones with "Proc-Type: 4,ENCRYPTED".
  if (pem.includes('ENCRYPTED')) {
    return { problem: 'The private key is encrypted: upload it without a passphrase' };
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem))
    return { problem: 'Not a PEM private key: expected -----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----' };
  try {
    return { value: createPrivateKey({ key: pem, format: 'pem' }) };
  } catch {
    return { problem: 'The private key cannot be read: its PEM data is damaged' };
  }
}

/** Whether the key is the private half of the certificate's public key. */
export function keyMatches(certificate: X509Certificate, key: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(key);
  } catch {
    return false;
  }
}

export interface CertificateFacts {
  issuer: string;
  subjectCn: string;
  subjectAlt: string;
  notBefore: number;
  notAfter: number;
}

/** The value of one attribute (CN, O) of a distinguished name as node prints it ("CN=a\nO=b"). */
function attribute(name: string, key: string): string | undefined {
  return name
    .split('\n')
    .map((line) => /^([A-Za-z.]+)=(.*)$/.exec(line))
    .find((m) => m?.[1] === key)?.[2];
}

export function factsOf(certificate: X509Certificate): CertificateFacts {
  const alt = (certificate.subjectAltName ?? '')
    .split(/,\s*/)
    .map((entry) => /^(?:DNS|IP Address):(.*)$/.exec(entry)?.[1])
    .filter((name): name is string => !!name);
  return {
    issuer: attribute(certificate.issuer, 'CN') ?? attribute(certificate.issuer, 'O') ?? certificate.issuer.replace(/\n/g, ', '),
    subjectCn: attribute(certificate.subject, 'CN') ?? '',
    subjectAlt: alt.join(','),
    notBefore: Date.parse(certificate.validFrom),
    notAfter: Date.parse(certificate.validTo),
  };
}

let roots: X509Certificate[] | undefined;

/** Whether the chain ends at a certificate authority node trusts (its bundled root store). */
export function chainsToTrustedRoot(chain: X509Certificate[]): boolean {
  // node:tls is loaded here, on the first check, not at start: it was a few ms of every start-up.
  roots ??= process.getBuiltinModule('node:tls').rootCertificates.map((pem) => new X509Certificate(pem));
  const last = chain[chain.length - 1];
  return roots.some((root) => root.fingerprint256 === last.fingerprint256 || (last.checkIssued(root) && last.verify(root.publicKey)));
}

/** Whether each certificate of the chain is signed by the next one. */
export function chainIsOrdered(chain: X509Certificate[]): boolean {
  return chain.every((certificate, i) => i === chain.length - 1 || (certificate.checkIssued(chain[i + 1]) && certificate.verify(chain[i + 1].publicKey)));
}
