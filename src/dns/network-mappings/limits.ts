// How large a network mapping may be: the same bounds for one created through the API (its schema) and
// for one read from an import (yaml.ts), which no schema checks.
export const MAPPING_LIMITS = {
  /** Entries of one mapping. */
  entries: 1000,
  /** Tags of one entry. */
  tags: 100,
  /** IPv4 or IPv6 networks of one entry, each. */
  networks: 1000,
  /** Characters of a name, a tag or a network. */
  text: 255,
} as const;
