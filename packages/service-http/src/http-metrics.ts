import './openapi-fields.js';

/**
 * Prometheus metrics of the API on a registry of its own (so two instances in one process, as in
 * tests, never collide): request counts and latency histograms per route template, errors by code.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface ApiMetrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  readonly errors: Counter<'route' | 'code'>;
  readonly cacheHits: Counter<'result'>;
  readonly streamClients: Gauge;
  readonly streamDropped: Counter;
  readonly orders: Counter<'action' | 'outcome'>;
}

export function createMetrics(withDefaults: boolean): ApiMetrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: 'query_api_' });
  return {
    registry,
    requests: new Counter({
      name: 'query_api_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'query_api_http_request_duration_seconds',
      help: 'Time to the last byte of the response, per route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'query_api_errors_total',
      help: 'Error responses by route template and error code',
      labelNames: ['route', 'code'],
      registers: [registry],
    }),
    cacheHits: new Counter({
      name: 'query_api_cache_lookups_total',
      help: 'Response cache lookups: hit, miss, shared (joined an identical in-flight query)',
      labelNames: ['result'],
      registers: [registry],
    }),
    streamClients: new Gauge({
      name: 'query_api_stream_clients',
      help: 'Connected live-stream clients',
      registers: [registry],
    }),
    streamDropped: new Counter({
      name: 'query_api_stream_dropped_events_total',
      help: 'Live events dropped because a client read too slowly',
      registers: [registry],
    }),
    orders: new Counter({
      name: 'query_api_order_requests_total',
      help: 'Order requests by action and outcome',
      labelNames: ['action', 'outcome'],
      registers: [registry],
    }),
  };
}

export function installMetrics(app: FastifyInstance, metrics: ApiMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method: request.method, route }, seconds);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400 && typeof payload === 'string' && payload.startsWith('{"error"')) {
      try {
        const code = (JSON.parse(payload) as { error: { code: string } }).error.code;
        metrics.errors.inc({ route: request.routeOptions.url ?? 'unmatched', code });
      } catch {
        metrics.errors.inc({ route: request.routeOptions.url ?? 'unmatched', code: 'UNKNOWN' });
      }
    }
    return payload;
  });
  app.get('/metrics', { config: { scope: 'open' }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
