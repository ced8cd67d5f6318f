// DNSSEC key material: a zone's key-signing key is a real ECDSA P-256 key (algorithm 13, RFC 6605); its
// DNSKEY data, key tag (RFC 4034 appendix B) and DS digest (SHA-256, RFC 4509) are computed from it.
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';

export const ALGORITHM = 13;
export const ALGORITHM_NAME = 'ECDSAP256SHA256';
/** Zone key + secure entry point: a key-signing key. */
export const KSK_FLAGS = 257;
export const PROTOCOL = 3;
export const DIGEST_TYPE = 2;
export const DIGEST_NAME = 'SHA256';

export interface NewKey {
  uuid: string;
  algorithm: number;
  flags: number;
  keyTag: number;
  /** The DNSKEY public key field (the curve point X || Y), base64. */
  publicKey: string;
  privateKeyPem: string;
}

/** The DNSKEY RDATA: flags, protocol, algorithm, public key. */
export function dnskeyRdata(flags: number, algorithm: number, publicKey: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(flags, 0);
  head.writeUInt8(PROTOCOL, 2);
  head.writeUInt8(algorithm, 3);
  return Buffer.concat([head, publicKey]);
}

/** RFC 4034 appendix B: the ones'-complement-like sum of the RDATA as 16-bit words. */
export function keyTag(rdata: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i] : rdata[i] << 8;
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** A name in canonical wire form (lower case, uncompressed). */
export function wireName(name: string): Buffer {
  const labels = name === '.' ? [] : name.replace(/\.$/, '').toLowerCase().split('.');
  return Buffer.concat([...labels.map((label) => Buffer.concat([Buffer.from([Buffer.byteLength(label)]), Buffer.from(label)])), Buffer.from([0])]);
}

export function generateKey(): NewKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return {
    uuid: randomUUID(),
    algorithm: ALGORITHM,
    flags: KSK_FLAGS,
    keyTag: keyTag(dnskeyRdata(KSK_FLAGS, ALGORITHM, point)),
    publicKey: point.toString('base64'),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/** The SHA-256 DS digest of a zone's key, upper-case hexadecimal. */
export function dsDigest(zone: string, flags: number, algorithm: number, publicKey: string): string {
  const rdata = dnskeyRdata(flags, algorithm, Buffer.from(publicKey, 'base64'));
  return createHash('sha256').update(wireName(zone)).update(rdata).digest('hex').toUpperCase();
}
