/**
 * `feed-ingestor replay`: records of the past back into Kafka, from a capture file, from segments
 * of the feed write-ahead log, or from the store (a range of market.ticks, ohlc_updates,
 * reference_updates and feed_status read back through the store port), over a time range, at a
 * factor of the recorded pace or as fast as Kafka takes them, into topics of the replay's own
 * unless told to write into the live ones (replay-target.ts). Every record carries a source
 * identity: derived from a capture (replay-identity.ts), so on the live topics the sink stores a
 * capture replayed twice once; the live run's own from log segments (replay-wal-source.ts), so
 * replaying what the live run already produced stores nothing twice, even the first time. Rows of
 * the store may not go into the live topics: they are stored already, and the store does not keep
 * their identities. Progress goes to `progress` (stderr).
 */
import { FEED_TOPIC_PARTITIONS, type FeedTopics, TOPIC_KINDS } from '@feedpipe/contracts';
import { KafkaAdmin } from '@feedpipe/kafka-client';
import type { StoreLane } from '@feedpipe/store';
import { IngestorError } from './errors.js';
import { captureGroups } from './replay/replay-capture-source.js';
import { REPLAY_BATCH_RECORDS, ReplayProducer } from './replay/replay-producer.js';
import { ReplayProgress } from './replay/replay-progress.js';
import type { ReplayRange } from './replay/replay-range.js';
import { newSourceCounts, type ReplayGroup, type ReplaySourceCounts } from './replay/replay-record.js';
import { ReplayPacer, type ReplaySpeed } from './replay/replay-speed.js';
import { storeGroups } from './replay/replay-store-source.js';
import { replayTopics } from './replay/replay-target.js';
import { walGroups } from './replay/replay-wal-source.js';

/** How long a paced replay holds records to batch them before they go out. */
const PACED_HOLD_MS = 20;

export type ReplaySource =
  | { kind: 'capture'; file: string }
  /** A directory of write-ahead log segments (`.cap` with their `.idx` ledgers). */
  | { kind: 'wal'; dir: string }
  | { kind: 'store'; store: StoreLane };

export interface ReplayRunOptions {
  source: ReplaySource;
  brokers: string[];
  /** The live topics (TOPIC_*): the replay's own are named after them. */
  liveTopics: Readonly<FeedTopics>;
  /** Prefix of the replay's own topics. Default `replay.`. */
  topicPrefix?: string;
  /** Write into the live topics. Default false: refused without it. */
  intoLive?: boolean;
  /** Default max. */
  speed?: ReplaySpeed;
  /** Receive-time range; a store source needs both ends. Default: the whole capture. */
  range?: ReplayRange;
  /** Progress lines (the CLI: stderr). Default: none. */
  progress?: (line: string) => void;
  progressPeriodMs?: number;
}

export interface ReplayRunResult {
  topics: FeedTopics;
  /** Records Kafka acknowledged, in all and per topic kind. */
  produced: number;
  producedByKind: Record<keyof FeedTopics, number>;
  source: ReplaySourceCounts;
  /**
   * Sends tried again after Kafka failed one. A retried send may leave some of its records in
   * the topic twice, under the same identity: the sink drops the copy, other readers can with the
   * same rule (isSourceCopy of @feedpipe/contracts).
   */
  sendRetries: number;
  /** Receive times of the first and last record replayed, ISO 8601 (undefined when none). */
  first: string | undefined;
  last: string | undefined;
  seconds: number;
}

