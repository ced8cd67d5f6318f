// Catalogues the traffic generator draws from: networks, user agents, routes, rules and threat tags.
import type { EventDetails, IngestRecord } from './schemas.js';

type IngestMethod = IngestRecord['method'];

export interface Org {
  name: string;
  country: string;
  subnet: string;
  prefix: [number, number];
  v6?: boolean;
  weight: number;
}
export interface Agent {
  parsed: EventDetails['user_agent'];
  ja3: string;
  ja4: string;
  http2: boolean;
  weight: number;
}
interface Status {
  code: number;
  weight: number;
}
export interface Route {
  path: string;
  query: string;
  methods: IngestMethod[];
  statuses: Status[];
  statusWeight: number;
  traffic: string[];
  accept: string;
  contentType: string;
  weight: number;
}
export interface Rule {
  id: string;
  name: string;
  tags: string[];
}
export interface Attack {
  rule: Rule;
  paths: Route[];
  query: string;
  agents: number[];
  common: string;
}

const org = (name: string, country: string, a: number, b: number, weight: number, v6 = false): Org => ({
  name,
  country,
  subnet: v6 ? `2001:db8:${a.toString(16)}:${b.toString(16)}::/64` : `${a}.${b}.0.0/16`,
  prefix: [a, b],
  v6,
  weight,
});

const orgs: Org[] = [
  org('Comcast Cable Communications', 'US', 73, 12, 9),
  org('Amazon.com, Inc.', 'US', 52, 95, 6),
  org('Google LLC', 'US', 66, 249, 3),
  org('Verizon Business', 'US', 71, 176, 5),
  org('Deutsche Telekom AG', 'DE', 87, 150, 6),
  org('Hetzner Online GmbH', 'DE', 88, 198, 3),
  org('British Telecommunications PLC', 'GB', 86, 128, 5),
  org('Orange S.A.', 'FR', 90, 12, 4),
  org('OVH SAS', 'FR', 51, 77, 2),
  org('KPN B.V.', 'NL', 77, 161, 3),
  org('DigitalOcean, LLC', 'NL', 188, 166, 2),
  org('Telefonica Brasil S.A.', 'BR', 177, 32, 4),
  org('Reliance Jio Infocomm', 'IN', 49, 36, 5),
  org('China Telecom', 'CN', 116, 224, 4),
  org('Rostelecom', 'RU', 95, 24, 3),
  org('NTT Communications', 'JP', 153, 156, 3),
  org('Rogers Communications', 'CA', 99, 224, 3),
  org('Orange Polska S.A.', 'PL', 83, 9, 2),
  org('Kyivstar', 'UA', 176, 36, 2),
  org('Singtel', 'SG', 116, 88, 2),
  org('Telstra', 'AU', 101, 160, 2),
  org('Telefonica de Espana', 'ES', 83, 45, 2),
  org('Telecom Italia', 'IT', 79, 20, 2),
  org('Turk Telekom', 'TR', 78, 180, 1),
  org('Viettel Group', 'VN', 27, 72, 1),
  org('KT Corporation', 'KR', 211, 36, 2),
  org('Comcast Cable Communications', 'US', 0x2601, 0x1c2, 2, true),
];

const agent = (
  full: string,
  client: string,
  version: string,
  os: string,
  device: string,
  deviceType: string,
  clientType: string,
  engine: string,
  weight: number,
  http2 = true,
): Agent => ({
  parsed: {
    full_string: full,
    client,
    client_version: version,
    base_browser: client,
    base_browser_version: version,
    os,
    device,
    device_type: deviceType,
    cpu: deviceType === 'desktop' ? 'amd64' : deviceType === 'smartphone' ? 'arm64' : '',
    rendering_engine: engine,
    client_type: clientType,
  },
  ja3: Buffer.from(`${client}${version}`).toString('hex').padEnd(32, '0').slice(0, 32),
  ja4: `t13d${client.length.toString().padStart(2, '0')}15h2_${Buffer.from(client).toString('hex').padEnd(12, 'a').slice(0, 12)}_${Buffer.from(os).toString('hex').padEnd(12, 'b').slice(0, 12)}`,
  http2,
  weight,
});

