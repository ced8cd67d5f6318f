// WAAP statistics: traffic over time (GET /waap/v1/analytics/traffic) and the top values of a dimension
// split by decision (GET /waap/v1/analytics/stats/{dimension}), over the same window as the log.
import { useLocation } from 'preact-iso';
import { useMemo } from 'preact/hooks';
import { call, queryString, type Query } from '../../api';
import { count } from '../../format';
import { useResource } from '../../hooks';
import { loadSession } from '../../session';
import { TimeChart, type Series } from '../../ui/chart';
import { Card, ErrorNote, Field } from '../../ui/widgets';
import { useServerClock } from '../server-clock';
import { RangePicker, windowOf } from './range';

interface Bucket {
  timestamp: number;
  [counter: string]: number;
}

type Pair = [string | number, number];
interface Stats {
  total: Pair[];
  blocked: Pair[];
  suppressed: Pair[];
  allowed: Pair[];
  reference: Record<string, { country?: string; org?: string; domain_id?: number }> | null;
}

const DIMENSIONS = [
  ['country', 'Countries'],
  ['ip', 'Client IPs'],
  ['rule', 'Rules'],
  ['org', 'Organizations'],
  ['useragent', 'User agents'],
  ['target', 'Domains'],
] as const;

const COUNTERS: { key: string; label: string; color: string; show?: boolean }[] = [
  { key: 'total', label: 'total', color: '--chart-1' },
  { key: 'passedToOrigin', label: 'passed to origin', color: '--chart-2' },
  { key: 'policyBlocked', label: 'blocked by policy', color: '--chart-3' },
  { key: 'customBlocked', label: 'blocked by custom rule', color: '--chart-4' },
  { key: 'ddosBlocked', label: 'blocked as DDoS', color: '--chart-5', show: false },
  { key: 'monitored', label: 'monitored', color: '--chart-6' },
  { key: 'originError4xx', label: 'origin 4xx', color: '--chart-7', show: false },
  { key: 'originError5xx', label: 'origin 5xx', color: '--chart-8', show: false },
];

/** A bucket size giving a few hundred points or fewer over the window. */
function bucketFor(spanMs: number): number {
  const hours = spanMs / 3_600_000;
  if (hours <= 3) return 60;
  if (hours <= 25) return 600;
  if (hours <= 24 * 8) return 3600;
  return 21_600;
}

