/**
 * createQueryApi: the fastify application over a store (and optionally a broker client and Kafka),
 * returned unstarted so a runner can compose it; start() listens, stop() closes everything it
 * opened (never the store or the broker client, which belong to the caller).
 */

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { BrokerClient } from '@feedpipe/broker-api';
import type { Store } from '@feedpipe/store';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerHistoryRoutes } from './analytics/history-routes.js';
import { InstrumentCatalog, type StaticInstrument } from './analytics/instrument-catalog.js';
import { registerInstrumentRoutes } from './analytics/instrument-routes.js';
import { registerMarketRoutes } from './analytics/market-routes.js';
import { registerOptionRoutes } from './analytics/option-routes.js';
import { registerStatusRoutes } from './analytics/status-routes.js';
import { ApiKeyStore } from './auth/api-keys.js';
import { API_KEY_HEADER, installAuth } from './auth/auth-hook.js';
import { registerKeyRoutes } from './auth/key-routes.js';
import { KeyConcurrency, KeyRateLimiter } from './auth/rate-limiter.js';
import { type QueryApiConfig, type ResolvedConfig, resolveConfig } from './config/config.js';
import type { ApiContext } from './context.js';
import { QueryApiError } from './errors.js';
import { installErrorHandler } from './http/error-handler.js';
import { type LogSink, redactingLoggerOptions } from './http/log-redaction.js';
import { installMethodNotAllowed } from './http/method-not-allowed.js';
import { createMetrics, installMetrics } from './http/metrics.js';
import { LiveHub } from './live/live-hub.js';
import { registerStreamRoutes } from './live/stream-routes.js';
import { registerAccountRoutes } from './orders/account-routes.js';
import { AuditLog } from './orders/audit-log.js';
import { OrderDesk } from './orders/order-desk.js';
import { registerOrderRoutes } from './orders/order-routes.js';
import { PreTradeChecks } from './orders/pre-trade.js';
import { type PostbackReceiver, type PostbackReceiverOptions, postbackRoutes } from './postbacks/index.js';
import { installQueryAdmission } from './query/query-admission.js';
import { QueryRunner } from './query/query-runner.js';
import { ResultBudget } from './query/result-budget.js';
import { ResultCache } from './query/result-cache.js';
import { StoreProbe } from './query/store-probe.js';
import { registerSqlRoutes } from './sql/sql-routes.js';
import { type PipelineStatusSource, registerStatusPage } from './status-page/index.js';

export interface QueryApiDeps {
  /** The store (embedded chDB or a server), migrated through 004. Required. */
  store: Store;
  /** Order routes answer 503 TRADING_DISABLED without one. */
  broker?: BrokerClient;
  /** Kafka brokers of the live stream; without them /v1/stream answers 503. */
  kafkaBrokers?: readonly string[];
  /** Instruments known besides those in ClickHouse (pre-trade checks; reference prices). */
  instruments?: readonly StaticInstrument[];
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /** Collect Node process metrics on /metrics. Default false (true in the CLI). */
  processMetrics?: boolean;
  /**
   * The postback receiver (order updates from the service -> Kafka orders.updates + ClickHouse, live
   * stream, reconciliation). Needs `kafkaBrokers`. Default: off.
   */
  postbacks?: Omit<PostbackReceiverOptions, 'store' | 'kafkaBrokers' | 'broker'>;
  /** Live figures of the pipeline this process runs, for the status page (/status, /v1/pipeline). */
  pipelineStatus?: PipelineStatusSource;
  /** Where log lines go (after redaction). Default process.stdout. */
  logStream?: LogSink;
  /**
   * Secrets this process knows besides the postback secret (an upstream access token): removed
   * from every log line wherever they appear.
   */
  logSecrets?: readonly string[];
}

export interface QueryApi {
  readonly app: FastifyInstance;
  readonly config: ResolvedConfig;
  readonly keys: ApiKeyStore;
  /** The postback receiver, when `deps.postbacks` was given. */
  readonly postbacks: PostbackReceiver | undefined;
  /** http://host:port once started. */
  readonly url: string;
  start(): Promise<string>;
  stop(): Promise<void>;
}

const DEP_KEYS = [
  'store',
  'broker',
  'kafkaBrokers',
  'instruments',
  'now',
  'processMetrics',
  'postbacks',
  'pipelineStatus',
  'logStream',
  'logSecrets',
];

