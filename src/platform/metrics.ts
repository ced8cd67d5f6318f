// Prometheus metrics: per-operation request counts and latency, plus the process defaults.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, type Metric, type MetricValueWithName, Registry } from 'prom-client';
import { sentMethod } from './http.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Requests of one (operation, method, status), counted in plain numbers. */
interface Series {
  operation: string;
  method: string;
  status: string;
  count: number;
  seconds: number;
  /** Requests per latency bucket (not cumulative); the last slot is above the largest bound. */
  buckets: number[];
}

/**
 * The request counter and latency histogram. Counting goes into plain numbers on every request and
 * prom-client reads them only when /metrics is scraped: its own `inc`/`observe` validate and hash the
 * label set on every call, which measured several microseconds per request, more than some handlers.
 * prom-client still renders the exposition format (both text formats, JSON) from what `get()` returns.
 */
export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  record(operation: string, method: string, status: number, seconds: number): void {
    const key = `${operation} ${method} ${status}`;
    let series = this.series.get(key);
    if (!series) {
      series = { operation, method, status: String(status), count: 0, seconds: 0, buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.count += 1;
    series.seconds += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket += 1;
    series.buckets[bucket] += 1;
  }

  /** Registers `edgeplane_http_requests_total` and `edgeplane_http_request_duration_seconds`. */
  register(registry: Registry): void {
    registry.registerMetric(
      scrapedMetric('edgeplane_http_requests_total', 'HTTP requests by operation, method and status code', 'counter', () =>
        [...this.series.values()].map((s) => ({ labels: { operation: s.operation, method: s.method, status: s.status }, value: s.count })),
      ),
    );
    const latency = 'edgeplane_http_request_duration_seconds';
    registry.registerMetric(
      scrapedMetric(latency, 'HTTP request latency by operation', 'histogram', () =>
        this.latencyByOperation().flatMap(({ labels, count, seconds, buckets }) => {
          let cumulative = 0;
          const bucketValues = LATENCY_BUCKETS.map((le, i) => {
            cumulative += buckets[i];
            return { labels: { le, ...labels }, value: cumulative, metricName: `${latency}_bucket` };
          });
          return [
            ...bucketValues,
            { labels: { le: '+Inf', ...labels }, value: count, metricName: `${latency}_bucket` },
            { labels, value: seconds, metricName: `${latency}_sum` },
            { labels, value: count, metricName: `${latency}_count` },
          ];
        }),
      ),
    );
  }

  /** The histogram is labelled by operation and method only: statuses are added together. */
  private latencyByOperation() {
    const merged = new Map<string, { labels: { operation: string; method: string }; count: number; seconds: number; buckets: number[] }>();
    for (const s of this.series.values()) {
      const key = `${s.operation} ${s.method}`;
      let entry = merged.get(key);
      if (!entry) {
        entry = { labels: { operation: s.operation, method: s.method }, count: 0, seconds: 0, buckets: new Array(s.buckets.length).fill(0) };
        merged.set(key, entry);
      }
      entry.count += s.count;
      entry.seconds += s.seconds;
      s.buckets.forEach((n, i) => (entry.buckets[i] += n));
    }
    return [...merged.values()];
  }
}

/** A metric whose values are read at scrape time; prom-client renders it like its own. */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValueWithName<string>[]): Metric {
  const metric = { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) };
  return metric as unknown as Metric;
}

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'edgeplane_' });
  const requests = new RequestMetrics();
  requests.register(registry);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.internal) return done();
    requests.record(request.facts.metricName, sentMethod(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
