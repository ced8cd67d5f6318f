// API token secrets: random, shown once, stored only as a SHA-256 hash and compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function hashSecret(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Short, indexed prefix of the hash: finds the candidate row without comparing secrets in SQL. */
export function lookupKey(token: string): string {
  return hashSecret(token).slice(0, 16);
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Pulls the token out of `Authorization: APIKey <token>`. The scheme word is matched without regard to
 * case (RFC 9110 auth schemes are case-insensitive); exactly one space separates it from the token.
 */
export function parseAuthorization(header: string | undefined): { token: string } | { problem: string } {
  if (header === undefined || header === '') return { problem: 'Authentication credentials were not provided.' };
  const match = /^apikey ([^\s]+)$/i.exec(header);
  if (!match) return { problem: "Invalid Authorization header: expected 'APIKey <token>'." };
  return { token: match[1] };
}
