/**
 * `createFeedIngestor(config, deps)`: the config is plain data, the deps the ports the ingestor is
 * handed. Both are read once at construction by the declarative reader (@feedpipe/config's
 * `readOptions`), the write-ahead log's and the leadership's sections too: an unknown key (a
 * misspelt option would otherwise be ignored without a word) and a bad value are refused with a
 * message that names the key and what is allowed, before anything is built.
 */

import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import type { Registry } from 'prom-client';
import { IngestorError } from './errors.js';
import type { AttemptBudget } from './feed/attempt-budget.js';
import { type FeedConnectionTuning, MAX_CONNECTIONS_PER_CLIENT } from './feed/connection-pool.js';
import type { FeedCredentials } from './feed/feed-connection.js';
import {
  type LeadershipOptions,
  type ResolvedLeadershipOptions,
  resolveLeadershipOptions,
} from './leader/leadership-options.js';
import { type FeedWalOptions, type ResolvedWalOptions, resolveWalOptions } from './wal/wal-options.js';

export interface FeedIngestorConfig {
  /** Feed URL without query parameters, e.g. ws://127.0.0.1:7075/ */
  feedUrl: string;
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
  /**
   * The feed sockets live on a thread of their own (feed/socket-thread.ts): subscriptions go out as
   * a socket opens and messages are stamped as read, however busy the main thread is. Default true;
   * false keeps them on the main thread.
   */
  socketThread?: boolean;
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
}

export interface FeedIngestorDeps {
  /** The client id, auth type and token (or the token source asked before every attempt). */
  credentials: FeedCredentials;
  /** Connection attempts of the client id. Default: the process-wide budget of the client id. */
  attemptBudget?: AttemptBudget;
  /** Default: a registry of its own. */
  registry?: Registry;
  /** Default: stderr, prefixed `ingestor: `. */
  log?: (message: string) => void;
  /**
   * With `leadership`: this process lost it (or failed to lead) and must stop without sending.
   * Default: logged.
   */
  onFenced?: (why: string) => void;
}

/** Largest timer Node keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/** Every key of the config, with its range and default (FeedIngestorConfig documents each). */
const INGESTOR_CONFIG = {
  feedUrl: { kind: 'url', protocols: ['ws', 'wss'], required: true },
  brokers: { kind: 'list', minLength: 1, required: true },
  topics: { kind: 'given' },
  partitions: { kind: 'integer', min: 1, max: 100_000, default: 12 },
  connections: {
    kind: 'integer',
    min: 1,
    max: MAX_CONNECTIONS_PER_CLIENT,
    default: MAX_CONNECTIONS_PER_CLIENT,
  },
  maxSubscriptionsPerConnection: {
    kind: 'integer',
    min: 1,
    max: MAX_SUBSCRIPTIONS_PER_CONNECTION,
    default: MAX_SUBSCRIPTIONS_PER_CONNECTION,
  },
  instruments: { kind: 'given' },
  // The pipeline keeps the defaults of these four (pipeline/producer-pipeline.ts).
  workers: { kind: 'integer', min: 1, max: 256 },
  chunkBytes: { kind: 'integer', min: 1, max: 2 ** 30 },
  flushIntervalMs: { kind: 'integer', min: 1, max: 60_000 },
  maxBufferedBytes: { kind: 'integer', min: 2, max: 2 ** 40 },
  connection: { kind: 'given' },
  socketThread: { kind: 'boolean', default: true },
  silentAfterMs: { kind: 'integer', min: 0, max: MAX_TIMER_MS, default: 60_000 },
  staleAfterMs: { kind: 'integer', min: 0, max: MAX_TIMER_MS, default: 600_000 },
  captureFile: { kind: 'string' },
  stateFile: { kind: 'string' },
  subscriptionsFile: { kind: 'string' },
  // Read by their own schemas (wal/wal-options.ts, leader/leadership-options.ts).
  ...given('wal', 'leadership'),
} as const satisfies OptionsSchema;

const INGESTOR_DEPS = {
  credentials: { kind: 'given', required: true },
  ...given('attemptBudget', 'registry', 'log', 'onFenced'),
} as const satisfies OptionsSchema;

/** The config after checking, with the defaults filled in, and the log. */
export interface IngestorSettings {
  feedUrl: string;
  brokers: string[];
  topics: FeedTopics;
  partitions: number;
  connections: number;
  maxSubscriptionsPerConnection: number;
  instruments: { trade: readonly string[]; ohlc: readonly string[] };
  workers: number | undefined;
  chunkBytes: number | undefined;
  flushIntervalMs: number | undefined;
  maxBufferedBytes: number | undefined;
  connection: FeedConnectionTuning | undefined;
  socketThread: boolean;
  silentAfterMs: number;
  staleAfterMs: number;
  captureFile: string | undefined;
  stateFile: string | undefined;
  subscriptionsFile: string | undefined;
  wal: ResolvedWalOptions | undefined;
  leadership: ResolvedLeadershipOptions | undefined;
  log: (message: string) => void;
}

function invalid(message: string): IngestorError {
  return new IngestorError('CONFIG_INVALID', message);
}

export function ingestorSettings(config: FeedIngestorConfig, deps: FeedIngestorDeps): IngestorSettings {
  const v = readOptions(INGESTOR_CONFIG, config, { where: 'ingestor config', fail: invalid });
  readOptions(INGESTOR_DEPS, deps, { where: 'ingestor deps', fail: invalid });
  return {
    ...v,
    brokers: config.brokers,
    topics: { ...DEFAULT_FEED_TOPICS, ...config.topics },
    instruments: { trade: config.instruments?.trade ?? [], ohlc: config.instruments?.ohlc ?? [] },
    connection: config.connection,
    wal: config.wal && resolveWalOptions(config.wal),
    leadership: config.leadership && resolveLeadershipOptions(config.leadership),
    log: deps.log ?? ((m: string) => process.stderr.write(`ingestor: ${m}\n`)),
  };
}