export async function createQueryApi(config: QueryApiConfig, deps: QueryApiDeps): Promise<QueryApi> {
  const resolved = resolveConfig(config);
  for (const key of Object.keys(deps)) {
    if (!DEP_KEYS.includes(key)) {
      throw new QueryApiError(
        'CONFIG_INVALID',
        `query-api deps: unknown key "${key}" (allowed: ${DEP_KEYS.join(', ')})`,
      );
    }
  }
  if (!deps.store?.client) throw new QueryApiError('CONFIG_INVALID', 'query-api deps: "store" is required');
  const now = deps.now ?? Date.now;
  const client = deps.store.client;
  // Callers' queries go through the store's user client, within the result memory budget; the
  // instrument catalog serves pre-trade checks, so it reads through the pipeline's own client.
  const budget = new ResultBudget({
    totalBytes: resolved.query.resultMemoryBytes,
    reserveBytes: resolved.query.resultReserveBytes,
    streamBytes: 1024 ** 2,
  });
  const runner = new QueryRunner(deps.store.userClient, resolved.query.maxExecutionSec, {
    budget,
    materialised: !deps.store.streamsResults,
    readonly: deps.store.userReadonly,
  });
  const metrics = createMetrics(deps.processMetrics ?? false);
  const keys = new ApiKeyStore(client, resolved.keyCacheMs, now);
  const instruments = new InstrumentCatalog(
    new QueryRunner(client, resolved.query.maxExecutionSec),
    deps.instruments ?? [],
    { now },
  );
  const ctx: ApiContext = {
    config: resolved,
    runner,
    cache: new ResultCache(resolved.cache.maxEntries, resolved.cache.maxBytes, now),
    metrics,
    keys,
    instruments,
    broker: deps.broker,
    now,
  };
  const hub = new LiveHub(deps.kafkaBrokers ?? [], resolved.topics, resolved.stream);
  // A revoked key's open streams end with it, not when the client happens to disconnect.
  keys.onRevoked((keyId) => hub.endKey(keyId, 'the API key was revoked'));
  const logSecrets = [...(deps.logSecrets ?? []), ...(deps.postbacks?.secret ? [deps.postbacks.secret] : [])];
  const audit = new AuditLog(client, now);
  const desk = deps.broker
    ? new OrderDesk(audit, new PreTradeChecks(resolved.trading, instruments, deps.broker, now), metrics, now)
    : undefined;

  const app = Fastify({
    logger:
      resolved.logLevel === false
        ? false
        : redactingLoggerOptions(resolved.logLevel, deps.logStream ?? process.stdout, () => logSecrets),
    bodyLimit: Math.max(1_048_576, resolved.sql.maxSqlLength * 4),
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false },
    },
  });
  installErrorHandler(app);
  installMethodNotAllowed(app);
  installAuth(app, keys, new KeyRateLimiter(resolved.rateLimit.perSecond, resolved.rateLimit.burst, now));
  installQueryAdmission(app, new KeyConcurrency(resolved.query.maxConcurrentPerKey));
  installMetrics(app, metrics);
  if (resolved.docs) {
    // The docs are public, like /healthz: they describe the API, they hold no data.
    app.addHook('onRoute', (route) => {
      if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), scope: 'open' };
    });
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'feedpipe query API',
          version: '1.0.0',
          description:
            'Market analytics for notebooks (JSON, CSV, Arrow, Parquet), read-only SQL, a live stream, and order execution with pre-trade checks and audit. Send the API key in the x-api-key header.',
        },
        components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER } } },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  }
  registerStatusRoutes(app, ctx, {
    streamStats: () => ({
      enabled: hub.enabled,
      running: hub.running,
      clients: hub.clients,
      delivered: hub.delivered,
    }),
    storeProbe: new StoreProbe(deps.store),
  });
  registerInstrumentRoutes(app, ctx);
  registerMarketRoutes(app, ctx);
  registerHistoryRoutes(app, ctx);
  registerOptionRoutes(app, ctx);
  registerSqlRoutes(app, ctx);
  registerStreamRoutes(app, ctx, hub);
  const tradeDeps = { broker: deps.broker, desk };
  registerOrderRoutes(app, tradeDeps);
  registerAccountRoutes(app, tradeDeps, audit);
  registerStatusPage(app, deps.pipelineStatus);
  registerKeyRoutes(app, keys);
  let postbacks: PostbackReceiver | undefined;
  if (deps.postbacks) {
    if (!deps.kafkaBrokers?.length) {
      throw new QueryApiError('CONFIG_INVALID', 'query-api deps: "postbacks" needs "kafkaBrokers"');
    }
    postbacks = await postbackRoutes(app, {
      ...deps.postbacks,
      registry: metrics.registry,
      store: deps.store,
      kafkaBrokers: deps.kafkaBrokers,
      ...(deps.broker ? { broker: deps.broker } : {}),
    });
  }

  let url = '';
  return {
    app,
    config: resolved,
    keys,
    postbacks,
    get url() {
      return url;
    },
    async start() {
      const address = await app.listen({ host: resolved.host, port: resolved.port });
      url = address.replace('[::1]', '127.0.0.1');
      return url;
    },
    async stop() {
      await hub.stop();
      await app.close();
    },
  };
}
