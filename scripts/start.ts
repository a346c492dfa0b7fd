/**
 * `npm start`: the whole pipeline in one process on embedded defaults, as ARCHITECTURE.md composes it
 * (embedded chDB binds one data directory per process, so everything that touches ClickHouse shares
 * one store here). Prints where everything is, and stops it all cleanly on SIGINT/SIGTERM.
 *
 * Switches to real parts: KAFKA_BROKERS (a Kafka cluster instead of the local broker),
 * CLICKHOUSE_URL (a ClickHouse server instead of chDB; CLICKHOUSE_SQL_USER and its password for the
 * user callers' queries run as there), SVC_FEED_URL + SVC_CLIENT_ID + a token source
 * (SVC_TOKEN_SOURCE and its variables: the real feed instead of the simulator). On the simulator the
 * token comes from its test account's PIN and TOTP secret and is renewed ahead of expiry
 * (SIM_TOKEN_LIFETIME_S, default 900 s, so renewals are seen in a demo).
 */

import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrokerClient } from '@feedpipe/broker-api';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '@feedpipe/broker-sim';
import { FEED_TABLES } from '@feedpipe/contracts';
import {
  type Credentials,
  type CredentialsConfig,
  credentialsConfigFromEnv,
  startCredentials,
} from '@feedpipe/credentials';
import { createFeedIngestor, type FeedCredentials, loadIngestorEnv } from '@feedpipe/feed-ingestor';
import { createSink } from '@feedpipe/feed-sink';
import { createHistoryLoader, type HistoryLoader, pipelineLoadOptions } from '@feedpipe/history-loader';
import { startLocalKafka } from '@feedpipe/local-kafka';
import { createQueryApi, type QueryApi, redactLogText, storeConfigFromEnv } from '@feedpipe/query-api';
import { registerProcessMetrics, startOpsServer } from '@feedpipe/service-kit';
import { createStore, runMigrations } from '@feedpipe/store';
import { createTradingGateway, type TradingGateway } from '@feedpipe/trading-gateway';
import { Registry } from 'prom-client';
import { pipelineStatusSource } from './pipeline-status.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const demoInstruments = Number(process.env.DEMO_INSTRUMENTS ?? 5_000);
const stopTasks: Array<{ name: string; stop: () => Promise<void> }> = [];
/** Per part; the whole stop stays under 10 s even if one part hangs. */
const STOP_TIMEOUT_MS = 2_500;
let stopping = false;

function onExit(name: string, stop: () => Promise<void>): void {
  stopTasks.push({ name, stop });
}

