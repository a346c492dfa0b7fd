/**
 * The sink: a Kafka consumer group (@feedpipe/kafka-client's BatchConsumer) that writes the feed
 * topics into ClickHouse in large batches.
 *
 * Exactly once in effect: rows are buffered per table and inserted in one block; offsets are
 * committed only after the insert succeeded; and every row carries its partition and offset, so a
 * batch replayed after a crash (inserted, not yet committed) is recognised and skipped.
 * Backpressure: while ClickHouse is unreachable the insert is retried with backoff and the consumer
 * stops taking new batches once `maxBufferedRows` are waiting, so nothing is dropped.
 *
 * This module wires the parts: batch-reader.ts (Kafka -> buffers), table-writer.ts (buffers ->
 * ClickHouse, then commit), consumer-health.ts (outages logged and counted), resume-positions.ts
 * (a store restored from a backup is caught up from Kafka).
 */

import { TOPIC_KINDS, type TopicKind } from '@feedpipe/contracts';
import {
  BatchConsumer,
  KafkaAdmin,
  type PartitionBatch,
  RecordAges,
  type TopicPartitions,
} from '@feedpipe/kafka-client';
import { Backoff } from '@feedpipe/retry';
import { DiskGuard } from '@feedpipe/service-kit';
import { type Store, type StoreLane, storeDiskSpace } from '@feedpipe/store';
import { Registry } from 'prom-client';
import { BatchReader } from './batch-reader.js';
import { ConsumerHealth } from './consumer-health.js';
import { csvString } from './csv-lines.js';
import { rewindToStore } from './resume-positions.js';
import { probeRetention } from './retention-watch.js';
import { createSinkMetrics, type SinkMetrics } from './sink-metrics.js';
import { type SinkConfig, type SinkDeps, type SinkSettings, sinkSettings } from './sink-options.js';
import { ALL_SINK_TABLES, tablesOfTopic } from './sink-tables.js';
import { SourceMarks } from './source-marks.js';
import { StoredOffsets } from './stored-offsets.js';
import { TableWriter } from './table-writer.js';
import { TradeQuantities } from './trade-quantities.js';

export type { SinkConfig, SinkDeps } from './sink-options.js';

export interface SinkStats {
  consumed: number;
  inserted: Record<string, number>;
  replayedSkipped: number;
  /** Records dropped as copies of one already read (same source identity, another offset). */
  copiesDropped: number;
  invalid: number;
  insertFailures: number;
  buffered: number;
  /** Whether the consumer is in its group and fetching (false: down or rejoining, nothing is stored). */
  consumerUp: boolean;
  /** Consumer outages (an error reported, up to records flowing again), each logged. */
  consumerCrashes: number;
  /** Whether the disk guard holds the sink now (nothing fetched or inserted; Kafka keeps the feed). */
  writesPaused: boolean;
}

export interface Sink {
  start(): Promise<void>;
  /** Flushes what is buffered, commits, and leaves the group. */
  stop(): Promise<void>;
  /** Inserts and commits everything buffered now. */
  flush(): Promise<void>;
  stats(): SinkStats;
  readonly metrics: SinkMetrics;
  readonly registry: Registry;
}

type CountStats = Omit<SinkStats, 'consumerUp' | 'consumerCrashes' | 'writesPaused'>;

/**
 * Before a member reads partitions it was just given, their stored marks are read again from the
 * store: in a group sharing one store another member may have inserted rows of them (and died
 * before committing). Retried while the sink runs: reading without the marks could store a replay
 * twice, so a store that does not answer holds the member here (its heartbeats go on).
 */
