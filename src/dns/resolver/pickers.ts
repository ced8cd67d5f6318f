// Pickers of a dynamic RRset, applied to its records when the DNS listener answers. Selectors (ip, asn,
// country, continent, region, default) are tried in order until one matches, and the following ones are
// then skipped; filters and mutators (geodns, geodistance, weighted_shuffle, first_n) apply to what the
// previous pickers left. Edgeplane has no GeoIP data: the client's address is known (the EDNS client
// subnet, else the source address) but not its network number or location, so the asn, country,
// continent and region selectors never match and geodistance cannot measure distances.
import { BlockList, isIP } from 'node:net';

export interface PickedRecord {
  content: unknown[];
  meta: Record<string, unknown>;
}

export interface PickerSpec {
  type: string;
  limit?: number;
  strict?: boolean;
}

export interface Client {
  /** The address the answer is for; undefined when unknown (a lookup through the API). */
  address?: string;
}

const SELECTORS = new Set(['ip', 'asn', 'country', 'continent', 'region', 'default']);
const DEFAULT_WEIGHT = 50;

/** Whether the record's `ip` meta (one network or a list, CIDR or bare addresses) holds the address. */
export function ipMatches(meta: Record<string, unknown>, address: string | undefined): boolean {
  if (!address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  const networks = Array.isArray(meta.ip) ? meta.ip : meta.ip === undefined ? [] : [meta.ip];
  const list = new BlockList();
  for (const network of networks) {
    if (typeof network !== 'string') continue;
    const [base, prefix] = network.split('/');
    const netFamily = isIP(base);
    if (netFamily === 0) continue;
    const bits = prefix === undefined ? (netFamily === 4 ? 32 : 128) : Number(prefix);
    // Meta is checked when written; a network that still does not parse simply matches nothing.
    try {
      list.addSubnet(base, bits, netFamily === 4 ? 'ipv4' : 'ipv6');
    } catch {
      continue;
    }
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function select(type: string, records: PickedRecord[], client: Client): PickedRecord[] {
  if (type === 'ip') return records.filter((r) => ipMatches(r.meta, client.address));
  if (type === 'default') return records.filter((r) => r.meta.default === true);
  // asn, country, continent, region: the client's network and place are unknown here.
  return [];
}

function geodns(records: PickedRecord[], client: Client, strict: boolean): PickedRecord[] {
  const byIp = records.filter((r) => ipMatches(r.meta, client.address));
  if (byIp.length > 0) return byIp;
  return strict ? [] : records;
}

function weightedShuffle(records: PickedRecord[], random: () => number): PickedRecord[] {
  const pool = [...records];
  const out: PickedRecord[] = [];
  while (pool.length > 0) {
    const weights = pool.map((r) => (typeof r.meta.weight === 'number' && r.meta.weight >= 0 ? r.meta.weight : DEFAULT_WEIGHT));
    const total = weights.reduce((a, b) => a + b, 0);
    let point = random() * total;
    let index = total === 0 ? 0 : weights.findIndex((w) => (point -= w) < 0);
    if (index < 0) index = pool.length - 1;
    out.push(...pool.splice(index, 1));
  }
  return out;
}

/** Records without latlong meta go last; the others keep their order (distances are unknown). */
function geodistance(records: PickedRecord[]): PickedRecord[] {
  const located = (r: PickedRecord) => Array.isArray(r.meta.latlong);
  return [...records.filter(located), ...records.filter((r) => !located(r))];
}

export function applyPickers(pickers: PickerSpec[], records: PickedRecord[], client: Client, random: () => number = Math.random): PickedRecord[] {
  let current = records;
  let selected = false;
  for (const picker of pickers) {
    if (SELECTORS.has(picker.type)) {
      if (selected) continue;
      const matches = select(picker.type, current, client);
      if (matches.length > 0) {
        current = matches;
        selected = true;
      }
    } else if (picker.type === 'geodns') current = geodns(current, client, picker.strict === true);
    else if (picker.type === 'weighted_shuffle') current = weightedShuffle(current, random);
    else if (picker.type === 'geodistance') current = geodistance(current);
    else if (picker.type === 'first_n' && picker.limit) current = current.slice(0, picker.limit);
  }
  return current;
}
