/** Configuration of the query API: every key documented with its default, validated once. */

import { type OptionsSchema, section } from '@feedpipe/config';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import {
  type HttpServiceConfig,
  type ResolvedHttpServiceConfig,
  readServiceConfig,
  resolveHttpServiceConfig,
} from '@feedpipe/service-http';
import {
  HOT_TIER_CONFIG,
  type HotTierConfig,
  type ResolvedHotTierConfig,
} from '../hot-tier/hot-tier-config.js';

export type { LogLevel } from '@feedpipe/service-http';

/** The shared HTTP keys (HttpServiceConfig: host, port `QUERY_API_PORT` default 8080, ...) and the API's own sections. */
export interface QueryApiConfig extends HttpServiceConfig {
  /**
   * A second port that speaks ClickHouse's HTTP protocol at its root (`/`, `/ping`), for SQL tools
   * that cannot be given a path (the ClickHouse JDBC driver reads a URL path as a database name).
   * Same host, keys, guard and limits as `/clickhouse`. 0 = any free port. Default: none.
   */
  clickhousePort?: number;
  /**
   * Listen with SO_REUSEPORT (Linux; Node >= 22.12): several API processes share the port and the
   * kernel spreads connections over them (QUERY_API_WORKERS, workers/serve-workers.ts). Default false.
   */
  reusePort?: boolean;
  /** Limits of the analytics routes. */
  query?: {
    /** ClickHouse max_execution_time of analytics queries, seconds. Default 30. */
    maxExecutionSec?: number;
    /** Rows per page of the ticks route when no limit is given. Default 10,000. */
    defaultTickPage?: number;
    /** Largest ticks page. Default 1,000,000. */
    maxTickPage?: number;
    /** Most bars one request may ask for (range / interval). Default 100,000. */
    maxBars?: number;
    /** Largest list (instruments, movers). Default 10,000. */
    maxListRows?: number;
    /**
     * Requests of one key reading the store at once (the analytics, status and SQL routes under
     * /v1, not the live stream); one more is refused with 429 RATE_LIMITED. Default 4.
     */
    maxConcurrentPerKey?: number;
    /**
     * Bytes of query results the API holds for responses at once, over all requests; a query that
     * does not fit is refused with 503 OVERLOADED and Retry-After. Default 1 GiB.
     */
    resultMemoryBytes?: number;
    /**
     * Reserved from that budget before a query runs when results arrive whole (embedded chDB) and
     * the query names no max_result_bytes; the reservation then shrinks to the result. Default 64 MiB.
     */
    resultReserveBytes?: number;
    /**
     * How long a query waits for room in `resultMemoryBytes` (for earlier results to be sent)
     * before it is answered 503 OVERLOADED, ms; 0 refuses at once. Default 10,000.
     */
    resultWaitMs?: number;
  };
  /** Limits of POST /v1/sql, applied by ClickHouse itself (readonly = 1). */
  sql?: {
    /** max_execution_time, seconds. Default 30. */
    maxExecutionSec?: number;
    /** max_memory_usage, bytes. Default 2 GiB. */
    maxMemoryBytes?: number;
    /** max_result_rows (result_overflow_mode = throw). Default 1,000,000. */
    maxResultRows?: number;
    /** max_result_bytes. Default 512 MiB. */
    maxResultBytes?: number;
    /** Longest SQL text accepted. Default 100,000 characters. */
    maxSqlLength?: number;
  };
  /** Cache of bar and candle responses (bounded LRU with single-flight for identical requests). */
  cache?: {
    /** Entries kept. Default 5,000; 0 disables the cache. */
    maxEntries?: number;
    /** Bytes kept. Default 64 MiB. */
    maxBytes?: number;
    /** TTL of a response whose time range reaches into the last `finalAfterMs`. Default 1,000 ms. */
    liveTtlMs?: number;
    /** TTL of a response about a range older than that (its data no longer changes). Default 600,000 ms. */
    finalTtlMs?: number;
    /** How late ticks may still arrive for a past range. Default 120,000 ms. */
    finalAfterMs?: number;
  };
  /**
   * Kafka topics of the live stream; each defaults to @feedpipe/contracts' DEFAULT_FEED_TOPICS
   * (feed.trades, feed.ohlc, feed.reference, feed.status). The CLI sets them from TOPIC_*.
   */
  topics?: Partial<FeedTopics>;
  /** Live stream (Server-Sent Events). */
  stream?: {
    /** Concurrent stream clients. Default 200. */
    maxClients?: number;
    /** Concurrent stream clients of one API key, its share of `maxClients` (429 beyond it). Default 20. */
    maxClientsPerKey?: number;
    /** Instruments one client may follow. Default 1,000. */
    maxInstruments?: number;
    /** Events buffered for a slow client before further events are dropped (and counted). Default 10,000. */
    maxQueuedEvents?: number;
    /** Comment line sent this often so proxies keep the connection. Default 15,000 ms. */
    heartbeatMs?: number;
  };
  /** Recent bars in memory (hot-tier/hot-tier-config.ts). */
  hotTier?: HotTierConfig;
}