async function refreshMarks(
  partitions: readonly TopicPartitions[],
  ctx: {
    lane: StoreLane;
    stored: StoredOffsets;
    quantities: TradeQuantities;
    kindByTopic: ReadonlyMap<string, TopicKind>;
    clusterId: () => string;
    running: () => boolean;
    log: (message: string) => void;
  },
): Promise<void> {
  const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
  for (const { topic, partitions: numbers } of partitions) {
    const kind = ctx.kindByTopic.get(topic);
    if (!kind) continue;
    for (;;) {
      try {
        // Every table the topic's records go to (the status topic's gap records have their own).
        for (const { table } of tablesOfTopic(kind)) {
          await ctx.stored.refresh(ctx.lane, table, numbers, ctx.clusterId());
        }
        // The trades' predecessors as stored: another member may have stored trades of these
        // partitions since this one last held them (what this member read is flushed on revoke).
        if (kind === 'trades') await ctx.quantities.load(ctx.lane, ctx.clusterId());
        break;
      } catch (error) {
        if (!ctx.running()) return;
        const delay = backoff.next();
        ctx.log(
          `reading the stored offsets of ${topic} failed (${(error as Error).message}); retrying in ${delay} ms`,
        );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}

/** The consumer of the feed topics, handing batches to `take` and rebalances to the writer. */
/**
 * Partitions given to this member: their stored marks read again (another member may have stored
 * more), then, after a restore, where the store ends below the group's commits, the difference read
 * again from Kafka.
 */
async function onAssigned(
  partitions: TopicPartitions[],
  ctx: Parameters<typeof refreshMarks>[1],
  consumer: BatchConsumer,
): Promise<void> {
  await refreshMarks(partitions, ctx);
  await rewindToStore(partitions, {
    stored: ctx.stored,
    kindByTopic: ctx.kindByTopic,
    committed: (topics) => consumer.lag(topics),
    commit: (offsets) => consumer.commit(offsets),
    running: ctx.running,
    log: ctx.log,
  });
}

function buildConsumer(
  settings: SinkSettings,
  health: ConsumerHealth,
  writer: TableWriter,
  take: (batch: PartitionBatch) => Promise<void>,
  assigned: (partitions: TopicPartitions[]) => Promise<void>,
): BatchConsumer {
  return new BatchConsumer({
    brokers: settings.brokers,
    clientId: 'feedpipe-sink',
    groupId: settings.groupId,
    topics: TOPIC_KINDS.map((kind) => settings.topics[kind]),
    fromBeginning: true,
    sessionTimeoutMs: settings.sessionTimeoutMs,
    // Modest fetches: a lagging consumer always gets full ones, so these bound what the sink holds
    // on top of its buffered rows (4 MB is still ~20,000 records a round trip; halving them from
    // 8 MB lowered the sink's memory swings and its lag in the soak).
    maxBytes: 4 * 1024 * 1024,
    maxBytesPerPartition: 1024 * 1024,
    // Short fetch polls: a stop (or rebalance) waits for the running poll to end.
    maxWaitMs: 500,
    retryBackoffMs: 300,
    eachBatch: take,
    // A rebalance may hand our partitions to another member: insert and commit what we hold first
    // (awaited before they move), so the new owner's replay is recognised by the stored offsets
    // instead of racing with our insert. A lost session's commit fails: the rows are read again.
    onRevoked: async () => {
      await writer.flushAll().catch((e: unknown) => settings.log(`flush on revoke: ${(e as Error).message}`));
    },
    onAssigned: async (partitions, memberId) => {
      await assigned(partitions);
      health.assigned(memberId);
    },
    onError: (error) => health.failed(error),
  });
}

/** What the sink reads from the store before it consumes: the stored offsets and the trades' last volumes. */
async function loadStoredState(
  lane: StoreLane,
  stored: StoredOffsets,
  quantities: TradeQuantities,
  clusterId: string,
): Promise<void> {
  await stored.load(
    lane,
    ALL_SINK_TABLES.map((t) => t.table),
    clusterId,
  );
  await quantities.load(lane, clusterId);
}

/** The lag probe: per topic, what Kafka holds beyond the group's commits. */
async function probeLag(
  consumer: BatchConsumer,
  metrics: SinkMetrics,
  health: ConsumerHealth,
): Promise<void> {
  const byTopic = new Map<string, number>();
  for (const p of await consumer.lag()) byTopic.set(p.topic, (byTopic.get(p.topic) ?? 0) + Number(p.lag));
  for (const [topic, lag] of byTopic) metrics.lag.set({ topic }, lag);
  // The group answered and the member consumes: up, even when no records flow (an idle feed).
  if (consumer.state === 'consuming') health.working();
}

/** Cluster id (stored beside each row) and the topics, through one admin connection. */
async function prepareKafka(brokers: readonly string[], topics: readonly string[]): Promise<string> {
  const admin = new KafkaAdmin({ brokers, clientId: 'feedpipe-sink' });
  try {
    const clusterId = await admin.clusterId();
    await admin.ensureTopics(topics);
    return clusterId;
  } finally {
    await admin.close().catch(() => undefined);
  }
}

/** Runs `task` every `ms`, one at a time: a slow broker must not pile probes up. */
function serialTimer(ms: number, task: () => Promise<void>): NodeJS.Timeout {
  let busy = false;
  return setInterval(() => {
    if (busy) return;
    busy = true;
    void task()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, ms);
}

function emptyStats(): CountStats {
  return {
    consumed: 0,
    inserted: {},
    replayedSkipped: 0,
    copiesDropped: 0,
    invalid: 0,
    insertFailures: 0,
    buffered: 0,
  };
}

/** The disk guard of the sink's store: pausing it pauses the consumer (its group membership stays). */
function buildGuard(
  settings: SinkSettings,
  store: Store,
  metrics: SinkMetrics,
  consumer: () => BatchConsumer | undefined,
): DiskGuard | undefined {
  if (settings.diskGuard === undefined) return undefined;
  return new DiskGuard({
    probe: storeDiskSpace(store),
    ...settings.diskGuard,
    gauges: {
      freeBytes: metrics.storeFreeBytes,
      freeRatio: metrics.storeFreeRatio,
      paused: metrics.writesPaused,
    },
    // Pausing only stops fetch rounds: heartbeats run on their own timer, so the member keeps its
    // partitions and Kafka keeps the records (the lag grows, nothing is lost or read twice).
    onChange: (paused) => (paused ? consumer()?.pause() : consumer()?.resume()),
    log: settings.log,
  });
}

async function startGuard(guard: DiskGuard | undefined, consumer: BatchConsumer): Promise<void> {
  if (!guard) return;
  await guard.start();
  if (guard.paused) consumer.pause();
}

/** The retention probe: how long Kafka keeps what the sink has not stored (retention-watch.ts). */
function retentionProbe(
  brokers: readonly string[],
  consumer: BatchConsumer,
  metrics: SinkMetrics,
  log: (message: string) => void,
): { probe: () => Promise<void>; close: () => Promise<void> } {
  const ages = new RecordAges({ brokers, clientId: 'feedpipe-sink-retention' });
  let reported = '';
  return {
    probe: async () => {
      const figures = await probeRetention(ages, await consumer.lag(), metrics, Date.now());
      const deleted = figures.deleted.join(', ');
      if (deleted !== '' && deleted !== reported)
        log(`records of ${deleted} were deleted by Kafka's retention before the sink stored them`);
      reported = deleted;
    },
    close: () => ages.close(),
  };
}

/** The aged-buffer flush (every half of maxBatchAgeMs), the lag probe (every 5 s) and the retention probe. */
function startTimers(
  settings: SinkSettings,
  writer: TableWriter,
  probe: () => Promise<void>,
  retention: () => Promise<void>,
): NodeJS.Timeout[] {
  const flushEvery = Math.max(50, Math.floor(settings.maxBatchAgeMs / 2));
  return [
    setInterval(
      () =>
        void writer
          .flushAll(true)
          .catch((e: unknown) => settings.log(`flush failed: ${(e as Error).message}`)),
      flushEvery,
    ),
    serialTimer(5_000, probe),
    serialTimer(settings.retentionProbeMs, retention),
  ];
}

export function createSink(config: SinkConfig, deps: SinkDeps): Sink {
  const settings = sinkSettings(config, deps);
  const kindByTopic = new Map<string, TopicKind>(TOPIC_KINDS.map((kind) => [settings.topics[kind], kind]));
  const registry = deps.registry ?? new Registry();
  const metrics = createSinkMetrics(registry);
  const health = new ConsumerHealth(metrics, settings.log);
  // The pipeline's own lane: the sink never queues behind a caller's query (packages/store).
  const lane = deps.store.internal;
  const stored = new StoredOffsets();
  const quantities = new TradeQuantities(() => metrics.quantityDisagreements.inc());
  const stats = emptyStats();
  let running = false;
  let clusterId = '';
  let consumer: BatchConsumer | undefined;
  const guard = buildGuard(settings, deps.store, metrics, () => consumer);
  let retention: ReturnType<typeof retentionProbe> | undefined;
  const writer = new TableWriter({
    settings,
    lane,
    metrics,
    stats,
    stored,
    running: () => running,
    held: () => guard?.paused ?? false,
    afterInsert: deps.afterInsert,
    commit: async (offsets) => {
      await consumer?.commit(offsets);
    },
  });
  const reader = new BatchReader({
    metrics,
    stats,
    stored,
    sourceMarks: new SourceMarks(),
    quantities,
    log: settings.log,
  });

  async function take(batch: PartitionBatch): Promise<void> {
    health.working();
    const kind = kindByTopic.get(batch.topic);
    // While stopping, take nothing new: what is not flushed is not committed, so it is read again.
    if (!kind || !running) return;
    reader.read(kind, batch, writer.bufferOf(kind));
    await writer.afterBatch(kind);
  }

  let timers: NodeJS.Timeout[] = [];
  return {
    metrics,
    registry,
    async start() {
      const topicNames = TOPIC_KINDS.map((kind) => settings.topics[kind]);
      clusterId = await prepareKafka(settings.brokers, topicNames);
      reader.clusterField = csvString(clusterId);
      await loadStoredState(lane, stored, quantities, clusterId);
      running = true;
      const marks = {
        lane,
        stored,
        quantities,
        kindByTopic,
        clusterId: () => clusterId,
        running: () => running,
        log: settings.log,
      };
      const c = buildConsumer(settings, health, writer, take, (partitions) =>
        onAssigned(partitions, marks, c),
      );
      consumer = c;
      // Read the disk first: a sink started on a full disk joins its group paused.
      await startGuard(guard, c);
      await c.start();
      retention = retentionProbe(settings.brokers, c, metrics, settings.log);
      timers = startTimers(settings, writer, () => probeLag(c, metrics, health), retention.probe);
    },
    flush: () => writer.flushAll(),
    async stop() {
      for (const timer of timers) clearInterval(timer);
      guard?.stop();
      await retention?.close();
      // Flush and commit while the consumer is still in its group (a commit needs the group), then leave.
      running = false;
      const started = Date.now();
      await writer
        .flushAll()
        .catch((e: unknown) => settings.log(`final flush failed: ${(e as Error).message}`));
      const flushedAt = Date.now();
      await consumer?.stop();
      consumer = undefined;
      settings.log(
        `stopped: final flush ${flushedAt - started} ms, leaving the group ${Date.now() - flushedAt} ms`,
      );
    },
    stats: () => ({
      ...stats,
      inserted: { ...stats.inserted },
      consumerUp: health.up,
      consumerCrashes: health.outages,
      writesPaused: guard?.paused ?? false,
    }),
  };
}
