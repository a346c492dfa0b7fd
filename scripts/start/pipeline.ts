/**
 * The pipeline proper for `npm start`: the feed ingestor (socket -> Kafka), the sink (Kafka ->
 * ClickHouse) and the ops server with the pipeline's metrics, health and readiness.
 */

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Credentials } from '@feedpipe/credentials';
import {
  createFeedIngestor,
  type FeedCredentials,
  type FeedIngestor,
  type OpsRouteServer,
  startOpsRouteServer,
} from '@feedpipe/feed-ingestor';
import { createSink, type Sink } from '@feedpipe/feed-sink';
import {
  diskGuardSettings,
  type OpsServer,
  registerProcessMetrics,
  startOpsServer,
} from '@feedpipe/service-kit';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { log } from './log.js';
import type { StartEnv } from './start-env.js';
import { onExit } from './stop-order.js';

export interface PipelineInputs {
  brokers: string[];
  store: Store;
  registry: Registry;
  feedUrl: string;
  credentials: FeedCredentials;
  tokens: Credentials;
  instruments: string[];
  dataDir: string;
  env: StartEnv;
}

export interface Pipeline {
  ingestor: FeedIngestor;
  sink: Sink;
  ops: OpsServer;
  /** The ingestor's subscription route (docs/operations.md, "Subscriptions while running"). */
  subscriptions: { route: OpsRouteServer; key: string };
}

/** Feed connections of the ingestor. */
export const FEED_CONNECTIONS = 5;

export async function startPipeline(inputs: PipelineInputs): Promise<Pipeline> {
  const { brokers, registry, tokens } = inputs;
  // One process runs every part: its memory, heap, event-loop lag and GC are exported once, here.
  registerProcessMetrics(registry);
  // The sink's disk guard reads STORE_MIN_FREE_* as `feed-sink run` does (docs/configuration.md).
  const diskGuard = diskGuardSettings(inputs.env);
  const sink = createSink(
    {
      brokers,
      diskGuard,
    },
    {
      store: inputs.store,
      registry,
      log: (m) => log(`sink: ${m}`),
    },
  );
  const ingestor = createFeedIngestor(
    {
      feedUrl: inputs.feedUrl,
      brokers,
      connections: FEED_CONNECTIONS,
      instruments: { trade: inputs.instruments, ohlc: inputs.instruments.slice(0, 100) },
      stateFile: join(inputs.dataDir, 'feed-ingestor.state.json'),
      // Instruments added or removed while running, kept across restarts of npm start.
      subscriptionsFile: join(inputs.dataDir, 'feed-ingestor.universe-changes.json'),
      // The feed write-ahead log, as compose keeps it: a start after a crash produces what Kafka
      // had not acknowledged (docs/operations.md, "The feed write-ahead log").
      wal: { dir: join(inputs.dataDir, 'feed-wal') },
      // What `feed-ingestor replay` replays (docs/operations.md, "Replaying the past"); off unless asked.
      captureFile: inputs.env.CAPTURE_FILE,
    },
    {
      credentials: inputs.credentials,
      registry,
      log: (m) => log(`ingestor: ${m}`),
    },
  );
  await ingestor.start();
  onExit('ingestor', () => ingestor.stop());
  // A renewed token: every feed connection reconnects with it and re-subscribes.
  tokens.onChange((token) => ingestor.updateToken(token));
  await sink.start();
  onExit('sink', () => sink.stop());
  const ops = await startOpsServer({
    registries: [registry],
    port: inputs.env.METRICS_PORT,
    ready: () => readiness(ingestor, sink),
  });
  onExit('ops', () => ops.close());
  // The ingestor's ops route, with a key of this start (printed in the banner, like the API keys).
  const opsKey = randomBytes(24).toString('base64url');
  const route = await startOpsRouteServer({
    ingestor,
    key: opsKey,
    port: inputs.env.INGESTOR_OPS_PORT,
    log: (m) => log(`ingestor: ${m}`),
  });
  onExit('subscriptions', () => route.close());
  return { ingestor, sink, ops, subscriptions: { route, key: opsKey } };
}

/** Ready = market data flowing into Kafka and the sink in its group (not merely sockets open). */
function readiness(ingestor: FeedIngestor, sink: Sink): { ready: boolean; detail: unknown } {
  const feed = ingestor.readiness();
  const reasons = sink.stats().consumerUp
    ? feed.reasons
    : [...feed.reasons, 'the sink consumer is not in its group: nothing is stored'];
  return {
    ready: reasons.length === 0,
    detail: { reasons, market: feed.market, connections: ingestor.stats().connections },
  };
}