const agents: Agent[] = [
  agent(
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    'Chrome',
    '126.0.0.0',
    'Windows',
    'Other',
    'desktop',
    'browser',
    'Blink',
    30,
  ),
  agent(
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'Mobile Safari',
    '17.5',
    'iOS',
    'iPhone',
    'smartphone',
    'browser',
    'WebKit',
    18,
  ),
  agent(
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36',
    'Chrome Mobile',
    '126.0.6478.71',
    'Android',
    'Pixel 8',
    'smartphone',
    'browser',
    'Blink',
    14,
  ),
  agent(
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    'Safari',
    '17.4',
    'Mac OS X',
    'Mac',
    'desktop',
    'browser',
    'WebKit',
    10,
  ),
  agent('Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 'Firefox', '127.0', 'Linux', 'Other', 'desktop', 'browser', 'Gecko', 6),
  agent(
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.92',
    'Edge',
    '125.0.2535.92',
    'Windows',
    'Other',
    'desktop',
    'browser',
    'Blink',
    6,
  ),
  agent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot', '2.1', 'Other', 'Spider', 'bot', 'crawler', '', 4, false),
  agent('python-requests/2.32.3', 'Python Requests', '2.32.3', 'Other', 'Other', 'unknown', 'library', '', 3, false),
  agent('curl/8.8.0', 'curl', '8.8.0', 'Other', 'Other', 'unknown', 'library', '', 2, false),
  agent('Go-http-client/1.1', 'Go-http-client', '1.1', 'Other', 'Other', 'unknown', 'library', '', 2, false),
  agent('sqlmap/1.8.6#stable (https://sqlmap.org)', 'sqlmap', '1.8.6', 'Other', 'Other', 'unknown', 'library', '', 0, false),
  agent(
    'Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)',
    'Nmap',
    '7.95',
    'Other',
    'Other',
    'unknown',
    'library',
    '',
    0,
    false,
  ),
];

const st = (...pairs: [number, number][]) => pairs.map(([code, weight]) => ({ code, weight }));
const route = (
  path: string,
  methods: IngestMethod[],
  statuses: Status[],
  traffic: string[],
  weight: number,
  query = '',
  accept = 'text/html',
  contentType = 'text/html',
): Route => ({ path, query, methods, statuses, statusWeight: statuses.reduce((s, x) => s + x.weight, 0), traffic, accept, contentType, weight });
const page = st([200, 80], [304, 8], [301, 3], [302, 2], [404, 5], [500, 1], [502, 1]);
const api = st([200, 75], [201, 5], [204, 3], [400, 5], [401, 4], [404, 5], [429, 1], [500, 1], [503, 1]);
const asset = st([200, 70], [304, 27], [404, 3]);

const routes: Route[] = [
  route('/', ['GET', 'GET', 'GET', 'HEAD'], page, [], 14),
  route('/index.html', ['GET'], page, [], 3),
  route('/products/{n}', ['GET'], page, [], 9),
  route('/search', ['GET'], page, [], 4, 'q=shoes&page=2'),
  route('/login', ['GET', 'POST'], page, [], 3),
  route('/cart', ['GET', 'POST'], page, [], 3),
  route('/checkout', ['GET', 'POST'], page, [], 2),
  route('/api/v1/products', ['GET', 'GET', 'OPTIONS'], api, ['api'], 7, 'limit=20', 'application/json', 'application/json'),
  route('/api/v1/products/{n}', ['GET', 'PUT', 'PATCH', 'DELETE'], api, ['api'], 5, '', 'application/json', 'application/json'),
  route('/api/v1/orders', ['GET', 'POST'], api, ['api'], 5, '', 'application/json', 'application/json'),
  route('/api/v1/users/{n}', ['GET', 'PATCH'], api, ['api'], 3, '', 'application/json', 'application/json'),
  route('/api/v2/search', ['GET', 'POST'], api, ['api', 'ajax'], 3, 'q=laptop', 'application/json', 'application/json'),
  route('/static/js/app.js', ['GET'], asset, ['static'], 10, '', '*/*', 'application/javascript'),
  route('/static/css/main.css', ['GET'], asset, ['static'], 8, '', 'text/css', 'text/css'),
  route('/images/logo.png', ['GET'], asset, ['static'], 6, '', 'image/*', 'image/png'),
  route('/favicon.ico', ['GET'], asset, ['static'], 3, '', 'image/*', 'image/x-icon'),
  route('/health', ['GET', 'HEAD'], st([200, 1]), [], 1),
];

const rule = (id: string, name: string, tags: string[]): Rule => ({ id, name, tags });
const attackRoutes = (paths: string[], methods: IngestMethod[]) => paths.map((p) => route(p, methods, st([403, 1]), [], 1));

const attacks: Attack[] = [
  {
    rule: rule('S10001', 'SQL Injection', ['sqli']),
    paths: attackRoutes(['/api/v1/products', '/search', '/login'], ['GET', 'POST']),
    query: "id=1'+OR+'1'='1'--",
    agents: [10, 7, 8],
    common: 'injectionattack',
  },
  {
    rule: rule('S10002', 'Cross-Site Scripting', ['xss']),
    paths: attackRoutes(['/search', '/api/v2/search', '/products/7'], ['GET', 'POST']),
    query: 'q=<script>alert(1)</script>',
    agents: [0, 7, 4],
    common: 'injectionattack',
  },
  {
    rule: rule('S10003', 'Path Traversal', ['traversal']),
    paths: attackRoutes(['/static/../../etc/passwd', '/images/..%2f..%2fwin.ini'], ['GET']),
    query: '',
    agents: [8, 9],
    common: 'injectionattack',
  },
  {
    rule: rule('S10004', 'Remote Code Execution', ['rce']),
    paths: attackRoutes(['/api/v1/users/1', '/cgi-bin/bash'], ['POST', 'PUT']),
    query: 'cmd=;cat+/etc/passwd',
    agents: [7, 9],
    common: 'injectionattack',
  },
  {
    rule: rule('S10005', 'Vulnerability Scanner', ['scanner']),
    paths: attackRoutes(['/wp-login.php', '/.env', '/admin', '/phpmyadmin/index.php', '/.git/config'], ['GET', 'HEAD']),
    query: '',
    agents: [11, 8],
    common: 'scanning',
  },
  {
    rule: rule('S10006', 'Brute Force Login', ['bruteforce']),
    paths: attackRoutes(['/login', '/api/v1/users/1'], ['POST']),
    query: '',
    agents: [7, 9, 0],
    common: 'accounttakeover',
  },
  {
    rule: rule('S10007', 'Bad Reputation IP', ['badreputation']),
    paths: attackRoutes(['/', '/api/v1/products', '/cart'], ['GET']),
    query: '',
    agents: [0, 8],
    common: 'badreputation',
  },
];

const tags: Record<string, { tag: string; display_name: string; description: string }> = {
  sqli: { tag: 'sqli', display_name: 'SQL Injection', description: 'An attempt to insert a SQL query through client input.' },
  xss: { tag: 'xss', display_name: 'Cross-Site Scripting', description: 'An attempt to inject a script into pages seen by other users.' },
  traversal: { tag: 'traversal', display_name: 'Path Traversal', description: 'An attempt to reach files outside the web root.' },
  rce: { tag: 'rce', display_name: 'Remote Code Execution', description: 'An attempt to run commands on the origin.' },
  scanner: { tag: 'scanner', display_name: 'Vulnerability Scanner', description: 'Requests typical of automated vulnerability scanners.' },
  bruteforce: { tag: 'bruteforce', display_name: 'Brute Force', description: 'Repeated login attempts from one client.' },
  badreputation: { tag: 'badreputation', display_name: 'Bad Reputation', description: 'The client IP is listed for recent malicious activity.' },
  ratelimit: { tag: 'ratelimit', display_name: 'Rate Limit', description: 'The client exceeded the allowed request rate.' },
  bot: { tag: 'bot', display_name: 'Automated Client', description: 'The client behaves like an automated tool.' },
};

const commonTags: Record<string, { tag: string; display_name: string; description: string }> = {
  injectionattack: { tag: 'injectionattack', display_name: 'Injection Attack', description: 'Multiple injection attempts were detected.' },
  scanning: { tag: 'scanning', display_name: 'Scanning', description: 'The client probed many well-known sensitive paths.' },
  accounttakeover: { tag: 'accounttakeover', display_name: 'Account Takeover', description: 'Repeated attempts to log in to accounts.' },
  badreputation: { tag: 'badreputation', display_name: 'Bad Reputation', description: 'Traffic from sources with a bad reputation.' },
};

const sum = (xs: { weight: number }[]) => xs.reduce((s, x) => s + x.weight, 0);

export const CATALOGUE = {
  orgs,
  orgWeight: sum(orgs),
  agents,
  agentWeight: sum(agents),
  routes,
  routeWeight: sum(routes),
  attacks,
  tags,
  commonTags,
  allowRules: [rule('C20001', 'Allow office network', []), rule('C20002', 'Allow verified bots', [])],
  benignBlocks: [rule('S10008', 'Rate Limit', ['ratelimit']), rule('S10009', 'Automated Client', ['bot'])],
};
