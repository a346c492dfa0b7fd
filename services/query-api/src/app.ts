/**
 * createQueryApi: the read-only fastify application over a store (and optionally Kafka for the live
 * stream), returned unstarted so a runner can compose it; start() listens, stop() closes everything
 * it opened (never the store, which belongs to the caller). It holds no trading credentials: orders,
 * postbacks and order updates are services/trading-gateway's, with keys of their own.
 */

import type { ListenOptions } from 'node:net';
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import {
  ApiKeyStore,
  createAuthLimits,
  HTTP_SERVICE_DEPS,
  installAuth,
  installErrorHandler,
  installHttpMetrics,
  installMethodNotAllowed,
  KeyConcurrency,
  type LogSink,
  registerKeyRoutes,
  registerOpenApiDocs,
  serviceAppOptions,
} from '@feedpipe/service-http';
import { ExclusiveLane, type Store } from '@feedpipe/store';
import Fastify, { type FastifyInstance, type FastifyListenOptions } from 'fastify';
import { BarsFolder } from './analytics/bars-folding.js';
import { registerCrossSectionRoutes } from './analytics/cross-section-routes.js';
import { registerDataQualityRoutes } from './analytics/data-quality-routes.js';
import { registerHistoryRoutes } from './analytics/history-routes.js';
import { InstrumentCatalog, type StaticInstrument } from './analytics/instrument-catalog.js';
import { registerInstrumentListingRoutes } from './analytics/instrument-listing-routes.js';
import { registerInstrumentRoutes } from './analytics/instrument-routes.js';
import { registerInstrumentSearchRoutes } from './analytics/instrument-search-routes.js';
import { registerMarketRoutes } from './analytics/market-routes.js';
import { registerOptionRoutes } from './analytics/option-routes.js';
import { registerQuoteRoutes } from './analytics/quote-routes.js';
import { registerStatusRoutes } from './analytics/status-routes.js';
import { API_KEYS_TABLE, DEFAULT_SCOPE, SCOPES, type Scope } from './auth/scopes.js';
import { clickHouseKeyFrom, registerClickHouseRoutes } from './clickhouse-http/routes.js';
import { type QueryApiConfig, type ResolvedConfig, resolveConfig } from './config/config.js';
import type { ApiContext } from './context.js';
import { QueryApiError } from './errors.js';
import { createHotTierMetrics } from './hot-tier/hot-tier-metrics.js';
import { HotTierService } from './hot-tier/hot-tier-service.js';
import { createMetrics, METRIC_PREFIX } from './http/metrics.js';
import { LiveHub } from './live/live-hub.js';
import { registerStreamRoutes } from './live/stream-routes.js';
import { installQueryAdmission } from './query/query-admission.js';
import { QueryRunner } from './query/query-runner.js';
import { DEFAULT_MAX_WAITING, ResultBudget } from './query/result-budget.js';
import { ResultCache } from './query/result-cache.js';
import { StoreProbe } from './query/store-probe.js';
import { registerRecordSchemaRoutes } from './record-schemas/record-schema-routes.js';
import { CallerSql } from './sql/caller-sql.js';
import { installCatalogViews } from './sql/catalog-views.js';
import { registerSqlRoutes } from './sql/sql-routes.js';
import { type PipelineStatusSource, registerStatusPage } from './status-page/index.js';

export interface QueryApiDeps {
  /** The store (embedded chDB or a server), migrated through 004. Required. */
  store: Store;
  /** Kafka brokers of the live stream; without them /v1/stream answers 503. */
  kafkaBrokers?: readonly string[];
  /** Instruments known besides those in ClickHouse (the instrument routes answer for them). */
  instruments?: readonly StaticInstrument[];
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /** Collect Node process metrics on /metrics. Default false (true in the CLI). */
  processMetrics?: boolean;
  /** Live figures of the pipeline this process runs, for the status page (/status, /v1/pipeline). */
  pipelineStatus?: PipelineStatusSource;
  /** Where log lines go (after redaction). Default process.stdout. */
  logStream?: LogSink;
  /** Secrets this process knows (store passwords): removed from every log line wherever they appear. */
  logSecrets?: readonly string[];
}

