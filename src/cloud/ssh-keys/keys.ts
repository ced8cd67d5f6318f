// OpenSSH keys (pure functions over sshpk and node's crypto): a supplied public key is parsed for real
// and its fingerprint computed the way the provider shows it (MD5, colon-separated hex); with no key
// supplied, an Ed25519 key pair is generated and its private half returned once.
import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';

export interface PublicKeyInfo {
  /** `<type> <base64> [comment]`, on one line. */
  publicKey: string;
  fingerprint: string;
  type: string;
}

/** Key types accepted, and the smallest size of each (RSA below 2048 bits is refused as too weak). */
const ACCEPTED: Record<string, number> = { ed25519: 256, ecdsa: 256, rsa: 2048 };

/** The parsed key, or why the text is not an acceptable OpenSSH public key. */
export function parsePublicKey(text: string): PublicKeyInfo | { error: string } {
  const line = text.trim();
  if (line.includes('\n')) return { error: 'must be a single line: <type> <base64 key> [comment]' };
  if (/PRIVATE KEY/.test(line)) return { error: 'is a private key; send the public one (the .pub file)' };
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(line, 'ssh');
  } catch (error) {
    return { error: `is not a valid OpenSSH public key (${(error as Error).message.replace(/^Failed to parse \(unnamed\) as a valid ssh format key: /, '')})` };
  }
  const minimum = ACCEPTED[key.type];
  if (minimum === undefined) return { error: `key type ${key.type} is not accepted; use ed25519, ecdsa or rsa` };
  if (key.size < minimum) return { error: `${key.type} key of ${key.size} bits is too small (at least ${minimum})` };
  const comment = key.comment && key.comment !== '(unnamed)' ? ` ${key.comment}` : '';
  return { publicKey: `${key.toString('ssh').split(' ').slice(0, 2).join(' ')}${comment}`, fingerprint: md5(key), type: key.type };
}

/** A new Ed25519 key pair: the OpenSSH public line (with `comment`) and the OpenSSH private key. */
export function generateKeyPair(comment: string): PublicKeyInfo & { privateKey: string } {
  const pair = generateKeyPairSync('ed25519');
  const privateKey = sshpk.parsePrivateKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'pem');
  privateKey.comment = comment;
  const publicKey = privateKey.toPublic();
  return {
    publicKey: `${publicKey.toString('ssh').split(' ').slice(0, 2).join(' ')} ${comment}`,
    privateKey: privateKey.toString('ssh'),
    fingerprint: md5(publicKey),
    type: 'ed25519',
  };
}

function md5(key: sshpk.Key): string {
  return key.fingerprint('md5').toString('hex');
}