export interface ResolvedConfig extends ResolvedHttpServiceConfig {
  /** The ClickHouse-protocol port, or undefined for none. */
  clickhousePort: number | undefined;
  reusePort: boolean;
  query: {
    maxExecutionSec: number;
    defaultTickPage: number;
    maxTickPage: number;
    maxBars: number;
    maxListRows: number;
    maxConcurrentPerKey: number;
    resultMemoryBytes: number;
    resultReserveBytes: number;
    resultWaitMs: number;
  };
  sql: {
    maxExecutionSec: number;
    maxMemoryBytes: number;
    maxResultRows: number;
    maxResultBytes: number;
    maxSqlLength: number;
  };
  cache: {
    maxEntries: number;
    maxBytes: number;
    liveTtlMs: number;
    finalTtlMs: number;
    finalAfterMs: number;
  };
  topics: FeedTopics;
  stream: {
    maxClients: number;
    maxClientsPerKey: number;
    maxInstruments: number;
    maxQueuedEvents: number;
    heartbeatMs: number;
  };
  hotTier: ResolvedHotTierConfig;
}

/** The API's own keys, with their ranges and defaults (QueryApiConfig documents each). */
const QUERY_API_CONFIG = {
  // Unset: no ClickHouse-protocol port.
  clickhousePort: { kind: 'integer', min: 0, max: 65_535 },
  reusePort: { kind: 'boolean', default: false },
  query: section({
    maxExecutionSec: { kind: 'integer', min: 1, max: 3_600, default: 30 },
    defaultTickPage: { kind: 'integer', min: 1, max: 100_000_000, default: 10_000 },
    maxTickPage: { kind: 'integer', min: 1, max: 100_000_000, default: 1_000_000 },
    maxBars: { kind: 'integer', min: 1, max: 10_000_000, default: 100_000 },
    maxListRows: { kind: 'integer', min: 1, max: 1_000_000, default: 10_000 },
    maxConcurrentPerKey: { kind: 'integer', min: 1, max: 10_000, default: 4 },
    resultMemoryBytes: {
      kind: 'integer',
      min: 1_000_000,
      max: Number.MAX_SAFE_INTEGER,
      default: 1024 ** 3,
    },
    resultReserveBytes: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: 64 * 1024 ** 2 },
    resultWaitMs: { kind: 'integer', min: 0, max: 300_000, default: 10_000 },
  }),
  sql: section({
    maxExecutionSec: { kind: 'integer', min: 1, max: 3_600, default: 30 },
    maxMemoryBytes: {
      kind: 'integer',
      min: 1_000_000,
      max: Number.MAX_SAFE_INTEGER,
      default: 2 * 1024 ** 3,
    },
    maxResultRows: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: 1_000_000 },
    maxResultBytes: { kind: 'integer', min: 1_000, max: Number.MAX_SAFE_INTEGER, default: 512 * 1024 ** 2 },
    maxSqlLength: { kind: 'integer', min: 10, max: 10_000_000, default: 100_000 },
  }),
  cache: section({
    maxEntries: { kind: 'integer', min: 0, max: 1_000_000, default: 5_000 },
    maxBytes: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, default: 64 * 1024 ** 2 },
    liveTtlMs: { kind: 'integer', min: 0, max: 86_400_000, default: 1_000 },
    finalTtlMs: { kind: 'integer', min: 0, max: 86_400_000, default: 600_000 },
    finalAfterMs: { kind: 'integer', min: 0, max: 86_400_000, default: 120_000 },
  }),
  topics: section({
    trades: { kind: 'string', default: DEFAULT_FEED_TOPICS.trades },
    ohlc: { kind: 'string', default: DEFAULT_FEED_TOPICS.ohlc },
    reference: { kind: 'string', default: DEFAULT_FEED_TOPICS.reference },
    status: { kind: 'string', default: DEFAULT_FEED_TOPICS.status },
  }),
  stream: section({
    maxClients: { kind: 'integer', min: 1, max: 100_000, default: 200 },
    maxClientsPerKey: { kind: 'integer', min: 1, max: 100_000, default: 20 },
    maxInstruments: { kind: 'integer', min: 1, max: 1_000_000, default: 1_000 },
    maxQueuedEvents: { kind: 'integer', min: 1, max: 10_000_000, default: 10_000 },
    heartbeatMs: { kind: 'integer', min: 100, max: 3_600_000, default: 15_000 },
  }),
  hotTier: section(HOT_TIER_CONFIG),
} as const satisfies OptionsSchema;
const W = 'query-api config';

export function resolveConfig(config: QueryApiConfig = {}): ResolvedConfig {
  const v = readServiceConfig(QUERY_API_CONFIG, config, W);
  const { query } = v;
  return {
    ...resolveHttpServiceConfig(v, W, 8080),
    clickhousePort: v.clickhousePort,
    reusePort: v.reusePort,
    query: {
      ...query,
      // A default page never above the largest, a reservation never above the whole budget.
      defaultTickPage: Math.min(query.defaultTickPage, query.maxTickPage),
      resultReserveBytes: Math.min(query.resultReserveBytes, query.resultMemoryBytes),
    },
    sql: v.sql,
    cache: v.cache,
    topics: v.topics,
    stream: v.stream,
    hotTier: v.hotTier,
  };
}