export default function StatsView() {
  const { query, path, route } = useLocation();
  const clock = useServerClock();
  const waitForClock = Boolean(loadSession()?.operatorToken) && !clock.known;
  const update = (changes: Record<string, string | undefined>) => route(path + queryString({ ...query, ...changes }));
  const window = windowOf(query, clock.now());
  const spanMs = (window.end ? Date.parse(window.end) : clock.now()) - Date.parse(window.start);
  const scope: Query = { ...window, domains: query.domains, ips: query.ips, security_rule_names: query.security_rule_names };
  const dimension = query.dimension ?? 'country';
  const bucket = bucketFor(spanMs);
  // `resolution` is required; `bucket_size`, when given, sets the bucket length.
  const trafficQuery: Query = {
    ...window,
    domains: query.domains,
    resolution: bucket < 3600 ? 'minutely' : bucket < 86_400 ? 'hourly' : 'daily',
    bucket_size: bucket,
  };
  const statsQuery: Query = { ...scope, order_by: query.order_by ?? 'total.desc' };
  const traffic = useResource(waitForClock ? null : JSON.stringify(trafficQuery), (signal) =>
    call<Bucket[]>('/waap/v1/analytics/traffic', { query: trafficQuery, signal }),
  );
  const stats = useResource(waitForClock ? null : `${dimension}${JSON.stringify(statsQuery)}`, (signal) =>
    call<Stats>(`/waap/v1/analytics/stats/${dimension}`, { query: statsQuery, signal }),
  );

  const chart = useMemo(() => {
    const buckets = traffic.data ?? [];
    return {
      times: buckets.map((b) => b.timestamp),
      series: COUNTERS.map((c): Series => ({ label: c.label, color: c.color, show: c.show, values: buckets.map((b) => b[c.key] ?? 0) })),
      total: buckets.reduce((sum, b) => sum + (b.total ?? 0), 0),
    };
  }, [traffic.data]);

  return (
    <div class="stack">
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Statistics scope">
        <div class="filters-head">
          <RangePicker query={query} onChange={update} />
          <Field label="Domain IDs">
            <input
              data-search
              name="domains"
              value={query.domains ?? ''}
              placeholder="all"
              onChange={(e) => update({ domains: (e.target as HTMLInputElement).value || undefined })}
            />
          </Field>
          <Field label="Client IPs" error={stats.error} path="ips">
            <input name="ips" value={query.ips ?? ''} placeholder="all" onChange={(e) => update({ ips: (e.target as HTMLInputElement).value || undefined })} />
          </Field>
          <Field label="Rule names" error={stats.error} path="security_rule_names">
            <input
              name="security_rule_names"
              value={query.security_rule_names ?? ''}
              placeholder="all"
              onChange={(e) => update({ security_rule_names: (e.target as HTMLInputElement).value || undefined })}
            />
          </Field>
        </div>
      </form>
      <Card title={`Traffic: ${count(chart.total)} requests`} actions={<span class="muted small">buckets of {bucket / 60} min, UTC</span>}>
        <ErrorNote error={traffic.error} />
        <TimeChart label="Requests per time bucket" times={chart.times} series={chart.series} />
      </Card>
      <Card
        title="Top values"
        actions={
          <>
            <label class="inline">
              <span>by</span>
              <select name="dimension" value={dimension} onChange={(e) => update({ dimension: (e.target as HTMLSelectElement).value })}>
                {DIMENSIONS.map(([id, title]) => (
                  <option value={id}>{title}</option>
                ))}
              </select>
            </label>
            <label class="inline">
              <span>order</span>
              <select name="order_by" value={query.order_by ?? 'total.desc'} onChange={(e) => update({ order_by: (e.target as HTMLSelectElement).value })}>
                <option value="total.desc">all requests</option>
                <option value="threats.desc">threats</option>
              </select>
            </label>
          </>
        }
      >
        <ErrorNote error={stats.error} shown={['ips', 'security_rule_names']} />
        <TopTable stats={stats.data} dimension={dimension} />
      </Card>
    </div>
  );
}

function TopTable(props: { stats?: Stats; dimension: string }) {
  const rows = useMemo(() => {
    if (!props.stats) return [];
    const of = (pairs: Pair[]) => new Map(pairs.map(([key, n]) => [String(key), n]));
    const blocked = of(props.stats.blocked);
    const suppressed = of(props.stats.suppressed);
    const allowed = of(props.stats.allowed);
    return props.stats.total.map(([key, total]) => ({
      key: String(key),
      total,
      blocked: blocked.get(String(key)) ?? 0,
      monitored: suppressed.get(String(key)) ?? 0,
      allowed: allowed.get(String(key)) ?? 0,
    }));
  }, [props.stats]);
  const max = Math.max(1, ...rows.map((r) => r.total));
  const reference = props.stats?.reference ?? {};
  return (
    <div class="table-wrap">
      <table class="data" aria-label="Top values">
        <thead>
          <tr>
            <th scope="col">Value</th>
            <th scope="col">Requests</th>
            <th scope="col">Blocked</th>
            <th scope="col">Monitored</th>
            <th scope="col">Allowed</th>
            <th scope="col" class="bar-col">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const ref = reference[row.key];
            const extra = ref ? [ref.country, ref.org, ref.domain_id ? `domain ${ref.domain_id}` : undefined].filter(Boolean).join(', ') : '';
            return (
              <tr>
                <td class="clip" title={row.key}>
                  {row.key || '(none)'} {extra && <span class="muted small">{extra}</span>}
                </td>
                <td>{count(row.total)}</td>
                <td>{count(row.blocked)}</td>
                <td>{count(row.monitored)}</td>
                <td>{count(row.allowed)}</td>
                <td class="bar-col">
                  <span class="bar" aria-hidden="true">
                    <span class="bar-blocked" style={{ width: `${(100 * row.blocked) / max}%` }} />
                    <span class="bar-monitored" style={{ width: `${(100 * row.monitored) / max}%` }} />
                    <span class="bar-rest" style={{ width: `${(100 * (row.total - row.blocked - row.monitored)) / max}%` }} />
                  </span>
                </td>
              </tr>
            );
          })}
          {rows.length === 0 && (
            <tr class="empty">
              <td colSpan={6}>{props.stats ? 'No events in this window.' : 'Loading…'}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
