// OpenSSH key parsing and generation: real keys of each accepted type, their MD5 fingerprints computed
// independently, and the malformed or weak keys that are refused.
import { createHash, generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { describe, expect, it } from 'vitest';
import { publicKey } from '../../../tests/cloud/fixture.js';
import { generateKeyPair, parsePublicKey } from './keys.js';

/** MD5 of the key blob, colon-separated hex: what `ssh-keygen -l -E md5` prints. */
function md5Of(line: string): string {
  const blob = Buffer.from(line.split(' ')[1], 'base64');
  return createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
}

describe('parsePublicKey', () => {
  it.each(['ed25519', 'rsa', 'ecdsa'] as const)('parses an %s key and fingerprints it as ssh-keygen does', (type) => {
    const line = publicKey(type, 'me@laptop');
    const parsed = parsePublicKey(`  ${line}\n`);
    expect(parsed).toEqual({ publicKey: line, fingerprint: md5Of(line), type: type === 'ecdsa' ? 'ecdsa' : type });
  });

  it('keeps a key without a comment as it is', () => {
    const line = publicKey('ed25519').split(' ').slice(0, 2).join(' ');
    expect(parsePublicKey(line)).toMatchObject({ publicKey: line });
  });

  it('refuses truncated, garbled, private, multi-line and weak keys', () => {
    const good = publicKey('ed25519');
    const cases = {
      truncated: good.slice(0, 40),
      garbled: 'ssh-ed25519 AAAA!!!notbase64 me',
      words: 'hello world',
      private: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      twoLines: `${good}\n${good}`,
      weakRsa: sshpk
        .parseKey(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem')
        .toString('ssh'),
    };
    for (const [name, text] of Object.entries(cases)) expect(parsePublicKey(text), name).toHaveProperty('error');
    expect((parsePublicKey(cases.weakRsa) as { error: string }).error).toMatch(/1024 bits is too small/);
  });
});

describe('generateKeyPair', () => {
  it('makes an Ed25519 pair whose halves match', () => {
    const pair = generateKeyPair('my key');
    expect(pair.publicKey).toMatch(/^ssh-ed25519 \S+ my key$/);
    expect(pair.fingerprint).toBe(md5Of(pair.publicKey));
    const privateKey = sshpk.parsePrivateKey(pair.privateKey, 'ssh');
    expect(privateKey.toPublic().toString('ssh').split(' ')[1]).toBe(pair.publicKey.split(' ')[1]);
    expect(pair.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
  });
});