async function stopAll(reason: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\nstopping (${reason})...\n`);
  const hardStop = setTimeout(() => {
    process.stderr.write('stop took longer than 9 s; exiting\n');
    process.exit(1);
  }, 9_000);
  hardStop.unref();
  for (const task of stopTasks.reverse()) {
    const started = Date.now();
    // Each part gets a bounded time, so one that hangs cannot keep the others (the broker last of
    // all) from stopping in order.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
    });
    const outcome = await Promise.race([task.stop().then(() => 'stopped' as const), timedOut]).catch(
      (error: unknown) => `failed: ${(error as Error).message}`,
    );
    clearTimeout(timer);
    process.stderr.write(
      outcome === 'stopped'
        ? `  stopped ${task.name} in ${Date.now() - started} ms\n`
        : outcome === 'timeout'
          ? `  ${task.name} did not stop within ${STOP_TIMEOUT_MS} ms; going on\n`
          : `  stop ${task.name}: ${outcome}\n`,
    );
  }
  process.stderr.write('stopped.\n');
  process.exit(code);
}

process.on('SIGINT', () => void stopAll('SIGINT'));
process.on('SIGTERM', () => void stopAll('SIGTERM'));

/** Secrets this run knows (upstream token, postback secret): no line this script prints carries them. */
const knownSecrets: string[] = [];
/** The account's token; its current and recent tokens are scrubbed from every line too. */
let tokens: Credentials | undefined;
const secretsNow = (): string[] => [...knownSecrets, ...(tokens?.secrets() ?? [])];
const log = (m: string) => process.stderr.write(`${redactLogText(m, secretsNow())}\n`);

/** A URL for a person to read: scheme, host and path, never a query string or user info. */
function printable(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(demoInstruments) || demoInstruments < 1 || demoInstruments > 25_000) {
    throw new Error('DEMO_INSTRUMENTS must be an integer in 1..25000');
  }
  // Kafka: a cluster by URL, or the local broker.
  let brokers: string[];
  let kafkaNote: string;
  if (process.env.KAFKA_BROKERS) {
    brokers = process.env.KAFKA_BROKERS.split(',').map((b) => b.trim());
    kafkaNote = 'external (KAFKA_BROKERS)';
  } else {
    log('starting the local Kafka broker...');
    const kafka = await startLocalKafka({ dataDir: join(dataDir, 'kafka') });
    onExit('kafka', () => kafka.stop());
    brokers = kafka.brokers;
    kafkaNote = `local broker (log ${join(dataDir, 'kafka', 'kafka.log')})`;
  }
  if (stopping) return;

  // ClickHouse: a server by URL, or embedded chDB.
  const storeEnv = storeConfigFromEnv(process.env, join(dataDir, 'chdb'));
  knownSecrets.push(...storeEnv.secrets);
  const store = createStore(storeEnv.config);
  onExit('store', () => store.close());
  await runMigrations(store.internal);

  // Upstream: the real service by URL, or the simulator (REST + feed over one market model).
  let feedUrl: string;
  let credentials: FeedCredentials;
  let tokenConfig: CredentialsConfig;
  let sim: Simulator | undefined;
  let instruments: string[];
  if (process.env.SVC_FEED_URL) {
    // The same validation as `feed-ingestor run`, with the brokers this runner already has.
    const config = loadIngestorEnv({ ...process.env, KAFKA_BROKERS: brokers.join(',') });
    feedUrl = config.feedUrl;
    credentials = config.credentials;
    tokenConfig = config.tokens;
    if (config.tradeInstruments.length === 0) throw new Error('UNIVERSE_FILE is required with SVC_FEED_URL');
    instruments = config.tradeInstruments;
  } else {
    log('starting the simulator...');
    const lifetimeS = Number(process.env.SIM_TOKEN_LIFETIME_S ?? 900);
    if (!Number.isInteger(lifetimeS) || lifetimeS < 60 || lifetimeS > 86_400) {
      throw new Error('SIM_TOKEN_LIFETIME_S must be an integer in 60..86400');
    }
    // One token per account, as the service keeps it: a renewal ends the previous token at once.
    sim = await createSimulator({
      seed: 1,
      feed: { port: 0, tradesPerSecond: 2, tickIntervalMs: 100 },
      rest: restServerHook({ port: 0, tokenLifetimeMs: lifetimeS * 1000, oneTokenPerAccount: true }),
    });
    const simulator = sim;
    onExit('simulator', () => simulator.close());
    const account = SIM_TEST_ACCOUNTS[0];
    if (!account) throw new Error('the simulator has no test account');
    feedUrl = sim.feed.url;
    credentials = { clientId: account.clientId, token: '', authType: 2 };
    // The TOTP source, as a long unattended run would use it: PIN + TOTP secret -> a new token
    // ahead of each expiry (the SVC_TOKEN_* timing variables apply).
    tokenConfig = credentialsConfigFromEnv(
      {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^SVC_(TOKEN|TOTP_SKEW)/.test(k))),
        SVC_TOKEN_SOURCE: 'totp',
        SVC_PIN: account.pin,
        SVC_TOTP_SECRET: account.totpSecret,
        SVC_AUTH_URL: sim.rest?.authUrl,
        SVC_BASE_URL: sim.rest?.baseUrl,
      },
      account.clientId,
    );
    instruments = sim.model.universe
      .filter((i) => i.exchangeSegment === 'INX_EQ')
      .slice(0, demoInstruments)
      .map((i) => String(i.securityId));
  }
  if (stopping) return;

  const registry = new Registry();
  tokens = await startCredentials(tokenConfig, { registry, log });
  const tokenSource = tokens;
  onExit('credentials', () => tokenSource.stop());
  // The component itself: every (re)connect asks it for the token, and a refused token (807) renews.
  credentials = { ...credentials, token: tokenSource };
  // One process runs every part: its memory, heap, event-loop lag and GC are exported once, here.
  registerProcessMetrics(registry, 'feedpipe_');
  const sink = createSink({ brokers, store, registry, log: (m) => log(`sink: ${m}`) });
  const ingestor = createFeedIngestor({
    feedUrl,
    credentials,
    brokers,
    registry,
    connections: 5,
    instruments: { trade: instruments, ohlc: instruments.slice(0, 100) },
    stateFile: join(dataDir, 'feed-ingestor.state.json'),
    log: (m) => log(`ingestor: ${m}`),
  });
  await ingestor.start();
  onExit('ingestor', () => ingestor.stop());
  // A renewed token: every feed connection reconnects with it and re-subscribes.
  tokens.onChange((token) => ingestor.updateToken(token));
  await sink.start();
  onExit('sink', () => sink.stop());
  const ops = await startOpsServer({
    registries: [registry],
    port: Number(process.env.METRICS_PORT ?? 0),
    // Ready = market data flowing into Kafka and the sink in its group (not merely sockets open).
    ready: () => {
      const feed = ingestor.readiness();
      const reasons = sink.stats().consumerUp
        ? feed.reasons
        : [...feed.reasons, 'the sink consumer is not in its group: nothing is stored'];
      return {
        ready: reasons.length === 0,
        detail: { reasons, market: feed.market, connections: ingestor.stats().connections },
      };
    },
  });
  onExit('ops', () => ops.close());

  // A short history load for the demo universe, at the service's full allowed rate.
  let loader: HistoryLoader | undefined;
  const baseUrl = sim?.rest?.baseUrl ?? process.env.SVC_BASE_URL;
  // What it loads is the universe file's plan (demo.json: services/history-loader/src/pipeline-load.ts).
  const loadOptions = baseUrl
    ? pipelineLoadOptions(
        process.env,
        { baseUrl, clientId: credentials.clientId, accessToken: tokenSource },
        repoRoot,
      )
    : undefined;
  if (loadOptions) {
    loader = createHistoryLoader(loadOptions, { clickhouse: store.internal, registry });
    const historyLoader = loader;
    onExit('history-loader', () => historyLoader.stop());
    void historyLoader.run().then(
      (result) => log(`history-loader: ${JSON.stringify(result)}`),
      (error: unknown) => log(`history-loader failed: ${(error as Error).message}`),
    );
  }

  // The query API: analytics, SQL, live stream, status page. Read-only: no trading credentials.
  const status = pipelineStatusSource({ ingestor, sink, loader });
  onExit('status-sampler', async () => status.stop());
  const api: QueryApi = await createQueryApi(
    {
      host: process.env.QUERY_API_HOST ?? '127.0.0.1',
      port: Number(process.env.QUERY_API_PORT ?? 8080),
      logLevel: false,
    },
    {
      store,
      kafkaBrokers: brokers,
      pipelineStatus: status.source,
      logSecrets: storeEnv.secrets,
      // The simulator's symbols, so the status page's search finds instruments by name as well as id.
      instruments: (sim?.model.universe ?? []).map((i) => ({
        securityId: i.securityId,
        segment: i.exchangeSegment,
        symbol: i.symbol,
      })),
    },
  );
  const apiUrl = await api.start();
  onExit('query-api', () => api.stop());

  // The trading gateway: orders (through the typed client), postbacks, order updates. The only part
  // given the service's credentials, with keys of its own.
  const authUrl = sim?.rest?.authUrl ?? process.env.SVC_AUTH_URL;
  const broker = baseUrl
    ? new BrokerClient({
        baseUrl,
        clientId: credentials.clientId,
        accessToken: tokenSource,
        ...(authUrl ? { authUrl } : {}),
      })
    : undefined;
  const postbackSecret = process.env.POSTBACK_SECRET ?? randomBytes(24).toString('base64url');
  knownSecrets.push(postbackSecret);
  const gateway: TradingGateway = await createTradingGateway(
    {
      host: process.env.TRADING_GATEWAY_HOST ?? '127.0.0.1',
      port: Number(process.env.TRADING_GATEWAY_PORT ?? 8090),
      logLevel: false,
    },
    {
      store,
      kafkaBrokers: brokers,
      logSecrets: [...tokens.secrets(), ...storeEnv.secrets],
      postbacks: { secret: postbackSecret, walDir: join(dataDir, 'postback-wal') },
      ...(broker ? { broker } : {}),
    },
  );
  const gatewayUrl = await gateway.start();
  onExit('trading-gateway', () => gateway.stop());

  // Separate keys, so a notebook or the status page never holds the power to trade or manage keys;
  // each service has its own: a query API key is nothing to the gateway, and the other way round.
  const keyName = `npm-start-${new Date().toISOString()}`;
  const readKey = await api.keys.create(`${keyName}-read`, ['read']);
  const adminKey = await api.keys.create(`${keyName}-admin`, ['admin']);
  const tradeKey = await gateway.keys.create(`${keyName}-trade`, ['trade']);
  const gatewayAdminKey = await gateway.keys.create(`${keyName}-gateway-admin`, ['admin']);
  let postbackNote = 'register the postback URL with the service (web console) to receive order updates';
  if (sim?.rest) {
    // As the web console would: the simulator posts every order update of this account here.
    const response = await fetch(`${sim.rest.baseUrl}/v2/postback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'access-token': await tokens.getToken() },
      body: JSON.stringify({ postbackUrl: `${gatewayUrl}/postbacks/orders/${postbackSecret}` }),
    });
    postbackNote = response.ok
      ? 'the simulator posts order updates here -> Kafka orders.updates + market.order_events'
      : `postback registration refused (HTTP ${response.status})`;
  }

  process.stdout.write(
    [
      '',
      'feedpipe is running',
      `  upstream    ${sim ? `simulator: REST ${printable(`${sim.rest?.baseUrl}/v2`)}, feed ${printable(sim.feed.url)}` : `real service: feed ${printable(feedUrl)}`}`,
      `  Kafka       ${brokers.join(',')}  (${kafkaNote})`,
      `  ClickHouse  ${store.mode === 'embedded' ? 'embedded chDB' : 'server'} at ${store.location}${storeEnv.sharedLogin ? ' (no CLICKHOUSE_SQL_USER: callers query as the CLICKHOUSE_URL user)' : ''}`,
      `  token       source ${tokens.status().source}, renewed ahead of expiry when the source can (metric feedpipe_token_expiry_seconds)`,
      `  ingestor    ${instruments.length} instruments over 5 connections -> feed.trades, feed.ohlc, feed.reference, feed.status`,
      `  query API   ${apiUrl}   docs ${apiUrl}/docs   (read-only: analytics, SQL, live stream, status page)`,
      `  gateway     ${gatewayUrl}   docs ${gatewayUrl}/docs   (orders, account, postbacks, order updates)`,
      '  API keys    shown once, send them in the x-api-key header; each service has its own:',
      `    query API read      ${readKey.key}   (analytics, SQL, live stream, status page)`,
      `    query API admin     ${adminKey.key}   (create, list, revoke keys: ${apiUrl}/v1/admin/keys)`,
      `    gateway trade       ${tradeKey.key}   (orders and account at ${gatewayUrl})`,
      `    gateway admin       ${gatewayAdminKey.key}   (the gateway's keys: ${gatewayUrl}/v1/admin/keys)`,
      `  status      ${apiUrl}/status   (sign in with the read key; it is kept in the browser tab, never in the URL)`,
      `  postbacks   ${gatewayUrl}/postbacks/orders/<secret>: ${postbackNote}`,
      `  metrics     pipeline ${ops.url}/metrics   API ${apiUrl}/metrics   gateway ${gatewayUrl}/metrics   health ${ops.url}/healthz   ready ${ops.url}/readyz`,
      `  notebook    pandas.read_parquet('${apiUrl}/v1/instruments/<id>/bars?from=<ISO time>&interval=1m&format=parquet', storage_options={'x-api-key': '<key>'})`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );

  const statusTimer = setInterval(async () => {
    const stats = ingestor.stats();
    const sinkStats = sink.stats();
    const open = stats.connections.filter((c) => c.state === 'open').length;
    const history = loader?.status();
    log(
      `flowing: ${stats.produced} records to Kafka, ${sinkStats.inserted[FEED_TABLES.ticks.name] ?? 0} ticks in ClickHouse, ${open}/5 connections open` +
        (history
          ? `; history ${history.unitsFinished}/${history.unitsTotal} units, ${history.rowsWritten} rows`
          : ''),
    );
  }, 10_000);
  statusTimer.unref();
  onExit('status', async () => clearInterval(statusTimer));
}

main().catch(async (error: unknown) => {
  process.stderr.write(`start failed: ${redactLogText((error as Error).message, secretsNow())}\n`);
  await stopAll('error', 1);
});
