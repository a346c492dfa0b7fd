export { INGESTOR_ENV, type IngestorEnvConfig, loadIngestorEnv } from './env-config.js';
export { IngestorError, type IngestorErrorCode } from './errors.js';
export type { FeedCredentials } from './feed/feed-connection.js';
export {
  createFeedIngestor,
  type FeedIngestor,
  type IngestorStats,
  type SubscriptionsSnapshot,
} from './ingestor.js';
export type { FeedIngestorConfig, FeedIngestorDeps } from './ingestor-options.js';
export type { LeadershipOptions } from './leader/leadership-options.js';
export { type OpsRouteServer, startOpsRouteServer } from './ops/ops-route-server.js';
export { SUBSCRIPTIONS_PATH } from './ops/subscription-route.js';
export { replayCapture } from './replay/capture-pipeline-replay.js';
export { REPLAY_ENV } from './replay/replay-cli.js';
export { type ReplayRunResult, runReplay } from './replay.js';
export { FeedWal } from './wal/feed-wal.js';
export { createWalMetrics } from './wal/wal-metrics.js';
export { resolveWalOptions, WAL_FSYNC_POLICIES, type WalFsyncPolicy } from './wal/wal-options.js';
export { tradesInWal } from './wal/wal-trades.js';
