/**
 * createTradingGateway: the fastify application of order execution, returned unstarted so a runner
 * can compose it; start() listens, stop() closes everything it opened (never the store or the
 * broker client, which belong to the caller).
 *
 * It is the only process that holds the service's credentials (the broker client's access token)
 * and the postback secret, and it has its own API keys (market.gateway_api_keys, scopes `trade`
 * and `admin`): a read key of the query API reaches nothing here, and nothing here answers
 * analytics. Routes: orders (regular, super, forever, conditional, US stocks) with pre-trade
 * checks, idempotence and audit; the account (positions, funds, margin, kill switch, P&L exit,
 * audit trail); and, with `config.postbacks`, the postback receiver, the order-update stream and
 * reconciliation.
 */

import type { BrokerClient } from '@feedpipe/broker-api';
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import {
  ApiKeyStore,
  createAuthLimits,
  HTTP_SERVICE_DEPS,
  installAuth,
  installErrorHandler,
  installHttpMetrics,
  installMethodNotAllowed,
  type LogSink,
  registerKeyRoutes,
  registerOpenApiDocs,
  routeDoc,
  serviceAppOptions,
} from '@feedpipe/service-http';
import type { Store } from '@feedpipe/store';
import Fastify, { type FastifyInstance } from 'fastify';
import { type ResolvedGatewayConfig, resolveGatewayConfig, type TradingGatewayConfig } from './config.js';
import { TradingGatewayError } from './errors.js';
import { AccountSnapshots } from './fills/account-snapshots.js';
import { FillRecorder } from './fills/fill-recorder.js';
import { fillRoutes } from './fills/fill-routes.js';
import { createGatewayMetrics, type GatewayMetrics } from './metrics.js';
import { accountRoutes } from './orders/account-routes.js';
import { AuditDrain } from './orders/audit-drain.js';
import { AuditJournal } from './orders/audit-journal.js';
import { registerAuditJournalMetrics } from './orders/audit-journal-metrics.js';
import type { ResolvedAuditJournalConfig } from './orders/audit-journal-options.js';
import { AuditLog, storedAuditRows } from './orders/audit-log.js';
import { fromBrokerError } from './orders/broker-errors.js';
import { InstrumentReference, type ReferenceInstrument } from './orders/instrument-reference.js';
import { OrderDesk } from './orders/order-desk.js';
import { ORDER_ROUTES } from './orders/order-routes.js';
import { OrderOwners } from './orders/ownership.js';
import { PreTradeChecks } from './orders/pre-trade.js';
import { TimedLane } from './orders/timed-store.js';
import { registerRouteSpecs } from './orders/trade-route.js';
import { type PostbackConfig, type PostbackReceiver, postbackRoutes } from './postbacks/index.js';
import {
  GATEWAY_DEFAULT_SCOPE,
  GATEWAY_KEYS_TABLE,
  GATEWAY_SCOPES,
  type GatewayScope,
  isSupervisor,
} from './scopes.js';

export interface TradingGatewayDeps {
  /** The store (embedded chDB or a server), migrated through 007. Required. */
  store: Store;
  /** The typed client of the service, holding its credentials. Order routes answer 503 TRADING_DISABLED without one. */
  broker?: BrokerClient;
  /** Kafka brokers; the postback receiver (config.postbacks) needs them (orders.updates). */
  kafkaBrokers?: readonly string[];
  /** Instruments known besides those in ClickHouse (pre-trade checks; reference prices). */
  instruments?: readonly ReferenceInstrument[];
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /** Collect Node process metrics on /metrics. Default false (true in the CLI). */
  processMetrics?: boolean;
  /** Where log lines go (after redaction). Default process.stdout. */
  logStream?: LogSink;
  /**
   * Secrets this process knows besides the postback secret (the upstream access token, store
   * passwords): removed from every log line wherever they appear.
   */
  logSecrets?: readonly string[];
}

export interface TradingGateway {
  readonly app: FastifyInstance;
  /** Keeps market.fills equal to the trade book (with a broker client). */
  readonly fills: FillRecorder | undefined;
  /** End-of-day account snapshots (with a broker client). */
  readonly snapshots: AccountSnapshots | undefined;
  readonly config: ResolvedGatewayConfig;
  /** The gateway's own keys (scopes trade, admin). */
  readonly keys: ApiKeyStore<GatewayScope>;
  /** The postback receiver, when `config.postbacks` was given. */
  readonly postbacks: PostbackReceiver | undefined;
  /** http://host:port once started. */
  readonly url: string;
  start(): Promise<string>;
  stop(): Promise<void>;
}

