// A deterministic generator of realistic CDN access records: the same options give the same records,
// byte for byte. Visitors come from a pool (so unique visitors are far fewer than requests), each with a
// fixed country, device, browser and OS; traffic follows a day/night cycle; sizes depend on the directory.
import { DAY_MS, type AccessRecord, type Device } from './model.js';
import { seededRandom } from '../../platform/random.js';

export interface GenerateOptions {
  clientId: number;
  records: number;
  /** Spread over the `days` days that end at `end` (epoch ms). */
  days: number;
  end: number;
  seed: number;
  resourceIds?: number[];
}

export const MAX_GENERATED_RECORDS = 1_000_000;

type Weighted<T> = readonly (readonly [T, number])[];

function picker<T>(table: Weighted<T>): (random: () => number) => T {
  const total = table.reduce((sum, [, w]) => sum + w, 0);
  return (random) => {
    let roll = random() * total;
    for (const [value, weight] of table) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return table[table.length - 1][0];
  };
}

const country = picker([
  ['US', 24],
  ['DE', 12],
  ['GB', 8],
  ['FR', 7],
  ['NL', 5],
  ['IN', 9],
  ['BR', 6],
  ['JP', 5],
  ['PL', 4],
  ['SG', 3],
  ['CA', 4],
  ['AU', 3],
  ['ES', 4],
  ['IT', 4],
  ['TR', 2],
] as const);
const device = picker<Device>([
  ['desktop', 44],
  ['mobile', 45],
  ['tablet', 7],
  ['tv', 1],
  ['bot', 2],
  ['other', 1],
]);
const OS_BY_DEVICE: Record<Device, (r: () => number) => string> = {
  desktop: picker([
    ['Windows', 68],
    ['macOS', 22],
    ['Linux', 8],
    ['ChromeOS', 2],
  ]),
  mobile: picker([
    ['Android', 70],
    ['iOS', 30],
  ]),
  tablet: picker([
    ['iPadOS', 55],
    ['Android', 45],
  ]),
  tv: picker([
    ['Tizen', 40],
    ['webOS', 30],
    ['Android', 30],
  ]),
  bot: picker([
    ['Linux', 90],
    ['Other', 10],
  ]),
  other: picker([['Other', 100]]),
};
const BROWSER_BY_OS: Record<string, (r: () => number) => string> = {
  iOS: picker([
    ['Safari', 85],
    ['Chrome', 13],
    ['Firefox', 2],
  ]),
  iPadOS: picker([
    ['Safari', 90],
    ['Chrome', 10],
  ]),
  macOS: picker([
    ['Safari', 48],
    ['Chrome', 44],
    ['Firefox', 6],
    ['Edge', 2],
  ]),
  Windows: picker([
    ['Chrome', 66],
    ['Edge', 22],
    ['Firefox', 9],
    ['Opera', 3],
  ]),
  Android: picker([
    ['Chrome', 82],
    ['Samsung Internet', 12],
    ['Firefox', 3],
    ['Opera', 3],
  ]),
};
const otherBrowser = picker([
  ['Chrome', 70],
  ['Firefox', 20],
  ['Other', 10],
]);
const botBrowser = picker([
  ['Googlebot', 60],
  ['Bingbot', 25],
  ['Other', 15],
]);

interface PathKind {
  dir: string;
  files: readonly string[];
  minBytes: number;
  maxBytes: number;
}
const paths = picker<PathKind>([
  [{ dir: '/', files: ['', 'index.html', 'favicon.ico', 'robots.txt'], minBytes: 300, maxBytes: 40_000 }, 14],
  [{ dir: '/static/', files: ['js/app.js', 'js/vendor.js', 'css/site.css', 'fonts/inter.woff2'], minBytes: 2_000, maxBytes: 900_000 }, 30],
  [{ dir: '/images/', files: ['hero.jpg', 'logo.svg', 'products/p1.webp', 'products/p2.webp', 'avatars/a.png'], minBytes: 4_000, maxBytes: 2_500_000 }, 28],
  [{ dir: '/api/', files: ['v1/items', 'v1/cart', 'v1/search', 'v2/profile'], minBytes: 200, maxBytes: 60_000 }, 14],
  [{ dir: '/video/', files: ['intro/seg-001.ts', 'intro/seg-002.ts', 'intro/master.m3u8'], minBytes: 300_000, maxBytes: 8_000_000 }, 6],
  [{ dir: '/blog/', files: ['2026/launch.html', '2026/edge.html', 'feed.xml'], minBytes: 5_000, maxBytes: 120_000 }, 8],
]);
const status = picker([
  [200, 86],
  [304, 6],
  [206, 3],
  [301, 1],
  [404, 3],
  [403, 0.5],
  [500, 0.3],
  [503, 0.2],
] as const);

interface Visitor {
  ip: string;
  id: string | null;
  country: string;
  device: Device;
  os: string;
  browser: string;
}

function makeVisitor(random: () => number, n: number): Visitor {
  const d = device(random);
  const os = OS_BY_DEVICE[d](random);
  const browser = d === 'bot' ? botBrowser(random) : (BROWSER_BY_OS[os] ?? otherBrowser)(random);
  const ip =
    random() < 0.85
      ? `${1 + Math.floor(random() * 222)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`
      : `2001:db8:${Math.floor(random() * 65536).toString(16)}::${(n + 1).toString(16)}`;
  // Some visitors behind one IP carry a visitor ID (cookie); bots never do.
  const id = d !== 'bot' && random() < 0.3 ? `vis-${n.toString(36)}-${Math.floor(random() * 1e9).toString(36)}` : null;
  return { ip, id, country: country(random), device: d, os, browser };
}

/** Hour-of-day weight: a trough at 04:00 UTC and a peak in the evening. */
const hourWeight = (hour: number) => 0.35 + 0.65 * (0.5 - 0.5 * Math.cos(((hour - 4) / 24) * 2 * Math.PI));

export function* generateRecords(options: GenerateOptions): Generator<AccessRecord> {
  const random = seededRandom(options.seed);
  const resources = options.resourceIds?.length ? options.resourceIds : [1];
  const visitors: Visitor[] = [];
  const poolSize = Math.max(1, Math.ceil(options.records / 6));
  const start = options.end - options.days * DAY_MS;
  for (let i = 0; i < options.records; i += 1) {
    // Returning visitors are likelier than new ones once the pool has filled a little.
    const reuse = visitors.length > 0 && (visitors.length >= poolSize || random() < 0.7);
    const visitor = reuse ? visitors[Math.floor(random() * visitors.length)] : visitors[visitors.push(makeVisitor(random, visitors.length)) - 1];
    let ts: number;
    do ts = start + Math.floor(random() * (options.end - start));
    while (random() > hourWeight(new Date(ts).getUTCHours()));
    const kind = paths(random);
    const file = kind.files[Math.floor(random() * kind.files.length)];
    const resourceId = resources[Math.floor(random() * resources.length)];
    const code = status(random);
    const bytes = code === 304 ? 0 : Math.floor(kind.minBytes + random() ** 2 * (kind.maxBytes - kind.minBytes));
    yield {
      clientId: options.clientId,
      timestamp: ts,
      resourceId,
      host: `cdn${resourceId}.example.com`,
      path: `${kind.dir}${file}`,
      country: visitor.country,
      browser: visitor.browser,
      device: visitor.device,
      os: visitor.os,
      bytes,
      status: code,
      clientIp: visitor.ip,
      visitorId: visitor.id,
    };
  }
}
