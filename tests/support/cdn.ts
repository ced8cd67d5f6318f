// Shared set-up for the CDN tests: objects made through the API, and certificates and keys made once
// with openssl (EC P-256, valid for a century): a test root CA, a certificate it signed for
// cdn.example.com (SANs cdn.example.com, www.example.com) with its key, another key, and a certificate
// that expired on 2021-01-01 (whose key is OTHER_KEY). Test data only: no real service trusts this CA.
import type { TestAccount, TestApp } from './app.js';

let counter = 0;
/** A host name no other test uses (host names are unique across all clients). */
export function uniqueHost(prefix = 'cdn'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}.example.com`;
}

async function made(t: TestApp, account: TestAccount, url: string, body: unknown): Promise<any> {
  const res = await t.request('POST', url, { headers: account.headers, body });
  if (res.statusCode !== 201) throw new Error(`POST ${url} failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

export function createGroup(t: TestApp, account: TestAccount, body: Record<string, unknown> = {}): Promise<any> {
  return made(t, account, '/cdn/origin_groups', { name: uniqueHost('group'), sources: [{ source: 'origin.example.com' }], ...body });
}

export async function createResource(t: TestApp, account: TestAccount, body: Record<string, unknown> = {}): Promise<any> {
  const group = body.originGroup === undefined && body.origin === undefined ? (await createGroup(t, account)).id : undefined;
  return made(t, account, '/cdn/resources', { cname: uniqueHost(), ...(group !== undefined ? { originGroup: group } : {}), ...body });
}

export function createRule(t: TestApp, account: TestAccount, resourceId: number, body: Record<string, unknown>): Promise<any> {
  return made(t, account, `/cdn/resources/${resourceId}/rules`, { name: uniqueHost('rule'), ruleType: 0, ...body });
}

export const TEST_CA = `-----BEGIN CERTIFICATE-----
MIIB2zCCAYGgAwIBAgIUGy9if94bC546GsKK0tfd1zrLTh8wCgYIKoZIzj0EAwIw
OjEXMBUGA1UECgwORWRnZXBsYW5lIFRlc3QxHzAdBgNVBAMMFkVkZ2VwbGFuZSBU
ZXN0IFJvb3QgQ0EwIBcNMjYxMTI1MjMyNjM3WhgPMjEyNjExMDEyMzI2MzdaMDox
FzAVBgNVBAoMDkVkZ2VwbGFuZSBUZXN0MR8wHQYDVQQDDBZFZGdlcGxhbmUgVGVz
dCBSb290IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEocvEVZ74+ZKnQNxe
dOjqGgkUdrU7u3gy/tFW2+h2fdx6rkz5fiwxVQXC+HlxcykcrmhUP0uPlESooclU
ysMteqNjMGEwHQYDVR0OBBYEFKp5K4Cm6a/+KE4Pk5oH/CqJoeKBMB8GA1UdIwQY
MBaAFKp5K4Cm6a/+KE4Pk5oH/CqJoeKBMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0P
AQH/BAQDAgEGMAoGCCqGSM49BAMCA0gAMEUCIQDIB7KTP3eIMpCG/EDQGCIW9tVW
8MbDrkxT0wkWPDdy0QIgS4VYJTAVKVKyHctpAprGtdM4Q2yNkyoDHyAFWZGfAdI=
-----END CERTIFICATE-----
`;

export const LEAF_CERT = `-----BEGIN CERTIFICATE-----
MIIB0jCCAXigAwIBAgIUAMoX0N7oivXgtNYUJx2KuMbSTJowCgYIKoZIzj0EAwIw
OjEXMBUGA1UECgwORWRnZXBsYW5lIFRlc3QxHzAdBgNVBAMMFkVkZ2VwbGFuZSBU
ZXN0IFJvb3QgQ0EwIBcNMjYxMTI1MjMyNjM3WhgPMjEyNjExMDEyMzI2MzdaMBox
GDAWBgNVBAMMD2Nkbi5leGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABNBmaI+KfIri+pkWZjdIuOxxz2jbgtOU4bG5boHRVLAbMAyCVS9V/6bC7AxR
EH/09LhEocCBgG3O1yg6fRmwKNSjejB4MCsGA1UdEQQkMCKCD2Nkbi5leGFtcGxl
LmNvbYIPd3d3LmV4YW1wbGUuY29tMAkGA1UdEwQCMAAwHQYDVR0OBBYEFMhMiQ0n
1YHHGuEUaXmo5OeQvYquMB8GA1UdIwQYMBaAFKp5K4Cm6a/+KE4Pk5oH/CqJoeKB
MAoGCCqGSM49BAMCA0gAMEUCIQD6vKHWFwja6qmX75eAfxFHADV/71mJHCKqsCPA
HINKQQIgXWYMZmWAEGF9SSXEQsVE8jOJKEAvqqq1lMlYdlGqniM=
-----END CERTIFICATE-----
`;

export const LEAF_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgiCDzajbBhQoXs6qF
viKw9KdwQYdHI2dNKCTUw3kGgtmhRANCAATQZmiPinyK4vqZFmY3SLjscc9o24LT
lOGxuW6B0VSwGzAMglUvVf+mwuwMURB/9PS4RKHAgYBtztcoOn0ZsCjU
-----END PRIVATE KEY-----
`;

export const OTHER_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9rQ1RL86cPHOvrgG
qFTpugUEX8KCxCYk/KN/rZIQc/GhRANCAAQsrajj05SlrVNvhAGhS8uoMVS16wAC
QlmbFhmfGYJScUzuhfpHf6mZiITZWX9S5Rsyp0Zas5zpW1WzwAHDMC/y
-----END PRIVATE KEY-----
`;

export const EXPIRED_CERT = `-----BEGIN CERTIFICATE-----
MIIBqjCCAVCgAwIBAgICEAAwCgYIKoZIzj0EAwIwOjEXMBUGA1UECgwORWRnZXBs
YW5lIFRlc3QxHzAdBgNVBAMMFkVkZ2VwbGFuZSBUZXN0IFJvb3QgQ0EwHhcNMjAw
MTAxMDAwMDAwWhcNMjEwMTAxMDAwMDAwWjAeMRwwGgYDVQQDDBNleHBpcmVkLmV4
YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAELK2o49OUpa1Tb4QB
oUvLqDFUtesAAkJZmxYZnxmCUnFM7oX6R3+pmYiE2Vl/UuUbMqdGWrOc6VtVs8AB
wzAv8qNiMGAwHgYDVR0RBBcwFYITZXhwaXJlZC5leGFtcGxlLmNvbTAdBgNVHQ4E
FgQUgfKp9LC+ad0fw0ZudfDOiCxuYiswHwYDVR0jBBgwFoAUqnkrgKbpr/4oTg+T
mgf8Komh4oEwCgYIKoZIzj0EAwIDSAAwRQIgMiquuq8UpMSip6DNJe/w3qTwpc94
PMAWIapRIfDm6Q8CIQDkBsyGZma4gr1i7Lzwuo+WgHQKcK3o9ZWyP8+8qkzVjA==
-----END CERTIFICATE-----
`;