export interface QueryApi {
  readonly app: FastifyInstance;
  readonly config: ResolvedConfig;
  /** This API's keys (scopes read, admin). */
  readonly keys: ApiKeyStore<Scope>;
  /** http://host:port once started. */
  readonly url: string;
  /** The hot tier (recent bars in memory), when Kafka brokers are given and its window is not 0. */
  readonly hotTier: HotTierService | undefined;
  /** http://host:port of the ClickHouse-protocol port once started (`clickhousePort`), else undefined. */
  readonly clickhouseUrl: string | undefined;
  start(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Bars folding (analytics/bars-folding.ts), as tuned with bench:api on 2 cores: at most 25
 * requests a statement (a batch of 25 costs ~3-4 ms of CPU a request against ~13-17 ms alone), and a
 * short line waits up to 20 ms for more while another statement runs (without it a third of the
 * statements answered one request). Measured: 25 / 20 ms / one thread gave 349-373 requests/s
 * against 267-319 for 1 statement at a time, 32 or 64 a statement, 3 at once or 5-10 ms.
 */
const BARS_PER_STATEMENT = 25;
const BARS_LINGER_MS = 20;
/** Bars statements in flight at once on a ClickHouse server (which runs them in parallel itself). */
const SERVER_BARS_STATEMENTS = 4;

/** What createQueryApi is handed besides its config (QueryApiDeps documents each). */
const DEPS = { ...HTTP_SERVICE_DEPS, pipelineStatus: { kind: 'given' } } as const satisfies OptionsSchema;

function checkDeps(deps: QueryApiDeps): void {
  readOptions(DEPS, deps, {
    where: 'query-api deps',
    fail: (message) => new QueryApiError('CONFIG_INVALID', message),
  });
}

/**
 * What the API's listeners share, so a key's rate and its store-reading requests are counted once
 * whichever port they arrive on.
 */
interface SharedLimits {
  auth: ReturnType<typeof createAuthLimits>;
  concurrency: KeyConcurrency;
}

/** The HTTP server with what every route shares: errors, auth, admission, metrics, docs. */
async function createHttpApp(
  resolved: ResolvedConfig,
  deps: QueryApiDeps,
  keys: ApiKeyStore<Scope>,
  metrics: ApiContext['metrics'],
  logSecrets: readonly string[],
  shared: SharedLimits,
  docs = resolved.docs,
): Promise<FastifyInstance> {
  const app = Fastify({
    ...serviceAppOptions(resolved, { stream: deps.logStream ?? process.stdout, secrets: () => logSecrets }),
    bodyLimit: Math.max(resolved.server.bodyLimitBytes, resolved.sql.maxSqlLength * 4),
  });
  installErrorHandler(app);
  installMethodNotAllowed(app);
  installAuth(app, keys, shared.auth, {
    defaultScope: DEFAULT_SCOPE,
    keyFrom: clickHouseKeyFrom,
  });
  installQueryAdmission(app, shared.concurrency);
  installHttpMetrics(app, metrics);
  if (docs) {
    await registerOpenApiDocs(app, {
      title: 'feedpipe query API',
      description:
        "Market analytics for notebooks (JSON, CSV, Arrow, Parquet), read-only SQL (also over ClickHouse's HTTP protocol under /clickhouse), a live stream and the pipeline status page. Send the API key in the x-api-key header (ClickHouse clients: as the basic-auth password). Orders live in the trading gateway, with its own keys and docs.",
      securitySchemes: { clickhouseBasic: { type: 'http', scheme: 'basic' } },
    });
  }
  return app;
}

/** Every route of the API: status, analytics, SQL, the live stream, the record schemas, the status page, keys. */
function registerRoutes(app: FastifyInstance, ctx: ApiContext, hub: LiveHub, deps: QueryApiDeps): CallerSql {
  registerStatusRoutes(app, ctx, {
    streamStats: () => ({
      enabled: hub.enabled,
      running: hub.running,
      clients: hub.clients,
      delivered: hub.delivered,
    }),
    storeProbe: new StoreProbe(deps.store),
  });
  // Before the :securityId routes only for the reader: find-my-way prefers the static segment anyway.
  registerInstrumentSearchRoutes(app, ctx);
  registerInstrumentRoutes(app, ctx);
  registerInstrumentListingRoutes(app, ctx);
  registerQuoteRoutes(app, ctx);
  registerCrossSectionRoutes(app, ctx);
  registerMarketRoutes(app, ctx);
  registerHistoryRoutes(app, ctx);
  registerDataQualityRoutes(app, ctx);
  registerOptionRoutes(app, ctx);
  const callerSql = new CallerSql(ctx);
  registerSqlRoutes(app, ctx, callerSql);
  registerClickHouseRoutes(app, ctx, callerSql);
  registerStreamRoutes(app, ctx, hub);
  registerRecordSchemaRoutes(app);
  registerStatusPage(app, { pipeline: deps.pipelineStatus, liveStream: () => hub.enabled });
  registerKeyRoutes(app, ctx.keys);
  return callerSql;
}

export async function createQueryApi(config: QueryApiConfig, deps: QueryApiDeps): Promise<QueryApi> {
  const resolved = resolveConfig(config);
  checkDeps(deps);
  const now = deps.now ?? Date.now;
  const lane = deps.store.internal;
  // Callers' queries go through the store's user lane, within the result memory budget; the
  // instrument catalog is the API's own lookup, so it reads through the pipeline's own lane.
  const budget = new ResultBudget({
    totalBytes: resolved.query.resultMemoryBytes,
    reserveBytes: resolved.query.resultReserveBytes,
    streamBytes: 1024 ** 2,
    waitMs: resolved.query.resultWaitMs,
  });
  const metrics = createMetrics(deps.processMetrics ?? false);
  const userTurns = deps.store.user.turns;
  const runner = new QueryRunner(deps.store.user, resolved.query.maxExecutionSec, {
    budget,
    // Turns as many as the lane's sessions, each waited for as long as the lane would; as many
    // may wait as the budget's line lets wait (waiting holds no memory), which a burst needs: at
    // the lane's own 64 the stale requests of clients that reconnected filled the line.
    turns:
      userTurns === undefined
        ? undefined
        : new ExclusiveLane('query results', {
            sessions: userTurns.sessions,
            maxWaitMs: userTurns.maxWaitMs,
            maxQueued: DEFAULT_MAX_WAITING,
          }),
    onQuery: () => metrics.storeQueries.inc({ lane: 'user' }),
  });
  const keys = new ApiKeyStore<Scope>(lane, {
    table: API_KEYS_TABLE,
    scopes: SCOPES,
    cacheMs: resolved.keyCacheMs,
    now,
  });
  const instruments = new InstrumentCatalog(
    new QueryRunner(lane, resolved.query.maxExecutionSec, {
      onQuery: () => metrics.storeQueries.inc({ lane: 'internal' }),
    }),
    deps.instruments ?? [],
    { now },
  );
  const hotMetrics = createHotTierMetrics(METRIC_PREFIX, metrics.registry);
  const hotTier = createHotTier(resolved, deps, lane, hotMetrics, now, (level, message) => {
    if (level === 'warn') app.log.warn(message);
    else app.log.info(message);
  });
  const ctx: ApiContext = {
    hot: { tier: hotTier?.tier, metrics: hotMetrics },
    config: resolved,
    runner,
    cache: new ResultCache(resolved.cache.maxEntries, resolved.cache.maxBytes, now),
    metrics,
    keys,
    instruments,
    now,
    bars: new BarsFolder(runner, {
      // As many statements at once as callers have turns on the engine, one thread each there
      // (the two share the machine's cores); a server schedules its own, so a few run at once.
      maxInFlight: userTurns?.sessions ?? SERVER_BARS_STATEMENTS,
      statementSettings: userTurns === undefined ? {} : { max_threads: 1 },
      maxBars: resolved.query.maxBars,
      maxRequests: BARS_PER_STATEMENT,
      fullBatch: BARS_PER_STATEMENT,
      lingerMs: BARS_LINGER_MS,
      onBatch: (requests) => metrics.barsBatch.observe(requests),
    }),
  };
  const hub = new LiveHub(deps.kafkaBrokers ?? [], resolved.topics, resolved.stream);
  // A revoked key's open streams end with it, not when the client happens to disconnect.
  keys.onRevoked((keyId) => hub.endKey(keyId, 'the API key was revoked'));
  const logSecrets = [...(deps.logSecrets ?? [])];

  const shared: SharedLimits = {
    auth: createAuthLimits(resolved, now),
    concurrency: new KeyConcurrency(resolved.query.maxConcurrentPerKey),
  };
  const app = await createHttpApp(resolved, deps, keys, metrics, logSecrets, shared);
  const callerSql = registerRoutes(app, ctx, hub, deps);
  // ClickHouse's protocol at the root of a port of its own, for tools that cannot be given a path.
  const clickhouseApp =
    resolved.clickhousePort === undefined
      ? undefined
      : await createHttpApp(resolved, deps, keys, metrics, logSecrets, shared, false);
  if (clickhouseApp) registerClickHouseRoutes(clickhouseApp, ctx, callerSql, '');
  // The catalogue views SQL tools browse (sql/catalog-views.ts). A login without DDL rights (a
  // server's) leaves them to the server's administrator: browsing then finds no table.
  await installCatalogViews(lane).catch((error: unknown) =>
    app.log.warn({ err: error }, 'the catalogue views for SQL tools could not be created'),
  );

  return listeners(app, clickhouseApp, resolved, keys, hub, hotTier);
}

/** The hot tier, when Kafka brokers are given and its window is not 0 (hot-tier/). */
function createHotTier(
  resolved: ResolvedConfig,
  deps: QueryApiDeps,
  lane: QueryApiDeps['store']['internal'],
  metrics: ReturnType<typeof createHotTierMetrics>,
  now: () => number,
  log: (level: 'info' | 'warn', message: string) => void,
): HotTierService | undefined {
  if ((deps.kafkaBrokers ?? []).length === 0 || resolved.hotTier.windowHours <= 0) return undefined;
  return new HotTierService({
    ...resolved.hotTier,
    brokers: deps.kafkaBrokers ?? [],
    topic: resolved.topics.trades,
    // The pipeline's own lane: loading the window is the API's work, not a caller's.
    lane,
    metrics,
    now,
    log,
  });
}

/** The API's listeners: start() opens the API's port and the ClickHouse port, stop() closes both. */
function listeners(
  app: FastifyInstance,
  clickhouseApp: FastifyInstance | undefined,
  resolved: ResolvedConfig,
  keys: ApiKeyStore<Scope>,
  hub: LiveHub,
  hotTier: HotTierService | undefined,
): QueryApi {
  let url = '';
  let clickhouseUrl: string | undefined;
  return {
    app,
    config: resolved,
    keys,
    get url() {
      return url;
    },
    hotTier,
    get clickhouseUrl() {
      return clickhouseUrl;
    },
    async start() {
      // Fastify hands its listen options to Node's server.listen whole; its type lacks reusePort.
      const listenOptions: FastifyListenOptions & Pick<ListenOptions, 'reusePort'> = {
        host: resolved.host,
        port: resolved.port,
        reusePort: resolved.reusePort,
      };
      const address = await app.listen(listenOptions);
      url = address.replace('[::1]', '127.0.0.1');
      if (clickhouseApp) {
        const chAddress = await clickhouseApp.listen({
          host: resolved.host,
          port: resolved.clickhousePort ?? 0,
        });
        clickhouseUrl = chAddress.replace('[::1]', '127.0.0.1');
      }
      // In the background: until the tier is loaded and caught up, ClickHouse answers.
      void hotTier?.start();
      return url;
    },
    async stop() {
      await hotTier?.stop();
      await hub.stop();
      await clickhouseApp?.close();
      await app.close();
      keys.close();
    },
  };
}
