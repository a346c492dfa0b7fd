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

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { pipelineStatusSource } from './pipeline-status.js';
import { printBanner, startFlowLog } from './start/banner.js';
import { startTradingGatewayProcess } from './start/gateway-process.js';
import { startHistoryLoad } from './start/history.js';
import { createStartKeys, registerPostbackUrl, startKeyName, startQueryApi } from './start/http-services.js';
import { startInstrumentMaster } from './start/instruments.js';
import { startKafka } from './start/kafka.js';
import { redact } from './start/log.js';
import { startPipeline } from './start/pipeline.js';
import { startQuotePoller } from './start/quotes.js';
import { readStartEnv } from './start/start-env.js';
import { isStopping, onExit, stopAll } from './start/stop-order.js';
import { openStore } from './start/store.js';
import { startTokens, startUpstream } from './start/upstream.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

process.on('SIGINT', () => void stopAll('SIGINT'));
process.on('SIGTERM', () => void stopAll('SIGTERM'));

/** Each part starts in turn and registers its stop; they stop in the reverse order (start/stop-order.ts). */
async function main(): Promise<void> {
  const env = readStartEnv(process.env);
  const dataDir = resolve(env.DATA_DIR);
  const kafka = await startKafka(dataDir, env);
  if (isStopping()) return;
  const { store, env: storeEnv } = await openStore(dataDir);
  const upstream = await startUpstream(kafka.brokers, env);
  if (isStopping()) return;

  const registry = new Registry();
  const { tokens, credentials } = await startTokens(upstream, registry);
  const { ingestor, sink, ops, subscriptions } = await startPipeline({
    brokers: kafka.brokers,
    store,
    registry,
    feedUrl: upstream.feedUrl,
    credentials,
    tokens,
    instruments: upstream.instruments,
    dataDir,
    env,
  });
  // Before the HTTP services: a fresh start has market.instruments filled when its URLs print.
  await startInstrumentMaster({ baseUrl: upstream.baseUrl, store, registry });
  if (isStopping()) return;
  const loader = startHistoryLoad({
    baseUrl: upstream.baseUrl,
    clientId: credentials.clientId,
    tokens,
    store,
    registry,
    repoRoot,
  });

  // One limiter per account: the poller's quote calls and the gateway's share the 1 request/s.
  const accountLimiter = startQuotePoller({
    baseUrl: upstream.baseUrl,
    clientId: credentials.clientId,
    tokens,
    brokers: kafka.brokers,
    store,
    registry,
    repoRoot,
    env,
  });

  const status = pipelineStatusSource({ ingestor, sink, loader });
  onExit('status-sampler', async () => status.stop());
  const query = await startQueryApi({
    store,
    brokers: kafka.brokers,
    status: status.source,
    storeSecrets: storeEnv.secrets,
    env,
  });
  const keyName = startKeyName();
  const trading = await startTradingGatewayProcess({
    store,
    brokers: kafka.brokers,
    baseUrl: upstream.baseUrl,
    authUrl: upstream.authUrl,
    clientId: credentials.clientId,
    tokens,
    storeSecrets: storeEnv.secrets,
    dataDir,
    rateLimiter: accountLimiter,
    keyName,
    env,
  });
  const keys = await createStartKeys(query.api, keyName, trading.keys);
  const postbackNote = await registerPostbackUrl(upstream.sim, tokens, trading.url, trading.postbackSecret);

  printBanner({
    sim: upstream.sim,
    feedUrl: upstream.feedUrl,
    brokers: kafka.brokers,
    kafkaNote: kafka.note,
    kafkaMetricsUrl: kafka.metricsUrl,
    store: { mode: store.mode, location: store.location, sharedLogin: storeEnv.sharedLogin },
    tokenSource: tokens.status().source,
    instruments: upstream.instruments.length,
    apiUrl: query.url,
    clickhouseUrl: query.clickhouseUrl,
    gatewayUrl: trading.url,
    opsUrl: ops.url,
    subscriptions: { url: `${subscriptions.route.url}/v1/subscriptions`, key: subscriptions.key },
    keys,
    postbackNote,
  });
  startFlowLog(ingestor, sink, loader);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`start failed: ${redact((error as Error).message)}\n`);
  await stopAll('error', 1);
});
