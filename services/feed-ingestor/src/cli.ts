/**
 * feed-ingestor run      live feed -> Kafka (env: SVC_FEED_URL, SVC_CLIENT_ID, SVC_TOKEN_SOURCE + its variables,
 *                        SVC_AUTH_TYPE, KAFKA_BROKERS, UNIVERSE_FILE, INGESTOR_CONNECTIONS, ...)
 * feed-ingestor sink     moved: the sink is services/feed-sink (`npx feed-sink run`); says so, exits 2
 * feed-ingestor replay <capture-file> | --from-store [--speed 1x|10x|max] [--from T] [--to T]
 *                        [--topic-prefix P | --into-live]   the past -> Kafka (replay/replay-cli.ts)
 *
 * `run` serves /metrics, /healthz and /readyz on METRICS_PORT. SIGINT/SIGTERM stop cleanly: the
 * ingestor first delivers what it holds.
 *
 * Subscriptions change while `run` runs: edits of the universe files (UNIVERSE_WATCH_MS), and the
 * ops route /v1/subscriptions on INGESTOR_OPS_PORT when INGESTOR_OPS_KEY(_FILE) is set
 * (docs/operations.md, "Subscriptions while running").
 */
import { startCredentials } from '@feedpipe/credentials';
import { onStopSignals, registerProcessMetrics, startOpsServer } from '@feedpipe/service-kit';
import { Registry } from 'prom-client';
import { loadIngestorEnv } from './env-config.js';
import { createFeedIngestor } from './ingestor.js';
import { startOpsRouteServer } from './ops/ops-route-server.js';
import { REPLAY_USAGE, replayCommand } from './replay/replay-cli.js';
import { UniverseWatch } from './subscriptions/universe-watch.js';

/** The exit status of a process that lost leadership (EX_TEMPFAIL: start it again, as a standby). */
const EXIT_FENCED = 75;

const USAGE = `usage: feed-ingestor run\n${REPLAY_USAGE}`;

async function run(): Promise<void> {
  const config = loadIngestorEnv();
  const registry = new Registry();
  // The account's token (renewed ahead of expiry by the configured source); a new one reconnects
  // every connection with it.
  const tokens = await startCredentials(config.tokens, {
    registry,
    log: (m) => process.stderr.write(`feed-ingestor: ${m}\n`),
  });
  const ingestor = createFeedIngestor(
    {
      feedUrl: config.feedUrl,
      brokers: config.brokers,
      topics: config.topics,
      connections: config.connections,
      workers: config.workers,
      socketThread: config.socketThread,
      instruments: { trade: config.tradeInstruments, ohlc: config.ohlcInstruments },
      captureFile: config.captureFile,
      silentAfterMs: config.silentAfterMs,
      staleAfterMs: config.staleAfterMs,
      stateFile: config.stateFile,
      subscriptionsFile: config.subscriptionsFile,
      wal: config.wal,
      leadership: config.leadership,
    },
    {
      // The component itself: every (re)connect asks it for the token, and a refused token (807) renews.
      credentials: { ...config.credentials, token: tokens },
      registry,
      // Losing leadership is final for a process: it stops without sending and exits, and its
      // supervisor starts it again as a standby (leader/ingestor-leadership.ts says why).
      onFenced: (why: string) => void fencedExit(why),
    },
  );
  const fencedExit = async (why: string) => {
    process.stderr.write(`feed-ingestor: fenced (${why}); stopping without sending, exit ${EXIT_FENCED}\n`);
    await ingestor.stop().catch(() => undefined);
    process.exit(EXIT_FENCED);
  };
  // This process runs the ingestor alone: its process metrics go with the ingestor's.
  registerProcessMetrics(ingestor.registry);
  await ingestor.start();
  tokens.onChange((token) => ingestor.updateToken(token));
  const ops = await startOpsServer({
    registries: [ingestor.registry],
    host: config.metricsHost,
    port: config.metricsPort,
    ready: () => {
      const verdict = ingestor.readiness();
      return { ready: verdict.ready, detail: { ...verdict, connections: ingestor.stats().connections } };
    },
  });
  const log = (m: string): void => void process.stderr.write(`feed-ingestor: ${m}\n`);
  // Changes while running: the ops route (with a key) and edits of the universe files.
  const route = config.opsKey
    ? await startOpsRouteServer({
        ingestor,
        key: config.opsKey,
        host: config.opsHost,
        port: config.opsPort,
        log,
      })
    : undefined;
  const watch = new UniverseWatch({
    files: config.universeFiles,
    intervalMs: config.universeWatchMs,
    apply: (kind, ids) => ingestor.setUniverse(kind, ids),
    log,
  });
  if (config.universeWatchMs > 0) watch.start();
  const held = ingestor.subscriptions().held;
  process.stdout.write(
    `feed-ingestor: ${held.trade} trade / ${held.ohlc} OHLC instruments over ${config.connections} connections; metrics ${ops.url}/metrics; ${route ? `subscriptions ${route.url}/v1/subscriptions` : 'no ops route (INGESTOR_OPS_KEY unset)'}\n`,
  );
  onStopSignals(async () => {
    watch.stop();
    await route?.close();
    await tokens.stop();
    await ingestor.stop();
    await ops.close();
  });
}

/**
 * The sink is its own service now (services/feed-sink). The old command stays only to say so: this
 * service does not import another, so it cannot run the sink itself.
 */
async function sink(): Promise<void> {
  process.stderr.write(
    'feed-ingestor: the Kafka -> ClickHouse sink is its own service now; run `npx feed-sink run` (same environment)\n',
  );
  process.exit(2);
}

async function replay(args: string[]): Promise<void> {
  const result = await replayCommand(args);
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
