export { INGESTOR_ENV, type IngestorEnvConfig, loadIngestorEnv } from './env-config.js';
export { IngestorError, type IngestorErrorCode } from './errors.js';
export {
  AttemptBudget,
  type AttemptBudgetOptions,
  type AttemptTicket,
  sharedAttemptBudget,
} from './feed/attempt-budget.js';
export {
  CONNECTION_STATES,
  type ConnectionAction,
  type ConnectionEvent,
  type ConnectionEventType,
  type ConnectionState,
  type LinkState,
  type RetryCause,
  type Transition,
  transition as connectionTransition,
} from './feed/connection-machine.js';
export {
  ConnectionPool,
  type ConnectionPoolOptions,
  type ConnectionSnapshot,
  type FeedConnectionTuning,
  MAX_CONNECTIONS_PER_CLIENT,
} from './feed/connection-pool.js';
export {
  type ClassifyOptions,
  classifyFeedFailure,
  type FailureClass,
  type FailureVerdict,
  type FeedFailure,
  TOKEN_ERROR_CODES,
} from './feed/failure-class.js';
export { FeedConnection, type FeedCredentials } from './feed/feed-connection.js';
export { lastMarketStatus, loneErrorCode } from './feed/frame-scan.js';
export type { SubscriptionKind } from './feed/subscription-book.js';
export { TokenRecovery, type TokenRecoveryOptions } from './feed/token-recovery.js';
export type { FeedErrorEvent } from './feed-observations.js';
export { GapLedger, type GapLedgerOptions } from './gaps/gap-ledger.js';
export { type GapInterval, GapTracker, type OpenGap, type PreviousRun } from './gaps/gap-tracker.js';
export { RunState, type RunStateOptions, readPreviousRun } from './gaps/run-state.js';
export {
  createFeedIngestor,
  type FeedIngestor,
  type IngestorStats,
  type SubscriptionsSnapshot,
} from './ingestor.js';
export type { FeedIngestorOptions } from './ingestor-options.js';
export type { ControlMessage } from './leader/control-messages.js';
export type { IngestorRole, LeadershipOptions } from './leader/ingestor-leadership.js';
export { createLeadershipMetrics, type LeadershipMetrics } from './leader/leadership-metrics.js';
export {
  type OpsRouteServer,
  type OpsRouteServerOptions,
  startOpsRouteServer,
} from './ops/ops-route-server.js';
export { MAX_IDS_PER_REQUEST, SUBSCRIPTIONS_PATH } from './ops/subscription-route.js';
export { LatencyRecorder } from './pipeline/latency-recorder.js';
export {
  assessFeedReadiness,
  type FeedReadiness,
  type FeedReadinessInput,
  MARKET_STATUS_OPEN,
  type MarketState,
  marketStateOf,
} from './readiness.js';
export {
  type ReplayOptions,
  type ReplayResult,
  replayCapture,
} from './replay/capture-pipeline-replay.js';
export { REPLAY_ENV, replayCommand } from './replay/replay-cli.js';
export { parseReplayRange, type ReplayRange } from './replay/replay-range.js';
export { parseReplaySpeed, type ReplaySpeed } from './replay/replay-speed.js';
export { DEFAULT_REPLAY_TOPIC_PREFIX, replayTopics } from './replay/replay-target.js';
export { type ReplayRunOptions, type ReplayRunResult, type ReplaySource, runReplay } from './replay.js';
export type { ChangeOutcome, ChangeSource } from './subscriptions/live-subscriptions.js';
export { readUniverseIds } from './subscriptions/universe-file.js';
export { UniverseWatch, type UniverseWatchOptions } from './subscriptions/universe-watch.js';
export { FeedWal, type FeedWalStats } from './wal/feed-wal.js';
export type { IngestorWalStats } from './wal/ingestor-wal.js';
export { createWalMetrics, type WalMetrics } from './wal/wal-metrics.js';
export {
  type FeedWalOptions,
  resolveWalOptions,
  WAL_FSYNC_POLICIES,
  type WalFsyncPolicy,
} from './wal/wal-options.js';
export { readWalStreams, type WalChunk, type WalStream } from './wal/wal-reader.js';
export { addPackTrades, tradesInWal } from './wal/wal-trades.js';
