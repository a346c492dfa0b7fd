/**
 * The sink's config (plain data) and deps (the ports it is handed), each checked once at
 * `createSink` by the declarative reader, and the settings derived from them.
 */
import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import { DEFAULT_FEED_TOPICS, type FeedTopics } from '@feedpipe/contracts';
import type { Store } from '@feedpipe/store';
import type { Registry } from 'prom-client';
import { SinkError } from './errors.js';

export interface SinkConfig {
  brokers: string[];
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
  /**
   * The disk guard: the store's free space is read every `intervalMs`; below a threshold the sink
   * stops fetching and inserting (Kafka holds the feed, the lag grows) and goes on by itself when
   * space is back. Unset: no guard (the CLI always sets one, from STORE_MIN_FREE_*).
   */
  diskGuard?: SinkDiskGuard;
  /** How often the retention headroom (sink_kafka_retention_headroom_seconds) is measured. Default 30 s. */
  retentionProbeMs?: number;
}

export interface SinkDeps {
  store: Store;
  /** Default: a registry of its own. */
  registry?: Registry;
  /** Test hook: runs after a table's block was inserted and before its offsets are committed. */
  afterInsert?: (table: string, rows: number) => Promise<void> | void;
  /** Default: stderr, prefixed `sink: `. */
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

/** The config with its defaults filled in, and the log. */
export interface SinkSettings {
  brokers: string[];
  topics: FeedTopics;
  groupId: string;
  maxBatchRows: number;
  maxBatchAgeMs: number;
  maxBufferedRows: number;
  sessionTimeoutMs: number;
  diskGuard: SinkDiskGuard | undefined;
  retentionProbeMs: number;
  log: (message: string) => void;
}

/** Every key of the sink's config, with its range and default (SinkConfig documents each). */
const SINK_CONFIG = {
  brokers: { kind: 'list', minLength: 1, required: true },
  topics: { kind: 'given' },
  groupId: { kind: 'string', default: 'feedpipe-sink' },
  maxBatchRows: { kind: 'integer', min: 1, max: 10_000_000, default: 100_000 },
  maxBatchAgeMs: { kind: 'integer', min: 1, max: 3_600_000, default: 500 },
  maxBufferedRows: { kind: 'integer', min: 1, max: 100_000_000, default: 400_000 },
  sessionTimeoutMs: { kind: 'integer', min: 1, max: 3_600_000, default: 10_000 },
  diskGuard: { kind: 'given' },
  retentionProbeMs: { kind: 'integer', min: 1, max: 86_400_000, default: 30_000 },
} as const satisfies OptionsSchema;

const DISK_GUARD = {
  minFreeBytes: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, required: true },
  minFreePercent: { kind: 'number', min: 0, max: 100, required: true },
  intervalMs: { kind: 'integer', min: 1, max: 3_600_000, required: true },
} as const satisfies OptionsSchema;

const SINK_DEPS = {
  store: { kind: 'given', required: true },
  ...given('registry', 'afterInsert', 'log'),
} as const satisfies OptionsSchema;

function invalid(message: string): SinkError {
  return new SinkError('CONFIG_INVALID', message);
}

/** Checks the config and the deps (CONFIG_INVALID) and fills in the defaults. */
export function sinkSettings(config: SinkConfig, deps: SinkDeps): SinkSettings {
  const v = readOptions(SINK_CONFIG, config, { where: 'sink config', fail: invalid });
  readOptions(SINK_DEPS, deps, { where: 'sink deps', fail: invalid });
  const diskGuard =
    config.diskGuard &&
    readOptions(DISK_GUARD, config.diskGuard, { where: 'sink config.diskGuard', fail: invalid });
  return {
    brokers: config.brokers,
    topics: { ...DEFAULT_FEED_TOPICS, ...config.topics },
    groupId: v.groupId,
    maxBatchRows: v.maxBatchRows,
    maxBatchAgeMs: v.maxBatchAgeMs,
    maxBufferedRows: v.maxBufferedRows,
    sessionTimeoutMs: v.sessionTimeoutMs,
    diskGuard,
    retentionProbeMs: v.retentionProbeMs,
    log: deps.log ?? ((m: string) => process.stderr.write(`sink: ${m}\n`)),
  };
}
