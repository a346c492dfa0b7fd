/**
 * Every variable `query-api` reads, typed with its default (docs/configuration.md, query-api),
 * checked once at start by the CLI. The ClickHouse login variables are checked together, for their
 * combinations, by @feedpipe/store's `storeConfigFromEnv`.
 */
import { type Env, type EnvSchema, type EnvValues, readEnv } from '@feedpipe/config';
import { FEED_TOPICS_ENV, feedTopicsOf, feedTopicsProblem } from '@feedpipe/contracts';
import { HTTP_SERVER_ENV } from '@feedpipe/service-kit';
import { STORE_CALLER_LOGIN_ENV, STORE_ENV } from '@feedpipe/store';
import { QueryApiError } from '../errors.js';

export const QUERY_API_ENV = {
  ...HTTP_SERVER_ENV,
  QUERY_API_PORT: {
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 8080,
    description: 'listen port (0 = any free port)',
  },
  QUERY_API_HOST: { type: 'string', default: '127.0.0.1', description: 'listen address' },
  QUERY_API_CLICKHOUSE_PORT: {
    type: 'integer',
    min: 0,
    max: 65_535,
    unset: 'no second port (the protocol is under `/clickhouse`)',
    description: "ClickHouse's HTTP protocol at the root of this port, for tools that cannot be given a path",
  },
  ...STORE_ENV,
  ...STORE_CALLER_LOGIN_ENV,
  KAFKA_BROKERS: {
    type: 'list',
    unset: 'no live stream (`/v1/stream`)',
    description: 'Kafka brokers of the feed topics',
  },
  // The feed's topics, named by the same variables as the ingestor and the sink (defaults from
  // @feedpipe/contracts), so a pipeline on custom topic names streams them live too.
  ...FEED_TOPICS_ENV,
  QUERY_API_INSTRUMENTS_FILE: {
    type: 'string',
    unset: 'the instrument master only: symbols and segments of market.instruments',
    description:
      'JSON or CSV of securityId, symbol, segment: overrides the symbol and segment the instrument master gives an id',
  },
  QUERY_API_BOOTSTRAP_KEY_NAME: {
    type: 'string',
    unset: 'no key created',
    description: 'at start, create a `read` key under this name and print it once',
  },
  QUERY_API_URL: {
    type: 'string',
    unset:
      'key commands open the store here; while it is held (embedded chDB of a running API) they use the API at QUERY_API_HOST:QUERY_API_PORT',
    description:
      'key commands (`create-key`, `list-keys`, `revoke-key`): the running API to manage the keys of (as `--url`)',
  },
  QUERY_API_ADMIN_KEY: {
    type: 'string',
    unset: 'key commands work on the local store only',
    description: 'key commands against a running API: a key with the `admin` scope (never printed or logged)',
  },
  QUERY_API_WORKERS: {
    type: 'integer',
    min: 1,
    max: 64,
    default: 1,
    description:
      'API processes sharing the port (SO_REUSEPORT), each with its own hot tier; more than 1 needs CLICKHOUSE_URL',
  },
  // The hot tier (hot-tier/hot-tier-config.ts): recent bars in memory, with KAFKA_BROKERS.
  QUERY_API_HOT_TIER_HOURS: {
    type: 'integer',
    min: 0,
    max: 744,
    default: 24,
    description: 'hours the hot window reaches back, then to UTC midnight (0 = no hot tier)',
  },
  QUERY_API_HOT_TIER_MAX_INSTRUMENTS: {
    type: 'integer',
    min: 1,
    max: 1_000_000,
    default: 5_000,
    description: 'instruments the hot tier holds (the first by security id)',
  },
  QUERY_API_HOT_TIER_MAX_TRADES_PER_DAY: {
    type: 'integer',
    min: 1,
    max: 100_000_000,
    default: 2_000_000,
    description: 'trades of one instrument-day held; beyond, that day comes from ClickHouse',
  },
  QUERY_API_HOT_TIER_MAX_BYTES: {
    type: 'integer',
    min: 1_000_000,
    max: Number.MAX_SAFE_INTEGER,
    default: 2_147_483_648,
    description: 'bytes of trades and kept bars the hot tier holds; beyond, it closes and ClickHouse answers',
  },
  QUERY_API_HOT_TIER_MAX_ROW_TEXT_BYTES: {
    type: 'integer',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    default: 268_435_456,
    description:
      'bytes of 1 s and 1 min bar rows the hot tier keeps as text; beyond, rows are written per answer',
  },
  LOG_LEVEL: {
    type: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug'],
    default: 'info',
    description: 'log level',
  },
} as const satisfies EnvSchema;

export type QueryApiEnv = EnvValues<typeof QUERY_API_ENV>;

/** Reads and checks the environment; CONFIG_INVALID names every bad variable (never a secret). */
export function queryApiEnv(env: Env): QueryApiEnv {
  const { values, problems } = readEnv(QUERY_API_ENV, env, { ownPrefixes: ['QUERY_API_'] });
  const topicsProblem = feedTopicsProblem(feedTopicsOf(values));
  if (topicsProblem) problems.push(topicsProblem);
  if (problems.length > 0) throw new QueryApiError('CONFIG_INVALID', problems.join('; '));
  return values;
}