function sourceGroups(options: ReplayRunOptions, counts: ReplaySourceCounts): AsyncGenerator<ReplayGroup> {
  const range = options.range ?? { fromMicros: undefined, toMicros: undefined };
  if (options.source.kind === 'capture') return captureGroups(options.source.file, range, counts);
  if (options.source.kind === 'wal') return walGroups(options.source.dir, range, counts);
  if (options.intoLive === true) {
    // Those rows are stored already, under the identities the live ingestor gave them (the store
    // keeps their Kafka offsets, not their `fp-src`): the sink of this store would take every one
    // of them again. Replaying them for other consumers goes to topics of the replay's own.
    throw new IngestorError(
      'REPLAY_LIVE_TOPICS',
      'a replay from the store cannot go into the live topics: its rows are stored already and the sink would store them again; replay them into topics of their own (--topic-prefix)',
    );
  }
  const { fromMicros, toMicros } = range;
  if (fromMicros === undefined || toMicros === undefined) {
    throw new IngestorError('REPLAY_INVALID', 'a replay from the store needs --from and --to');
  }
  return storeGroups({ store: options.source.store, range: { fromMicros, toMicros } }, counts);
}

const iso = (micros: number | undefined): string | undefined =>
  micros === undefined ? undefined : new Date(micros / 1000).toISOString();

export async function runReplay(options: ReplayRunOptions): Promise<ReplayRunResult> {
  const started = performance.now();
  const topics = replayTopics({
    live: options.liveTopics,
    prefix: options.topicPrefix,
    intoLive: options.intoLive,
  });
  const counts = newSourceCounts();
  const groups = sourceGroups(options, counts);
  // The replay's topics as the live ones are made: same partitions, so each instrument lands on
  // the partition it has live (a consumer of either reads one instrument in order).
  await KafkaAdmin.ensureTopicsOnce(
    options.brokers,
    TOPIC_KINDS.map((kind) => topics[kind]),
    { partitions: FEED_TOPIC_PARTITIONS },
  );
  const write = options.progress;
  const producer = new ReplayProducer({ brokers: options.brokers, topics, onRetry: write });
  const progress = new ReplayProgress(
    write ?? (() => undefined),
    options.range ?? {
      fromMicros: undefined,
      toMicros: undefined,
    },
    options.progressPeriodMs,
  );
  const pacer = new ReplayPacer(options.speed ?? 'max');
  let span: { first: number | undefined; last: number | undefined };
  try {
    span = await pump(groups, producer, pacer, progress);
  } finally {
    await producer.close();
  }
  return {
    topics,
    produced: total(producer.produced),
    producedByKind: { ...producer.produced },
    source: counts,
    sendRetries: producer.retries,
    first: iso(span.first),
    last: iso(span.last),
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Moves the source's groups to Kafka at the pacer's pace. When the source fails part way (a capture
 * cut off inside a record, a store that went away), what it gave before is sent first, so
 * everything up to the failure is in Kafka and a replay can pick up from there.
 */
async function pump(
  groups: AsyncGenerator<ReplayGroup>,
  producer: ReplayProducer,
  pacer: ReplayPacer,
  progress: ReplayProgress,
): Promise<{ first: number | undefined; last: number | undefined }> {
  const state = () => ({ produced: total(producer.produced), atMicros: producer.sentUpToMicros });
  let first: number | undefined;
  let last: number | undefined;
  try {
    for await (const group of groups) {
      // A group due later: what is held goes out first once it has waited long enough, so records
      // leave at their pace, a few milliseconds late at most, in batches rather than one send a
      // frame (at 10x a busy feed has a frame due every millisecond or two).
      if (pacer.delayOf(group.receivedAtMicros) >= 1) {
        if (producer.heldForMs() >= PACED_HOLD_MS) await producer.flush();
        await pacer.waitFor(group.receivedAtMicros);
      }
      producer.add(group);
      first ??= group.receivedAtMicros;
      last = group.receivedAtMicros;
      if (producer.pending >= REPLAY_BATCH_RECORDS) await producer.flush();
      progress.note(state());
    }
  } catch (error) {
    if (!(error instanceof IngestorError && error.code === 'REPLAY_PRODUCE_FAILED')) await producer.flush();
    throw error;
  }
  await producer.flush();
  progress.done(state());
  return { first, last };
}

function total(byKind: Record<keyof FeedTopics, number>): number {
  return byKind.trades + byKind.ohlc + byKind.reference + byKind.status;
}