/** What createTradingGateway is handed besides its config (TradingGatewayDeps documents each). */
const DEPS = {
  ...HTTP_SERVICE_DEPS,
  broker: { kind: 'given' },
} as const satisfies OptionsSchema;

function checkDeps(deps: TradingGatewayDeps, config: ResolvedGatewayConfig): void {
  readOptions(DEPS, deps, {
    where: 'trading-gateway deps',
    fail: (message) => new TradingGatewayError('CONFIG_INVALID', message),
  });
  if (config.postbacks && !deps.kafkaBrokers?.length) {
    throw new TradingGatewayError(
      'CONFIG_INVALID',
      'trading-gateway: config "postbacks" needs deps "kafkaBrokers"',
    );
  }
}

function registerHealth(app: FastifyInstance, deps: TradingGatewayDeps, postbacksOn: boolean): void {
  app.get(
    '/healthz',
    {
      config: { scope: 'open' },
      schema: routeDoc({
        operationId: 'getHealth',
        tags: ['status'],
        summary: 'Liveness: the process answers (never waits on the store or the service)',
        auth: 'open',
        responses: {
          200: {
            title: 'GatewayHealth',
            type: 'object',
            required: ['status', 'uptimeSec', 'trading', 'postbacks'],
            properties: {
              status: { type: 'string', enum: ['ok'] },
              uptimeSec: { type: 'integer', description: 'seconds since the process started' },
              trading: {
                type: 'string',
                enum: ['enabled', 'disabled'],
                description: 'a broker client is configured',
              },
              postbacks: {
                type: 'string',
                enum: ['enabled', 'disabled'],
                description: 'the postback receiver runs',
              },
            },
          },
        },
      }),
    },
    async () => ({
      status: 'ok',
      uptimeSec: Math.round(process.uptime()),
      trading: deps.broker ? 'enabled' : 'disabled',
      postbacks: postbacksOn ? 'enabled' : 'disabled',
    }),
  );
}

/**
 * Every answer says `X-Content-Type-Options: nosniff`. Answers carry caller text (a path in a
 * 404, a field in a 400, a correlation id); a browser that sniffs a type could run such text
 * as HTML or script where the declared type did not say so. The order-update stream writes its
 * own headers past these hooks and sets it there (postbacks/stream-routes.ts).
 */
function installNoSniff(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    return payload;
  });
}

/** The postback receiver, its order-update stream and reconciliation, on the gateway's app. */
function registerPostbacks(
  app: FastifyInstance,
  deps: TradingGatewayDeps,
  options: PostbackConfig,
  owners: OrderOwners,
  metrics: GatewayMetrics,
  recorder: FillRecorder | undefined,
): Promise<PostbackReceiver> {
  return postbackRoutes(app, {
    ...options,
    // A key sees the updates of its own orders; a supervisor (trade + admin) every order's.
    visibility: {
      restrictTo: (request) =>
        request.apiKey && !isSupervisor(request.apiKey.scopes) ? request.apiKey.keyId : undefined,
      cachedOwner: (orderId) => owners.cachedOwner(orderId),
      ownersOf: (orderIds) => owners.ownersOf(orderIds),
    },
    // A stored update that shows a fill makes the recorder read the trade book.
    ...(recorder ? { onStored: (events) => recorder.noteOrderEvents(events) } : {}),
    registry: metrics.registry,
    store: deps.store,
    kafkaBrokers: deps.kafkaBrokers ?? [],
    ...(deps.broker ? { broker: deps.broker } : {}),
  });
}

type TimedLanes = (labels: ConstructorParameters<typeof TimedLane>[2]) => TimedLane;

/** The audit trail, with its journal and drain when `config.auditJournal` is given. */
async function openAuditTrail(
  options: ResolvedAuditJournalConfig | undefined,
  timed: TimedLanes,
  metrics: GatewayMetrics,
  now: () => number,
): Promise<{ audit: AuditLog; journal: AuditJournal | undefined; drain: AuditDrain | undefined }> {
  const lanes = { read: 'audit_read', write: 'audit_write' } as const;
  if (!options) return { audit: new AuditLog(timed(lanes), now), journal: undefined, drain: undefined };
  const journal = await AuditJournal.open(options);
  const drain = new AuditDrain(journal, storedAuditRows(timed({ read: 'audit_drain' })), options);
  const source = { journal: () => journal.stats(), drain: () => drain.stats(), maxRows: options.maxRows };
  registerAuditJournalMetrics(metrics.registry, () => source, now);
  return { audit: new AuditLog(timed(lanes), now, undefined, journal), journal, drain };
}

