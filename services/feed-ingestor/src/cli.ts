/**
 * feed-ingestor run      live feed -> Kafka (env: SVC_FEED_URL, SVC_CLIENT_ID, SVC_ACCESS_TOKEN,
 *                        SVC_AUTH_TYPE, KAFKA_BROKERS, UNIVERSE_FILE, INGESTOR_CONNECTIONS, ...)
 * feed-ingestor sink     Kafka -> ClickHouse (env: KAFKA_BROKERS, CLICKHOUSE_URL or DATA_DIR)
 * feed-ingestor replay <capture-file> [--speed recorded|max]   capture -> Kafka (env: KAFKA_BROKERS)
 *
 * Each serves /metrics, /healthz and /readyz on METRICS_PORT. SIGINT/SIGTERM stop cleanly: the
 * ingestor first delivers what it holds, the sink inserts and commits what it buffered.
 */
import { parseArgs } from 'node:util';
import { createStore, runMigrations } from '@feedpipe/store';
import { loadIngestorEnv } from './env-config.js';
import { startOpsServer } from './http-server.js';
import { createFeedIngestor } from './ingestor.js';
import { replayCapture } from './replay.js';
import { createSink } from './sink/kafka-sink.js';

const USAGE = 'usage: feed-ingestor run | sink | replay <capture-file> [--speed recorded|max]\n';

function onStop(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\nstopping (${signal})...\n`);
    setTimeout(() => process.exit(1), 30_000).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stop failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

async function run(): Promise<void> {
  const config = loadIngestorEnv();
  const ingestor = createFeedIngestor({
    feedUrl: config.feedUrl,
    credentials: config.credentials,
    brokers: config.brokers,
    topics: config.topics,
    connections: config.connections,
    workers: config.workers,
    instruments: { trade: config.tradeInstruments, ohlc: config.ohlcInstruments },
    captureFile: config.captureFile,
    silentAfterMs: config.silentAfterMs,
  });
  await ingestor.start();
  const ops = await startOpsServer({
    registries: [ingestor.registry],
    host: config.metricsHost,
    port: config.metricsPort,
    ready: () => {
      const verdict = ingestor.readiness();
      return { ready: verdict.ready, detail: { ...verdict, connections: ingestor.stats().connections } };
    },
  });
  process.stdout.write(
    `feed-ingestor: ${config.tradeInstruments.length} trade / ${config.ohlcInstruments.length} OHLC instruments over ${config.connections} connections; metrics ${ops.url}/metrics\n`,
  );
  onStop(async () => {
    await ingestor.stop();
    await ops.close();
  });
}

async function sink(): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  if (brokers.length === 0) throw new Error('KAFKA_BROKERS is required');
  const store = createStore({
    url: process.env.CLICKHOUSE_URL || undefined,
    dataDir: `${process.env.DATA_DIR || '.data'}/chdb`,
  });
  await runMigrations(store.client);
  const consumer = createSink({ brokers, store });
  await consumer.start();
  const ops = await startOpsServer({
    registries: [consumer.registry],
    // Loopback unless the operator opens it (compose sets METRICS_HOST=0.0.0.0 for Prometheus).
    host: process.env.METRICS_HOST || '127.0.0.1',
    port: Number(process.env.METRICS_PORT ?? 9465),
    // Not ready while the consumer is out of its group (after a broker restart): nothing is stored.
    ready: () => {
      const stats = consumer.stats();
      return { ready: stats.consumerUp, detail: stats };
    },
  });
  process.stdout.write(`feed-ingestor sink: writing to ${store.location}; metrics ${ops.url}/metrics\n`);
  onStop(async () => {
    await consumer.stop();
    await ops.close();
    await store.close();
  });
}

async function replay(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { speed: { type: 'string', default: 'max' } },
  });
  const file = positionals[0];
  if (!file) throw new Error(USAGE);
  if (values.speed !== 'max' && values.speed !== 'recorded')
    throw new Error('--speed must be recorded or max');
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  if (brokers.length === 0) throw new Error('KAFKA_BROKERS is required');
  const result = await replayCapture({ file, brokers, speed: values.speed });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const [command, ...rest] = process.argv.slice(2);
const commands: Record<string, () => Promise<void>> = { run, sink, replay: () => replay(rest) };
const selected = command ? commands[command] : undefined;
if (!selected) {
  process.stderr.write(USAGE);
  process.exit(2);
}
selected().catch((error: unknown) => {
  process.stderr.write(`feed-ingestor: ${(error as Error).message}\n`);
  process.exit(1);
});
