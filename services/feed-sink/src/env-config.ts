/**
 * Configuration of the sink process from environment variables (docs/configuration.md, feed-sink),
 * validated once with a message per bad value. The topic variables are the ingestor's: both
 * services must name the same topics.
 */
import { type Env, type EnvSchema, readEnv } from '@feedpipe/config';
import { FEED_TOPICS_ENV, type FeedTopics, feedTopicsOf, feedTopicsProblem } from '@feedpipe/contracts';
import { DISK_GUARD_ENV, type DiskGuardEnv, diskGuardSettings } from '@feedpipe/service-kit';
import { STORE_ENV, type StoreConfig, storeConfigOf } from '@feedpipe/store';
import { SinkError } from './errors.js';

export interface SinkEnvConfig {
  brokers: string[];
  topics: FeedTopics;
  /** CLICKHOUSE_URL, else embedded chDB in `$DATA_DIR/chdb` (DATA_DIR default `.data`). */
  store: StoreConfig;
  /** METRICS_HOST: address of /metrics, /healthz, /readyz. Default 127.0.0.1; 0.0.0.0 lets Prometheus in. */
  metricsHost: string;
  /** METRICS_PORT. Default 9465. */
  metricsPort: number;
  /** STORE_MIN_FREE_PERCENT, STORE_MIN_FREE_BYTES, STORE_DISK_CHECK_MS: the disk guard. */
  diskGuard: DiskGuardEnv;
}

/** Every variable `feed-sink run` reads (docs/configuration.md, feed-sink). */
export const SINK_ENV = {
  KAFKA_BROKERS: {
    type: 'list',
    entry: { pattern: /^[\w.-]+:\d+$/, allowed: 'host:port' },
    required: true,
    description: 'Kafka brokers',
  },
  ...FEED_TOPICS_ENV,
  ...STORE_ENV,
  METRICS_PORT: { type: 'integer', min: 0, max: 65_535, default: 9465, description: 'ops endpoint port' },
  METRICS_HOST: { type: 'string', default: '127.0.0.1', description: 'address of the ops endpoint' },
  ...DISK_GUARD_ENV,
} as const satisfies EnvSchema;

export function loadSinkEnv(env: Env = process.env): SinkEnvConfig {
  const { values: v, problems } = readEnv(SINK_ENV, env);
  const topics = feedTopicsOf(v);
  const topicsProblem = feedTopicsProblem(topics);
  if (topicsProblem) problems.push(topicsProblem);
  if (problems.length > 0) {
    throw new SinkError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return {
    brokers: v.KAFKA_BROKERS,
    topics,
    store: storeConfigOf(v),
    // Loopback unless the operator opens it (compose sets METRICS_HOST=0.0.0.0 for Prometheus).
    metricsHost: v.METRICS_HOST,
    metricsPort: v.METRICS_PORT,
    diskGuard: diskGuardSettings(v),
  };
}