/** How long stop() lets the drain write the journal's rows before leaving them for the next start. */
const STOP_DRAIN_MS = 5_000;

export async function createTradingGateway(
  config: TradingGatewayConfig,
  deps: TradingGatewayDeps,
): Promise<TradingGateway> {
  const resolved = resolveGatewayConfig(config);
  checkDeps(deps, resolved);
  const now = deps.now ?? Date.now;
  const lane = deps.store.internal;
  const metrics = createGatewayMetrics(deps.processMetrics ?? false);
  const keys = new ApiKeyStore<GatewayScope>(lane, {
    table: GATEWAY_KEYS_TABLE,
    scopes: GATEWAY_SCOPES,
    cacheMs: resolved.keyCacheMs,
    now,
  });
  const postbackConfig = resolved.postbacks;
  const logSecrets = [...(deps.logSecrets ?? []), ...(postbackConfig ? [postbackConfig.secret] : [])];
  const timed: TimedLanes = (labels) => new TimedLane(lane, metrics.orderStore, labels);
  const { audit, journal, drain } = await openAuditTrail(resolved.auditJournal, timed, metrics, now);
  const instruments = new InstrumentReference(timed({ read: 'instrument_read' }), deps.instruments ?? [], {
    now,
  });
  const owners = new OrderOwners(timed({ read: 'owner_read' }));
  owners.notePlacements(journal?.recoveredRows().map((r) => r.row) ?? []);
  const desk = deps.broker
    ? new OrderDesk(
        audit,
        new PreTradeChecks(resolved.trading, instruments, deps.broker, now),
        owners,
        metrics,
        now,
      )
    : undefined;

  // Trading bodies are checked by a strict compiler of their own (orders/strict-validation.ts).
  const app = Fastify(
    serviceAppOptions(resolved, { stream: deps.logStream ?? process.stdout, secrets: () => logSecrets }),
  );
  installNoSniff(app);
  installErrorHandler(app, fromBrokerError);
  installMethodNotAllowed(app);
  installAuth(app, keys, createAuthLimits(resolved, now), {
    defaultScope: GATEWAY_DEFAULT_SCOPE,
  });
  installHttpMetrics(app, metrics);
  if (resolved.docs) {
    await registerOpenApiDocs(app, {
      title: 'feedpipe trading gateway',
      description:
        "Order execution with pre-trade checks (placements and every modification, on the order's resulting state), idempotence and audit; the account; postbacks and the order-update stream. Send a gateway API key (scope trade) in the x-api-key header: keys of the query API are not valid here. A key sees and acts on its own orders, correlation ids, audit rows and order updates (another key's order is 404); a supervisor key (scopes trade and admin) on every key's, and only it may lift the kill switch.",
    });
  }
  registerHealth(app, deps, postbackConfig !== undefined);
  const tradeDeps = { broker: deps.broker, desk };
  const recorder = deps.broker
    ? new FillRecorder(lane, deps.broker, resolved.fills, metrics.fills, now)
    : undefined;
  const snapshots = deps.broker ? new AccountSnapshots(lane, deps.broker, metrics.fills, now) : undefined;
  registerRouteSpecs(app, tradeDeps, [
    ...ORDER_ROUTES,
    ...accountRoutes(audit),
    ...fillRoutes({ store: lane, recorder, snapshots, now }),
  ]);
  registerKeyRoutes(app, keys);
  const postbacks = postbackConfig
    ? await registerPostbacks(app, deps, postbackConfig, owners, metrics, recorder)
    : undefined;

  let url = '';
  return {
    app,
    fills: recorder,
    snapshots,
    config: resolved,
    keys,
    postbacks,
    get url() {
      return url;
    },
    async start() {
      const address = await app.listen({ host: resolved.host, port: resolved.port });
      url = address.replace('[::1]', '127.0.0.1');
      // Catching up on fills runs in the background: the gateway answers meanwhile.
      void recorder?.start();
      if (resolved.fills.snapshotAtMs !== undefined) snapshots?.schedule(resolved.fills.snapshotAtMs);
      return url;
    },
    async stop() {
      snapshots?.stop();
      await app.close();
      await journal?.whenDrained(STOP_DRAIN_MS);
      await drain?.close();
      await journal?.close();
      await recorder?.close();
      keys.close();
    },
  };
}
