/**
 * feed-sink run     Kafka -> ClickHouse (env: KAFKA_BROKERS, TOPIC_*, CLICKHOUSE_URL or DATA_DIR,
 *                   METRICS_HOST, METRICS_PORT, STORE_MIN_FREE_*; docs/configuration.md)
 *
 * Applies the ClickHouse migrations and the retention of STORE_TTL_*_DAYS (packages/store: the sink
 * owns the store's schema in a deployment, so it is the one process that sets the TTLs), joins the
 * consumer group and serves /metrics, /healthz and
 * /readyz on METRICS_PORT (ready while the consumer is in its group). SIGINT/SIGTERM stop cleanly:
 * the sink inserts and commits what it buffered, then leaves the group.
 */
import { onStopSignals, registerProcessMetrics, startOpsServer } from '@feedpipe/service-kit';
import { applyRetention, createStore, retentionFromEnv, runMigrations } from '@feedpipe/store';
import { loadSinkEnv } from './env-config.js';
import { createSink } from './kafka-sink.js';

const USAGE = 'usage: feed-sink run\n';

async function run(): Promise<void> {
  const config = loadSinkEnv();
  const retention = retentionFromEnv(process.env);
  const store = createStore(config.store);
  await runMigrations(store.internal);
  for (const change of await applyRetention(store.internal, retention)) {
    process.stdout.write(
      `feed-sink: retention of ${change.table}: ${change.from} -> ${change.to} days (0: kept)\n`,
    );
  }
  const sink = createSink(
    {
      brokers: config.brokers,
      topics: config.topics,
      diskGuard: config.diskGuard,
    },
    {
      store,
    },
  );
  await sink.start();
  registerProcessMetrics(sink.registry);
  const ops = await startOpsServer({
    registries: [sink.registry],
    host: config.metricsHost,
    port: config.metricsPort,
    // Not ready while the consumer is out of its group (after a broker restart): nothing is stored.
    ready: () => {
      const stats = sink.stats();
      return { ready: stats.consumerUp, detail: stats };
    },
  });
  process.stdout.write(`feed-sink: writing to ${store.location}; metrics ${ops.url}/metrics\n`);
  onStopSignals(async () => {
    await sink.stop();
    await ops.close();
    await store.close();
  });
}

const [command] = process.argv.slice(2);
if (command !== 'run') {
  process.stderr.write(USAGE);
  process.exit(2);
}
run().catch((error: unknown) => {
  process.stderr.write(`feed-sink: ${(error as Error).message}\n`);
  process.exit(1);
});
