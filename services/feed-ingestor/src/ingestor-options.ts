/**
 * The options of `createFeedIngestor`, checked once at construction: an unknown key (a misspelt
 * option would otherwise be ignored without a word) and a bad value are refused with a message that
 * names the key and what is allowed.
 */
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import type { Registry } from 'prom-client';
import { IngestorError } from './errors.js';
import type { AttemptBudget } from './feed/attempt-budget.js';
import type { FeedConnectionTuning } from './feed/connection-pool.js';
import type { FeedCredentials } from './feed/feed-connection.js';
import type { LeadershipOptions } from './leader/ingestor-leadership.js';
import type { FeedWalOptions } from './wal/wal-options.js';

export interface FeedIngestorOptions {
  /** Feed URL without query parameters, e.g. ws://127.0.0.1:7075/ */
  feedUrl: string;
  credentials: FeedCredentials;
  brokers: string[];
  topics?: Partial<FeedTopics>;
  /** Partitions of topics the ingestor creates. Default 12. */
  partitions?: number;
  /** Feed connections, 1..5. Default 5. */
  connections?: number;
  /** Subscriptions per connection, 1..5000. Default 5000 (the spec's limit). */
  maxSubscriptionsPerConnection?: number;
  /** Subscribed at start. */
  instruments?: { trade?: readonly string[]; ohlc?: readonly string[] };
  /** Decode/produce worker threads. Default 2. */
  workers?: number;
  /** Bytes per chunk of frames sent to a worker. Default 1 MiB. */
  chunkBytes?: number;
  /** A non-empty chunk is sent after this long. Default 20 ms. */
  flushIntervalMs?: number;
  /** Bound on bytes received and not yet acknowledged by Kafka. Default 256 MiB. */
  maxBufferedBytes?: number;
  connection?: FeedConnectionTuning;
  /** Connection attempts of the client id. Default: the process-wide budget of the client id. */
  attemptBudget?: AttemptBudget;
  /**
   * Readiness: a connection with subscriptions and no market data for this long while the market is
   * open (or its state unknown) makes `readiness()` not ready. Default 60 000 ms; 0 turns it off.
   */
  silentAfterMs?: number;
  /**
   * A live subscription with no trade for this long while the market is open is a `stale` gap of
   * its instrument in the ledger (gaps/stale-watcher.ts). Default 600 000 ms; 0 turns it off.
   */
  staleAfterMs?: number;
  /** Also write every received frame to this capture file (codec format). */
  captureFile?: string;
  /**
   * A file where the ingestor notes that it is alive and what it holds, so the next start records
   * the downtime in between as `process_stopped` gaps (gaps/run-state.ts). Unset: not recorded.
   */
  stateFile?: string;
  /**
   * A file where subscription changes made while running (`changeSubscriptions`) are kept as
   * overrides of `instruments`, so the next start subscribes the same. Unset: not kept.
   */
  subscriptionsFile?: string;
  /**
   * The feed write-ahead log (wal/feed-wal.ts): every frame is logged before decoding, and what
   * Kafka had not acknowledged when a run ended is produced again by the next start. Unset: off.
   */
  wal?: FeedWalOptions;
  /**
   * Run as one of several processes of the same client id, one leading (holding the feed) and the
   * others standing by (leader/ingestor-leadership.ts). Unset: this process always leads.
   */
  leadership?: LeadershipOptions;
  /** Default: a registry of its own. */
  registry?: Registry;
  /** Default: stderr, prefixed `ingestor: `. */
  log?: (message: string) => void;
}

/**
 * Every option key, each once: the compiler holds this table to the interface (a key added there and
 * not here, or the other way round, does not compile), and construction refuses any other key.
 */
const OPTION_KEYS: { readonly [K in keyof Required<FeedIngestorOptions>]: true } = {
  feedUrl: true,
  credentials: true,
  brokers: true,
  topics: true,
  partitions: true,
  connections: true,
  maxSubscriptionsPerConnection: true,
  instruments: true,
  workers: true,
  chunkBytes: true,
  flushIntervalMs: true,
  maxBufferedBytes: true,
  connection: true,
  attemptBudget: true,
  silentAfterMs: true,
  staleAfterMs: true,
  captureFile: true,
  stateFile: true,
  subscriptionsFile: true,
  wal: true,
  leadership: true,
  registry: true,
  log: true,
};

/** The options after checking, with the defaults this file decides. */
export interface CheckedOptions {
  topics: FeedTopics;
  silentAfterMs: number;
  staleAfterMs: number;
  log: (message: string) => void;
}

function nonNegativeInteger(key: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new IngestorError('CONFIG_INVALID', `${key} must be an integer >= 0, got ${value}`);
  return value;
}

export function checkIngestorOptions(options: FeedIngestorOptions): CheckedOptions {
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(OPTION_KEYS, key));
  if (unknown.length > 0) {
    throw new IngestorError(
      'CONFIG_INVALID',
      `unknown ingestor option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; allowed: ${Object.keys(OPTION_KEYS).join(', ')}`,
    );
  }
  if (!options.feedUrl || !/^wss?:\/\//.test(options.feedUrl)) {
    throw new IngestorError('CONFIG_INVALID', 'feedUrl must be a ws:// or wss:// URL');
  }
  if (options.brokers.length === 0)
    throw new IngestorError('CONFIG_INVALID', 'brokers must list at least one host:port');
  return {
    topics: { ...DEFAULT_FEED_TOPICS, ...options.topics },
    silentAfterMs: nonNegativeInteger('silentAfterMs', options.silentAfterMs ?? 60_000),
    staleAfterMs: nonNegativeInteger('staleAfterMs', options.staleAfterMs ?? 600_000),
    log: options.log ?? ((m: string) => process.stderr.write(`ingestor: ${m}\n`)),
  };
}
