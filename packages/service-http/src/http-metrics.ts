import './openapi/fields.js';

/**
 * Prometheus metrics of an HTTP service on a registry of its own (so two services in one process,
 * as `npm start` and the tests compose them, never collide): request counts and latency histograms
 * per route template, errors by code, and optionally the process's own metrics (RSS, heap,
 * event-loop lag, GC; service-kit's registerProcessMetrics, named alike in every process). Every
 * other name carries the service's prefix (`query_api_`, `trading_gateway_`), so one Prometheus
 * tells the services' own series apart by name.
 */
import { limitedServerStats, registerProcessMetrics } from '@feedpipe/service-kit';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { HttpError } from './http-error.js';

export interface HttpMetricsOptions {
  /** Prefix of every metric name, e.g. `query_api_`: lower case, ending in `_`. */
  prefix: string;
  /** Collect the Node process metrics too (RSS, heap, event-loop lag, GC). Default false. */
  processMetrics?: boolean;
  /** The registry to fill. Default: a new one. */
  registry?: Registry;
}

export interface HttpMetrics {
  readonly registry: Registry;
  readonly prefix: string;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  readonly errors: Counter<'route' | 'code'>;
}

const PREFIX = /^[a-z][a-z0-9_]*_$/;

export function createHttpMetrics(options: HttpMetricsOptions): HttpMetrics {
  const { prefix } = options;
  if (!PREFIX.test(prefix)) {
    throw new HttpError('CONFIG_INVALID', `metrics prefix "${prefix}" must match ${PREFIX.source}`);
  }
  const registry = options.registry ?? new Registry();
  if (options.processMetrics) registerProcessMetrics(registry);
  return {
    registry,
    prefix,
    requests: new Counter({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time to the last byte of the response, per route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    errors: new Counter({
      name: `${prefix}errors_total`,
      help: 'Error responses by route template and error code',
      labelNames: ['route', 'code'],
      registers: [registry],
    }),
  };
}

/** The limited servers whose connections each registry reports (a service may listen on two ports). */
const serversOf = new WeakMap<
  HttpMetrics['registry'],
  NonNullable<ReturnType<typeof limitedServerStats>>[]
>();

/**
 * The connections of the app's server when it is a limited one (http-server.ts): open in the
 * process's budget, refused at the cap, closed to make room, closed for silence. Read when scraped.
 * Registered once per registry: a second server of the same service (the query API's ClickHouse
 * port) adds its idle closes to the same series; the budget is the process's, the same for both.
 */
function registerConnectionMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  const stats = limitedServerStats(app.server);
  if (!stats) return;
  const { prefix, registry } = metrics;
  const known = serversOf.get(registry);
  if (known) {
    known.push(stats);
    return;
  }
  const servers = [stats];
  serversOf.set(registry, servers);
  new Gauge({
    name: `${prefix}http_connections_open`,
    help: 'Connections open in the connection budget this server shares with the API servers of its process',
    registers: [registry],
    collect() {
      this.set(stats.budget.open);
    },
  });
  const counted = (name: string, help: string, read: () => number) =>
    new Counter({
      name: `${prefix}${name}`,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counted(
    'http_connections_refused_total',
    'Connections refused at the cap because every open one was being answered (process budget)',
    () => stats.budget.refused,
  );
  counted(
    'http_connections_evicted_total',
    'Idle connections closed to make room for a new one at the cap (process budget)',
    () => stats.budget.evicted,
  );
  counted(
    'http_connections_address_refused_total',
    'Connections reset as accepted because their client address held its share already (process cap per address)',
    () => stats.addressCap.refused,
  );
  counted(
    'http_connections_idle_closed_total',
    "Connections of this service's servers closed after the idle timeout",
    () => servers.reduce((sum, server) => sum + server.idleClosed, 0),
  );
}

/** Counts every response and serves the registry at GET /metrics (open, like /healthz). */
export function installHttpMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  registerConnectionMetrics(app, metrics);
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
