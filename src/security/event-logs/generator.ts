// Deterministic DDoS event-log generator: the same seed, client, window and count always give the same
// records. Figures agree with each other: bps = pps x mean packet size x 8 (mean taken from the
// packet-size buckets), the peak of attack_traffic is exactly the record's attack_power_*, breakdown
// percentages add up, and per-entry pps/bps are their share of the peak.
import type { AlertType, AttackArrays, AttackItem } from './schemas.js';
import { seededRandom } from '../../platform/random.js';

export interface GeneratedEventLog extends AttackArrays {
  id: string;
  client_id: number;
  alert_type: AlertType;
  notification_type: string;
  /** Epoch milliseconds. */
  attack_start_time: number;
  attack_power_bps: number;
  attack_power_pps: number;
  number_of_ip_involved_in_attack: number;
  targeted_ip_addresses: string;
}

export interface GenerateOptions {
  clientId: number;
  count: number;
  seed: number;
  /** Latest attack start, epoch ms. */
  end: number;
  /** Attack starts are spread over this many days before `end`. */
  days: number;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

class Random {
  constructor(private readonly next: () => number) {}
  float(min = 0, max = 1): number {
    return min + (max - min) * this.next();
  }
  int(min: number, max: number): number {
    return Math.floor(this.float(min, max + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i -= 1) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
  /** Log-uniform: attack sizes span orders of magnitude. */
  logUniform(min: number, max: number): number {
    return Math.exp(this.float(Math.log(min), Math.log(max)));
  }
  uuid(): string {
    const bytes = Array.from({ length: 16 }, () => Math.floor(this.next() * 256));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

/** Splits `total` into integer parts proportional to weights (largest remainder), so they add up exactly. */
export function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / sum) * total);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    parts[i] += 1;
    left -= 1;
  }
  return parts;
}

/** Percentages with two decimals that add up to `totalPercent` exactly. */
function percents(rng: Random, n: number, totalPercent: number, skew: number): number[] {
  const weights = Array.from({ length: n }, (_, i) => Math.pow(skew, -i) * rng.float(0.7, 1.3));
  weights.sort((a, b) => b - a);
  return apportion(Math.round(totalPercent * 100), weights).map((bp) => bp / 100);
}

export const PACKET_BUCKETS: readonly [number, number][] = [
  [0, 127],
  [128, 255],
  [256, 511],
  [512, 1023],
  [1024, 1518],
];

interface Vector {
  name: string;
  /** Relative weight of each packet-size bucket. */
  sizes: number[];
  protocols: [string, number][];
  sourcePorts: () => number[];
  destinationPorts: () => number[];
  sources: [number, number];
}

function vectors(rng: Random): Vector[] {
  const ephemeral = () => Array.from({ length: 8 }, () => rng.int(1024, 65535));
  const service = (port: number) => () => [port, ...Array.from({ length: 4 }, () => rng.int(1024, 65535))];
  return [
    {
      name: 'syn_flood',
      sizes: [90, 8, 1, 1, 0],
      protocols: [
        ['TCP', 97],
        ['UDP', 2],
        ['ICMP', 1],
      ],
      sourcePorts: ephemeral,
      destinationPorts: () => [443, 80, 22, 8080, 25],
      sources: [20_000, 2_000_000],
    },
    {
      name: 'udp_flood',
      sizes: [5, 10, 20, 30, 35],
      protocols: [
        ['UDP', 95],
        ['TCP', 3],
        ['ICMP', 2],
      ],
      sourcePorts: ephemeral,
      destinationPorts: ephemeral,
      sources: [1_000, 200_000],
    },
    {
      name: 'dns_amplification',
      sizes: [2, 3, 10, 25, 60],
      protocols: [
        ['UDP', 99],
        ['ICMP', 1],
      ],
      sourcePorts: service(53),
      destinationPorts: ephemeral,
      sources: [500, 60_000],
    },
    {
      name: 'ntp_amplification',
      sizes: [1, 2, 30, 60, 7],
      protocols: [
        ['UDP', 99],
        ['TCP', 1],
      ],
      sourcePorts: service(123),
      destinationPorts: ephemeral,
      sources: [200, 20_000],
    },
    {
      name: 'memcached_amplification',
      sizes: [0, 1, 2, 7, 90],
      protocols: [['UDP', 100]],
      sourcePorts: service(11211),
      destinationPorts: ephemeral,
      sources: [50, 5_000],
    },
    {
      name: 'ack_flood',
      sizes: [85, 10, 3, 2, 0],
      protocols: [
        ['TCP', 98],
        ['UDP', 1],
        ['ICMP', 1],
      ],
      sourcePorts: ephemeral,
      destinationPorts: () => [443, 80, 8443],
      sources: [5_000, 500_000],
    },
  ];
}

const COUNTRIES = ['CN', 'US', 'BR', 'RU', 'IN', 'VN', 'ID', 'DE', 'KR', 'TR', 'UA', 'NL', 'FR', 'GB', 'TH', 'AR', 'MX', 'EG', 'IR', 'PK'];
const NOTIFICATIONS: Record<AlertType, readonly string[]> = {
  ddos_alert: ['attack_started', 'attack_updated', 'attack_ended'],
  rtbh_alert: ['blackhole_announced', 'blackhole_withdrawn'],
};
const MINUTE = 60_000;
const DAY = 86_400_000;

/** Mean packet size in bytes implied by a packet-size breakdown (bucket midpoints). */
export function meanPacketSize(sizes: { size_from: number; size_to: number; percent: number }[]): number {
  return sizes.reduce((sum, b) => sum + (b.percent / 100) * ((b.size_from + b.size_to) / 2), 0);
}

function sourceIp(rng: Random): string {
  // Anywhere but the private, loopback and multicast ranges.
  const first = rng.pick([1, 5, 14, 27, 31, 36, 41, 45, 58, 61, 77, 89, 95, 103, 117, 125, 151, 177, 185, 190, 200, 212, 221]);
  return `${first}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

function targets(rng: Random, alert: AlertType): string {
  // Documentation ranges (RFC 5737): plausible, never somebody's real address.
  const one = () => `${rng.pick(['203.0.113', '198.51.100', '192.0.2'])}.${rng.int(1, 254)}`;
  const n = alert === 'rtbh_alert' ? 1 : rng.int(1, 3);
  return [...new Set(Array.from({ length: n }, one))].join(', ');
}

function oneRecord(rng: Random, options: GenerateOptions): GeneratedEventLog {
  const alert: AlertType = rng.float() < 0.7 ? 'ddos_alert' : 'rtbh_alert';
  const vector = rng.pick(vectors(rng));
  const start = options.end - Math.floor(rng.float(0, options.days * DAY) / 1000) * 1000;

  const sizeWeights = vector.sizes.map((w) => w * rng.float(0.8, 1.2) + 1e-9);
  const sizePercents = apportion(10_000, sizeWeights).map((bp) => bp / 100);
  const packetSizes = PACKET_BUCKETS.map(([from, to], i) => ({ size_from: from, size_to: to, percent: sizePercents[i] }));
  const meanSize = meanPacketSize(packetSizes);

  const pps = Math.round(rng.logUniform(50_000, 40_000_000));
  const bps = Math.round(pps * meanSize * 8);
  const share = (percent: number) => ({ pps: Math.round((pps * percent) / 100), bps: Math.round((bps * percent) / 100) });
  for (const bucket of packetSizes) Object.assign(bucket, { pps: Math.round((pps * bucket.percent) / 100) });

  const points = rng.int(5, 30);
  const peakAt = rng.int(1, Math.max(1, points - 2));
  const traffic: AttackItem[] = Array.from({ length: points }, (_, i) => {
    const factor = i === peakAt ? 1 : i < peakAt ? rng.float(0.15, 0.9) * ((i + 1) / (peakAt + 1)) : rng.float(0.3, 0.95) * (1 - (i - peakAt) / (points + 1));
    const p = Math.round(pps * factor);
    return { time: new Date(start + i * MINUTE).toISOString(), pps: p, bps: Math.round(p * meanSize * 8) };
  });

  const sources = Math.round(rng.logUniform(vector.sources[0], vector.sources[1]));
  const topIpCount = Math.min(10, sources);
  const topIpTotal = Math.min(95, (100 * topIpCount) / sources + rng.float(0, 40));
  const countryList = rng.shuffle(COUNTRIES).slice(0, rng.int(4, 8));
  const countries = percents(rng, countryList.length, rng.float(70, 100), 1.6).map((percent, i) => ({ country: countryList[i], percent, ...share(percent) }));
  const ips = percents(rng, topIpCount, topIpTotal, 1.3).map((percent) => ({ ip: sourceIp(rng), country: rng.pick(countryList), percent, ...share(percent) }));
  const portItems = (ports: number[], total: number) =>
    percents(rng, ports.length, total, 2.5).map((percent, i) => ({ port: ports[i], percent, pps: Math.round((pps * percent) / 100) }));
  const protocolPercents = apportion(
    10_000,
    vector.protocols.map(([, w]) => w),
  ).map((bp) => bp / 100);

  return {
    id: rng.uuid(),
    client_id: options.clientId,
    alert_type: alert,
    notification_type: rng.pick(NOTIFICATIONS[alert]),
    attack_start_time: start,
    attack_power_bps: bps,
    attack_power_pps: pps,
    number_of_ip_involved_in_attack: sources,
    targeted_ip_addresses: targets(rng, alert),
    attack_traffic: traffic,
    attack_packet_sizes: packetSizes,
    attack_top_source_countries: countries,
    attack_top_source_ips: ips,
    attack_top_source_ports: portItems([...new Set(vector.sourcePorts())], rng.float(60, 100)),
    attack_top_destination_ports: portItems([...new Set(vector.destinationPorts())], rng.float(60, 100)),
    attack_top_protocols: vector.protocols.map(([protocol], i) => ({ protocol, percent: protocolPercents[i], ...share(protocolPercents[i]) })),
  };
}

export function generateEventLogs(options: GenerateOptions): GeneratedEventLog[] {
  const rng = new Random(seededRandom(fnv1a(`ddos:${options.seed}:${options.clientId}:${options.end}:${options.days}`)));
  return Array.from({ length: options.count }, () => oneRecord(rng, options));
}
