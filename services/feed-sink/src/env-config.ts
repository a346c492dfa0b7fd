/**
 * Configuration of the sink process from environment variables (docs/configuration.md, feed-sink),
 * validated once with a message per bad value. The topic variables are the ingestor's: both
 * services must name the same topics.
 */
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import { SinkError } from './errors.js';

export interface SinkEnvConfig {
  brokers: string[];
  topics: FeedTopics;
  /** CLICKHOUSE_URL: a ClickHouse server; undefined for embedded chDB in `${dataDir}/chdb`. */
  clickhouseUrl: string | undefined;
  /** DATA_DIR. Default `.data`. */
  dataDir: string;
  /** METRICS_HOST: address of /metrics, /healthz, /readyz. Default 127.0.0.1; 0.0.0.0 lets Prometheus in. */
  metricsHost: string;
  /** METRICS_PORT. Default 9465. */
  metricsPort: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadSinkEnv(env: Env = process.env): SinkEnvConfig {
  const problems: string[] = [];
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) problems.push('KAFKA_BROKERS is required');
  for (const b of brokers)
    if (!/^[\w.-]+:\d+$/.test(b)) problems.push(`KAFKA_BROKERS entry "${b}" must be host:port`);
  const rawPort = env.METRICS_PORT;
  let metricsPort = 9465;
  if (rawPort !== undefined && rawPort !== '') {
    metricsPort = Number(rawPort);
    if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65_535)
      problems.push(`METRICS_PORT must be an integer in 0..65535, got "${rawPort}"`);
  }
  const topics: FeedTopics = {
    trades: env.TOPIC_TRADES || DEFAULT_FEED_TOPICS.trades,
    ohlc: env.TOPIC_OHLC || DEFAULT_FEED_TOPICS.ohlc,
    reference: env.TOPIC_REFERENCE || DEFAULT_FEED_TOPICS.reference,
    status: env.TOPIC_STATUS || DEFAULT_FEED_TOPICS.status,
  };
  if (new Set(Object.values(topics)).size !== 4) problems.push('the four TOPIC_* names must differ');
  if (problems.length > 0) {
    throw new SinkError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return {
    brokers,
    topics,
    clickhouseUrl: env.CLICKHOUSE_URL || undefined,
    dataDir: env.DATA_DIR || '.data',
    // Loopback unless the operator opens it (compose sets METRICS_HOST=0.0.0.0 for Prometheus).
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    metricsPort,
  };
}
