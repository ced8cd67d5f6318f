// Finds the caller's zone named in a path. A name that is not one of the caller's zones (another
// client's, a malformed one) is simply not found: existence does not leak.
import type { Principal } from '../../platform/auth/principal.js';
import { notFound } from '../../platform/errors.js';
import { MAX_NAME_INPUT } from '../common/names.js';
import { domainToASCII } from 'node:url';
import type { ZoneRow } from '../common/tables.js';
import type { ZoneStore } from './store.js';

/** A path's zone name as stored: lower case, punycode, no trailing dot ('' when it cannot be a name). */
export function pathZoneName(text: string): string {
  if (text.length === 0 || text.length > MAX_NAME_INPUT) return '';
  const bare = text.endsWith('.') ? text.slice(0, -1) : text;
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(bare) ? bare.toLowerCase() : domainToASCII(bare);
}

export class ZoneFinder {
  constructor(private readonly store: ZoneStore) {}

  async owned(principal: Principal, name: string): Promise<ZoneRow> {
    const normal = pathZoneName(name);
    const zone = normal ? await this.store.find(principal.clientId, normal) : undefined;
    if (!zone) throw notFound(`Zone ${name}`);
    return zone;
  }
}
