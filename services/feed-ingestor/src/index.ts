export {
  DEFAULT_FEED_TOPICS,
  type FeedTopics,
  prefixedTopics,
  TOPIC_KINDS,
  type TopicKind,
  topicKindOf,
} from '@feedpipe/contracts';
export { Backoff, type BackoffOptions } from './backoff.js';
export { type IngestorEnvConfig, loadIngestorEnv, readUniverseIds } from './env-config.js';
export { IngestorError, type IngestorErrorCode } from './errors.js';
export {
  AttemptBudget,
  type AttemptBudgetOptions,
  type AttemptTicket,
  sharedAttemptBudget,
} from './feed/attempt-budget.js';
export {
  ConnectionPool,
  type ConnectionPoolOptions,
  type ConnectionSnapshot,
  type FeedConnectionTuning,
  MAX_CONNECTIONS_PER_CLIENT,
  type SubscriptionKind,
} from './feed/connection-pool.js';
export {
  type ClassifyOptions,
  classifyFeedFailure,
  type FailureClass,
  type FailureVerdict,
  type FeedFailure,
} from './feed/failure-class.js';
export { type ConnectionState, FeedConnection, type FeedCredentials } from './feed/feed-connection.js';
export { lastMarketStatus } from './feed/market-status-scan.js';
export { type OpsServer, startOpsServer } from './http-server.js';
export {
  createFeedIngestor,
  type FeedIngestor,
  type FeedIngestorOptions,
  type IngestorStats,
} from './ingestor.js';
export { ensureTopics } from './kafka-admin.js';
export { LatencyRecorder } from './pipeline/latency-recorder.js';
export {
  assessFeedReadiness,
  type FeedReadiness,
  type FeedReadinessInput,
  MARKET_STATUS_OPEN,
  type MarketState,
  marketStateOf,
} from './readiness.js';
export { type ReplayOptions, type ReplayResult, replayCapture } from './replay.js';
export { createSink, type Sink, type SinkOptions, type SinkStats } from './sink/kafka-sink.js';
export { SINK_TABLES } from './sink/sink-tables.js';
