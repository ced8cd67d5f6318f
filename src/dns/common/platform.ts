// The DNS platform's own facts: its name servers, its contact, and the defaults a zone or an RRset gets
// for what its creator left out. The names are under .test (RFC 2606), reserved for exactly this use.

export const PLATFORM_NAME_SERVERS = ['ns1.edgeplane.test', 'ns2.edgeplane.test'] as const;
export const PLATFORM_CONTACT = 'support@edgeplane.test';

/** SOA timers (seconds) of a zone that did not set them. */
export const SOA_DEFAULTS = { refresh: 3600, retry: 600, expiry: 604_800, nx_ttl: 300 } as const;

/** TTL of an RRset created without one, and of the platform's NS records at a zone's apex. */
export const DEFAULT_TTL = 300;
export const NS_TTL = 3600;

/** Quotas: zones per client, RRsets per zone, records per RRset, network mappings per client. */
export const QUOTAS = { zones: 1000, rrsets: 10_000, records: 100, mappings: 100 } as const;

/** Zone statuses: what the API reports for a zone that answers and for one that does not. */
export const zoneStatus = (enabled: boolean) => (enabled ? 'active' : 'disabled');

/** An email contact in the SOA's mailbox-name form: the local part's dots escaped, `@` a dot. */
export function mailboxName(contact: string): string {
  const at = contact.lastIndexOf('@');
  if (at < 0) return contact;
  return `${contact.slice(0, at).replace(/\./g, '\\.')}.${contact.slice(at + 1)}`;
}

/** The reverse: an SOA mailbox name as an email address (the first unescaped dot is the `@`). */
export function contactOf(mailbox: string): string {
  const bare = mailbox.endsWith('.') ? mailbox.slice(0, -1) : mailbox;
  const match = /^((?:[^.\\]|\\.)*)\.(.+)$/.exec(bare);
  return match ? `${match[1].replace(/\\\./g, '.')}@${match[2]}` : bare;
}
