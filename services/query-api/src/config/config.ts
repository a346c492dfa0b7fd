/** Configuration of the query API: every key documented with its default, validated once. */
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import {
  bool,
  HTTP_SERVICE_KEYS,
  type HttpServiceConfig,
  int,
  type ResolvedHttpServiceConfig,
  resolveHttpServiceConfig,
  section,
  str,
} from '@feedpipe/service-http';
import {
  type HotTierConfig,
  type ResolvedHotTierConfig,
  resolveHotTierConfig,
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

const TOP = [
  ...HTTP_SERVICE_KEYS,
  'clickhousePort',
  'reusePort',
  'query',
  'sql',
  'cache',
  'topics',
  'stream',
  'hotTier',
];
const W = 'query-api config';

export function resolveConfig(config: QueryApiConfig = {}): ResolvedConfig {
  const top = section(config, W, TOP);
  const q = section(top.query, `${W}.query`, [
    'maxExecutionSec',
    'defaultTickPage',
    'maxTickPage',
    'maxBars',
    'maxListRows',
    'maxConcurrentPerKey',
    'resultMemoryBytes',
    'resultReserveBytes',
    'resultWaitMs',
  ]);
  const s = section(top.sql, `${W}.sql`, [
    'maxExecutionSec',
    'maxMemoryBytes',
    'maxResultRows',
    'maxResultBytes',
    'maxSqlLength',
  ]);
  const c = section(top.cache, `${W}.cache`, [
    'maxEntries',
    'maxBytes',
    'liveTtlMs',
    'finalTtlMs',
    'finalAfterMs',
  ]);
  const tp = section(top.topics, `${W}.topics`, ['trades', 'ohlc', 'reference', 'status']);
  const st = section(top.stream, `${W}.stream`, [
    'maxClients',
    'maxClientsPerKey',
    'maxInstruments',
    'maxQueuedEvents',
    'heartbeatMs',
  ]);
  const maxTickPage = int(q, 'maxTickPage', `${W}.query`, 1_000_000, 1, 100_000_000);
  const resultMemoryBytes = int(
    q,
    'resultMemoryBytes',
    `${W}.query`,
    1024 ** 3,
    1_000_000,
    Number.MAX_SAFE_INTEGER,
  );
  return {
    ...resolveHttpServiceConfig(top, W, 8080),
    clickhousePort:
      top.clickhousePort === undefined ? undefined : int(top, 'clickhousePort', W, 0, 0, 65_535),
    reusePort: bool(top, 'reusePort', W, false),
    query: {
      maxExecutionSec: int(q, 'maxExecutionSec', `${W}.query`, 30, 1, 3_600),
      defaultTickPage: Math.min(int(q, 'defaultTickPage', `${W}.query`, 10_000, 1, 100_000_000), maxTickPage),
      maxTickPage,
      maxBars: int(q, 'maxBars', `${W}.query`, 100_000, 1, 10_000_000),
      maxListRows: int(q, 'maxListRows', `${W}.query`, 10_000, 1, 1_000_000),
      maxConcurrentPerKey: int(q, 'maxConcurrentPerKey', `${W}.query`, 4, 1, 10_000),
      resultMemoryBytes,
      resultReserveBytes: Math.min(
        int(q, 'resultReserveBytes', `${W}.query`, 64 * 1024 ** 2, 1, Number.MAX_SAFE_INTEGER),
        resultMemoryBytes,
      ),
      resultWaitMs: int(q, 'resultWaitMs', `${W}.query`, 10_000, 0, 300_000),
    },
    sql: {
      maxExecutionSec: int(s, 'maxExecutionSec', `${W}.sql`, 30, 1, 3_600),
      maxMemoryBytes: int(s, 'maxMemoryBytes', `${W}.sql`, 2 * 1024 ** 3, 1_000_000, Number.MAX_SAFE_INTEGER),
      maxResultRows: int(s, 'maxResultRows', `${W}.sql`, 1_000_000, 1, Number.MAX_SAFE_INTEGER),
      maxResultBytes: int(s, 'maxResultBytes', `${W}.sql`, 512 * 1024 ** 2, 1_000, Number.MAX_SAFE_INTEGER),
      maxSqlLength: int(s, 'maxSqlLength', `${W}.sql`, 100_000, 10, 10_000_000),
    },
    cache: {
      maxEntries: int(c, 'maxEntries', `${W}.cache`, 5_000, 0, 1_000_000),
      maxBytes: int(c, 'maxBytes', `${W}.cache`, 64 * 1024 ** 2, 0, Number.MAX_SAFE_INTEGER),
      liveTtlMs: int(c, 'liveTtlMs', `${W}.cache`, 1_000, 0, 86_400_000),
      finalTtlMs: int(c, 'finalTtlMs', `${W}.cache`, 600_000, 0, 86_400_000),
      finalAfterMs: int(c, 'finalAfterMs', `${W}.cache`, 120_000, 0, 86_400_000),
    },
    topics: {
      trades: str(tp, 'trades', `${W}.topics`, DEFAULT_FEED_TOPICS.trades),
      ohlc: str(tp, 'ohlc', `${W}.topics`, DEFAULT_FEED_TOPICS.ohlc),
      reference: str(tp, 'reference', `${W}.topics`, DEFAULT_FEED_TOPICS.reference),
      status: str(tp, 'status', `${W}.topics`, DEFAULT_FEED_TOPICS.status),
    },
    stream: {
      maxClients: int(st, 'maxClients', `${W}.stream`, 200, 1, 100_000),
      maxClientsPerKey: int(st, 'maxClientsPerKey', `${W}.stream`, 20, 1, 100_000),
      maxInstruments: int(st, 'maxInstruments', `${W}.stream`, 1_000, 1, 1_000_000),
      maxQueuedEvents: int(st, 'maxQueuedEvents', `${W}.stream`, 10_000, 1, 10_000_000),
      heartbeatMs: int(st, 'heartbeatMs', `${W}.stream`, 15_000, 100, 3_600_000),
    },
    hotTier: resolveHotTierConfig(top.hotTier, `${W}.hotTier`),
  };
}
