/**
 * The variables `npm start` reads for itself (docs/configuration.md, "`npm start`"), read once at
 * start through the env reader of the services' CLIs, so a bad value fails the start with the
 * same wording as `feed-ingestor run` and `feed-sink run` give it, before anything is started. A variable a
 * service also reads keeps that service's spec unless npm start gives it another default (any
 * free port instead of the service's fixed one); the parts that a service's own loader reads from
 * the environment (the real feed's SVC_* variables, the store's) are not repeated here.
 */

import { type Env, type EnvSchema, type EnvValues, loadEnv } from '@feedpipe/config';
import { CREDENTIALS_ENV } from '@feedpipe/credentials';
import { CodedError } from '@feedpipe/errors';
import { INGESTOR_ENV } from '@feedpipe/feed-ingestor';
import { QUERY_API_ENV } from '@feedpipe/query-api';
import { DISK_GUARD_ENV } from '@feedpipe/service-kit';
import { GATEWAY_ENV } from '@feedpipe/trading-gateway';

/** A port npm start picks by itself unless told: every part of it runs on one machine. */
function anyFreePort(description: string) {
  return { type: 'integer', min: 0, max: 65_535, default: 0, description } as const;
}

export const START_ENV = {
  DATA_DIR: { type: 'string', default: '.data', description: 'local broker data, chDB and the feed WAL' },
  DEMO_INSTRUMENTS: {
    type: 'integer',
    min: 1,
    max: 25_000,
    default: 5_000,
    description: 'with the simulator: how many of its INX_EQ instruments to subscribe',
  },
  KAFKA_BROKERS: {
    type: 'list',
    entry: INGESTOR_ENV.KAFKA_BROKERS.entry,
    unset: 'starts a local Apache Kafka broker',
    description: 'an existing Kafka cluster',
  },
  KAFKA_METRICS_PORT: anyFreePort("the local broker's metrics (JMX exporter)"),
  SVC_FEED_URL: {
    type: 'url',
    protocols: INGESTOR_ENV.SVC_FEED_URL.protocols,
    unset: 'starts the simulator',
    description: 'the real feed',
  },
  SVC_BASE_URL: CREDENTIALS_ENV.SVC_BASE_URL,
  SVC_AUTH_URL: CREDENTIALS_ENV.SVC_AUTH_URL,
  SIM_TOKEN_LIFETIME_S: {
    type: 'integer',
    min: 60,
    max: 86_400,
    default: 900,
    description: "with the simulator: its tokens' lifetime",
  },
  METRICS_PORT: anyFreePort("the pipeline's /metrics, /healthz, /readyz"),
  INGESTOR_OPS_PORT: anyFreePort("the ingestor's subscription route"),
  CAPTURE_FILE: INGESTOR_ENV.CAPTURE_FILE,
  QUERY_API_HOST: QUERY_API_ENV.QUERY_API_HOST,
  QUERY_API_PORT: QUERY_API_ENV.QUERY_API_PORT,
  QUERY_API_CLICKHOUSE_PORT: {
    type: 'integer',
    min: 0,
    max: 65_535,
    // 8124 leaves 8123 to a ClickHouse server on the same machine.
    default: 8124,
    description: "ClickHouse's HTTP protocol at the root of this port (JDBC)",
  },
  QUERY_API_INSTRUMENTS_FILE: QUERY_API_ENV.QUERY_API_INSTRUMENTS_FILE,
  TRADING_GATEWAY_HOST: GATEWAY_ENV.TRADING_GATEWAY_HOST,
  TRADING_GATEWAY_PORT: GATEWAY_ENV.TRADING_GATEWAY_PORT,
  POSTBACK_SECRET: { ...GATEWAY_ENV.POSTBACK_SECRET, unset: 'random per start' },
  QUOTES_FILE: {
    type: 'string',
    default: 'services/history-loader/universe/quotes-demo.json',
    description: 'instruments whose quotes are polled',
  },
  QUOTE_POLLER: { type: 'enum', values: ['on', 'off'], default: 'on', description: '`off`: no quote poller' },
  // The sink's disk guard, as `feed-sink run` reads it.
  ...DISK_GUARD_ENV,
} as const satisfies EnvSchema;

export type StartEnv = EnvValues<typeof START_ENV>;

export class StartConfigError extends CodedError<'CONFIG_INVALID'> {}

/** Reads npm start's variables, naming every bad one (CONFIG_INVALID), as the services' CLIs do. */
export function readStartEnv(env: Env): StartEnv {
  return loadEnv(
    START_ENV,
    env,
    (problems) =>
      new StartConfigError('CONFIG_INVALID', `invalid configuration:\n  - ${problems.join('\n  - ')}`),
  );
}
