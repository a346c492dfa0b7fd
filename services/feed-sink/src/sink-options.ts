/** The sink's options, checked once at `createSink`, and the settings derived from them. */
import { type OptionsSchema, readOptions } from '@feedpipe/config';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { SinkError } from './errors.js';

export interface SinkOptions {
  brokers: string[];
  store: Store;
  topics?: Partial<FeedTopics>;
  /** Consumer group. Default `feedpipe-sink`. */
  groupId?: string;
  /** Rows per insert block. Default 100,000. */
  maxBatchRows?: number;
  /** A partial block is inserted after this long. Default 500 ms. */
  maxBatchAgeMs?: number;
  /** Above this many buffered rows the consumer waits for inserts. Default 400,000. */
  maxBufferedRows?: number;
  /**
   * Consumer group session timeout: how long a vanished member holds its partitions. Default 10 s;
   * the broker's minimum is 6 s (group.min.session.timeout.ms). The consumer heartbeats on its own
   * timer, so a long insert does not cost the session; after a broker restart the member keeps its
   * id and goes on where it was if its session outlived the outage.
   */
  sessionTimeoutMs?: number;
  registry?: Registry;
  /**
   * The disk guard: the store's free space is read every `intervalMs`; below a threshold the sink
   * stops fetching and inserting (Kafka holds the feed, the lag grows) and goes on by itself when
   * space is back. Unset: no guard (the CLI always sets one, from STORE_MIN_FREE_*).
   */
  diskGuard?: SinkDiskGuard;
  /** How often the retention headroom (sink_kafka_retention_headroom_seconds) is measured. Default 30 s. */
  retentionProbeMs?: number;
  /** Test hook: runs after a table's block was inserted and before its offsets are committed. */
  afterInsert?: (table: string, rows: number) => Promise<void> | void;
  log?: (message: string) => void;
}

export interface SinkDiskGuard {
  /** Pause below this many free bytes (0: no byte threshold). */
  minFreeBytes: number;
  /** Pause below this percentage of the disk free (0: no percent threshold). */
  minFreePercent: number;
  /** Time between readings (ms). */
  intervalMs: number;
}

/** The options with their defaults filled in. */
export interface SinkSettings {
  topics: FeedTopics;
  groupId: string;
  maxBatchRows: number;
  maxBatchAgeMs: number;
  maxBufferedRows: number;
  sessionTimeoutMs: number;
  retentionProbeMs: number;
  log: (message: string) => void;
}

/** Every option of createSink, with its range and default (SinkOptions documents each). */
const SINK_OPTIONS = {
  brokers: { kind: 'list', minLength: 1, required: true },
  store: { kind: 'given', required: true },
  topics: { kind: 'given' },
  groupId: { kind: 'string', default: 'feedpipe-sink' },
  maxBatchRows: { kind: 'integer', min: 1, max: 10_000_000, default: 100_000 },
  maxBatchAgeMs: { kind: 'integer', min: 1, max: 3_600_000, default: 500 },
  maxBufferedRows: { kind: 'integer', min: 1, max: 100_000_000, default: 400_000 },
  sessionTimeoutMs: { kind: 'integer', min: 1, max: 3_600_000, default: 10_000 },
  registry: { kind: 'given' },
  diskGuard: { kind: 'given' },
  retentionProbeMs: { kind: 'integer', min: 1, max: 86_400_000, default: 30_000 },
  afterInsert: { kind: 'given' },
  log: { kind: 'given' },
} as const satisfies OptionsSchema;

/** Checks the options (CONFIG_INVALID) and fills in the defaults. */
export function sinkSettings(options: SinkOptions): SinkSettings {
  const v = readOptions(SINK_OPTIONS, options, {
    where: 'sink options',
    fail: (message) => new SinkError('CONFIG_INVALID', message),
  });
  return {
    topics: { ...DEFAULT_FEED_TOPICS, ...options.topics },
    groupId: v.groupId,
    maxBatchRows: v.maxBatchRows,
    maxBatchAgeMs: v.maxBatchAgeMs,
    maxBufferedRows: v.maxBufferedRows,
    sessionTimeoutMs: v.sessionTimeoutMs,
    retentionProbeMs: v.retentionProbeMs,
    log: options.log ?? ((m: string) => process.stderr.write(`sink: ${m}\n`)),
  };
}
