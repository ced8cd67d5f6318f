// Prometheus metrics: per-operation request counts and latency, plus the process defaults.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'edgeplane_' });
  const requests = new Counter({
    name: 'edgeplane_http_requests_total',
    help: 'HTTP requests by operation, method and status code',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'edgeplane_http_request_duration_seconds',
    help: 'HTTP request latency by operation',
    labelNames: ['operation', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  // Label children are looked up once per (operation, method, status): prom-client would otherwise hash
  // the label set on every request.
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'operation' | 'method'> }>();
  app.addHook('onResponse', (request, reply, done) => {
    const operation = request.facts.metricName;
    const key = `${operation} ${request.method} ${reply.statusCode}`;
    let child = children.get(key);
    if (!child) {
      child = { count: requests.labels(operation, request.method, String(reply.statusCode)), time: latency.labels(operation, request.method) };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  return registry;
}
