/**
 * The sink: a Kafka consumer group that writes the feed topics into ClickHouse in large batches.
 *
 * Exactly once in effect: rows are buffered per table and inserted in one block; offsets are
 * committed only after the insert succeeded; and every row carries its partition and offset, so a
 * batch replayed after a crash (inserted, not yet committed) is recognised and skipped.
 * Backpressure: while ClickHouse is unreachable the insert is retried with backoff and the consumer
 * stops taking new batches once `maxBufferedRows` are waiting, so nothing is dropped.
 */
import type { Store } from '@feedpipe/store';
import { type Admin, type Consumer, type EachBatchPayload, Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { Backoff } from '../backoff.js';
import { IngestorError } from '../errors.js';
import { ensureTopics } from '../kafka-admin.js';
import { DEFAULT_FEED_TOPICS, type FeedTopics, TOPIC_KINDS, type TopicKind } from '../topics.js';
import { appendCanonical, CsvBlock, csvString, rowLine } from './csv-lines.js';
import { createSinkMetrics, type SinkMetrics } from './sink-metrics.js';
import { type FeedValue, SINK_TABLES, type SinkTable } from './sink-tables.js';
import { StoredOffsets } from './stored-offsets.js';

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
  /** Consumer group session timeout: how long a crashed member holds its partitions. Default 30 s. */
  sessionTimeoutMs?: number;
  registry?: Registry;
  /** Test hook: runs after a table's block was inserted and before its offsets are committed. */
  afterInsert?: (table: string, rows: number) => Promise<void> | void;
  log?: (message: string) => void;
}

export interface SinkStats {
  consumed: number;
  inserted: Record<string, number>;
  replayedSkipped: number;
  invalid: number;
  insertFailures: number;
  buffered: number;
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

interface TableBuffer {
  /** CSV lines of the rows to insert, kafka_cluster included. */
  lines: CsvBlock;
  /** Highest offset per partition among the buffered rows and skipped messages. */
  lastOffsets: Map<number, number>;
  oldestAt: number;
}

const KNOWN_OPTIONS = new Set([
  'brokers',
  'store',
  'topics',
  'groupId',
  'maxBatchRows',
  'maxBatchAgeMs',
  'maxBufferedRows',
  'registry',
  'sessionTimeoutMs',
  'afterInsert',
  'log',
]);

function validate(options: SinkOptions): void {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new IngestorError('CONFIG_INVALID', `unknown sink option "${key}"`);
  }
  if (!Array.isArray(options.brokers) || options.brokers.length === 0) {
    throw new IngestorError('CONFIG_INVALID', 'sink option "brokers" must list at least one host:port');
  }
  for (const key of ['maxBatchRows', 'maxBatchAgeMs', 'maxBufferedRows', 'sessionTimeoutMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new IngestorError(
        'CONFIG_INVALID',
        `sink option "${key}" must be a positive integer, got ${value}`,
      );
    }
  }
}

export function createSink(options: SinkOptions): Sink {
  validate(options);
  const topics: FeedTopics = { ...DEFAULT_FEED_TOPICS, ...options.topics };
  const kindByTopic = new Map<string, TopicKind>(TOPIC_KINDS.map((kind) => [topics[kind], kind]));
  const maxBatchRows = options.maxBatchRows ?? 100_000;
  const maxBatchAgeMs = options.maxBatchAgeMs ?? 500;
  const maxBufferedRows = options.maxBufferedRows ?? 400_000;
  const log = options.log ?? ((m: string) => process.stderr.write(`sink: ${m}\n`));
  const registry = options.registry ?? new Registry();
  const metrics = createSinkMetrics(registry);
  const store = options.store;
  const client = store.client;
  const stored = new StoredOffsets();
  const kafka = new Kafka({
    clientId: 'feedpipe-sink',
    brokers: options.brokers,
    logLevel: logLevel.NOTHING,
  });
  const buffers = new Map<TopicKind, TableBuffer>();
  const stats: SinkStats = {
    consumed: 0,
    inserted: {},
    replayedSkipped: 0,
    invalid: 0,
    insertFailures: 0,
    buffered: 0,
  };

  let consumer: Consumer | undefined;
  let clusterId = '';
  /** The cluster id as a CSV field, the last column of every row. */
  let clusterField = '""';
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  /** Tables whose full buffer already has a flush queued. */
  const fullFlushQueued = new Set<TopicKind>();
  let running = false;

  function bufferOf(kind: TopicKind): TableBuffer {
    let buffer = buffers.get(kind);
    if (!buffer) {
      buffer = { lines: new CsvBlock(), lastOffsets: new Map(), oldestAt: Date.now() };
      buffers.set(kind, buffer);
    }
    return buffer;
  }

  async function insertWithRetry(kind: TopicKind, lines: CsvBlock): Promise<void> {
    const table = SINK_TABLES[kind];
    const csv = lines.bytes();
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    for (;;) {
      const end = metrics.insertSeconds.startTimer({ table: table.table });
      try {
        await store.insertCsv(table.table, table.columns, csv);
        end();
        return;
      } catch (error) {
        stats.insertFailures += 1;
        metrics.insertFailures.inc({ table: table.table });
        if (!running)
          throw new IngestorError('STOPPED', 'sink stopped while an insert was failing', { cause: error });
        const delay = backoff.next();
        log(
          `insert into ${table.table} failed (${(error as Error).message}); retrying in ${delay} ms, rows kept`,
        );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Inserts one table's buffer and commits its offsets. Serialised through `flushing`. */
  async function flushKind(kind: TopicKind): Promise<void> {
    const buffer = buffers.get(kind);
    if (!buffer || buffer.lastOffsets.size === 0) return;
    buffers.delete(kind);
    const table = SINK_TABLES[kind].table;
    const rows = buffer.lines.rows;
    if (rows > 0) {
      await insertWithRetry(kind, buffer.lines);
      buffer.lines.recycle();
      stats.inserted[table] = (stats.inserted[table] ?? 0) + rows;
      metrics.rowsInserted.inc({ table }, rows);
      for (const [partition, offset] of buffer.lastOffsets) stored.record(table, partition, offset);
      await options.afterInsert?.(table, rows);
    }
    stats.buffered -= rows;
    metrics.bufferedRows.set(stats.buffered);
    if (consumer) {
      await consumer.commitOffsets(
        [...buffer.lastOffsets].map(([partition, offset]) => ({
          topic: topics[kind],
          partition,
          offset: String(offset + 1),
        })),
      );
    }
  }

  /**
   * Inserts and commits the buffered tables (only those old or full enough with `onlyAged`, only
   * `onlyKind` when given), after every flush already queued: flushes run one at a time, in order.
   * A failed flush does not stop later ones (its rows stay uncommitted and are read again).
   */
  function flushAll(onlyAged = false, onlyKind?: TopicKind): Promise<void> {
    flushing = flushing
      .catch(() => undefined)
      .then(async () => {
        const now = Date.now();
        for (const kind of onlyKind ? [onlyKind] : TOPIC_KINDS) {
          const buffer = buffers.get(kind);
          if (!buffer) continue;
          if (onlyAged && now - buffer.oldestAt < maxBatchAgeMs && buffer.lines.rows < maxBatchRows) continue;
          await flushKind(kind);
        }
      });
    return flushing;
  }

  /**
   * Appends the CSV line of one message to `block`: straight from the bytes when the value is in the
   * table's canonical text, else parsed and validated. False when the value is invalid.
   */
  function appendLine(
    table: SinkTable,
    block: CsvBlock,
    value: Buffer,
    partition: number,
    offset: string,
  ): boolean {
    if (table.canonical && appendCanonical(block, table.canonical, value, partition, offset, clusterField)) {
      return true;
    }
    try {
      const row = table.toRow(JSON.parse(value.toString('utf8')) as FeedValue, partition, offset);
      if (!row) return false;
      block.append(rowLine(row, clusterField));
      return true;
    } catch {
      return false;
    }
  }

  async function eachBatch({ batch, heartbeat }: EachBatchPayload): Promise<void> {
    const kind = kindByTopic.get(batch.topic);
    // While stopping, take nothing new: what is not flushed is not committed, so it is read again.
    if (!kind || !running) return;
    const sinkTable = SINK_TABLES[kind];
    const buffer = bufferOf(kind);
    const highWatermark = Number(batch.highWatermark);
    for (const [partition, max] of stored.entries(sinkTable.table)) {
      if (partition === batch.partition && max >= highWatermark) {
        // Offsets restarted below what is stored: the topic was recreated. Trust Kafka.
        log(
          `${sinkTable.table} partition ${partition}: stored offset ${max} >= high watermark ${highWatermark}; topic recreated?`,
        );
        stored.forget(sinkTable.table, partition);
      }
    }
    let consumedHere = 0;
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      consumedHere += 1;
      buffer.lastOffsets.set(batch.partition, offset);
      if (stored.isStored(sinkTable.table, batch.partition, offset)) {
        stats.replayedSkipped += 1;
        metrics.replayedSkipped.inc({ table: sinkTable.table });
        continue;
      }
      if (buffer.lines.rows === 0) buffer.oldestAt = Date.now();
      if (
        !message.value ||
        !appendLine(sinkTable, buffer.lines, message.value, batch.partition, message.offset)
      ) {
        stats.invalid += 1;
        metrics.invalid.inc({ topic: batch.topic });
        continue;
      }
      stats.buffered += 1;
    }
    stats.consumed += consumedHere;
    metrics.consumed.inc({ topic: batch.topic }, consumedHere);
    metrics.bufferedRows.set(stats.buffered);
    // A full block is inserted while consumption goes on (the insert runs off the event loop), so
    // reading the next block overlaps writing this one; only at the bound on buffered rows (which
    // counts rows until their insert is done) does the consumer wait.
    if (buffer.lines.rows >= maxBatchRows && !fullFlushQueued.has(kind)) {
      fullFlushQueued.add(kind);
      void flushAll(false, kind)
        .catch(() => undefined)
        .finally(() => fullFlushQueued.delete(kind));
    }
    if (stats.buffered >= maxBufferedRows) {
      const heartbeatTimer = setInterval(() => void heartbeat().catch(() => undefined), 2_000);
      try {
        await flushAll();
      } finally {
        clearInterval(heartbeatTimer);
      }
    }
  }

  /**
   * One admin connection for the lag probe, kept between probes (a connection per probe every 5 s
   * churned sockets and buffers for the life of the sink); dropped after a failure, opened again by
   * the next probe.
   */
  let lagAdmin: Admin | undefined;

  async function updateLag(): Promise<void> {
    if (!running) return;
    try {
      if (!lagAdmin) {
        lagAdmin = kafka.admin();
        await lagAdmin.connect();
      }
      const admin = lagAdmin;
      for (const kind of TOPIC_KINDS) {
        const topic = topics[kind];
        const [latest, committed] = await Promise.all([
          admin.fetchTopicOffsets(topic),
          admin.fetchOffsets({ groupId: options.groupId ?? 'feedpipe-sink', topics: [topic] }),
        ]);
        const committedByPartition = new Map(
          (committed[0]?.partitions ?? []).map((p) => [p.partition, Math.max(0, Number(p.offset))]),
        );
        let lag = 0;
        for (const p of latest)
          lag += Math.max(0, Number(p.high) - (committedByPartition.get(p.partition) ?? 0));
        metrics.lag.set({ topic }, lag);
      }
    } catch {
      // Lag is informational; a failed probe leaves the last value and reconnects next time.
      await closeLagAdmin();
    }
  }

  async function closeLagAdmin(): Promise<void> {
    const admin = lagAdmin;
    lagAdmin = undefined;
    await admin?.disconnect().catch(() => undefined);
  }

  let lagTimer: NodeJS.Timeout | undefined;
  let lagProbeRunning = false;

  return {
    metrics,
    registry,
    async start() {
      const tables = TOPIC_KINDS.map((kind) => SINK_TABLES[kind].table);
      const admin = kafka.admin();
      await admin.connect();
      try {
        clusterId = (await admin.describeCluster()).clusterId;
        clusterField = csvString(clusterId);
      } finally {
        await admin.disconnect();
      }
      await stored.load(client, tables, clusterId);
      await ensureTopics(
        options.brokers,
        TOPIC_KINDS.map((kind) => topics[kind]),
      );
      consumer = kafka.consumer({
        groupId: options.groupId ?? 'feedpipe-sink',
        // Modest fetches: a lagging consumer always gets full ones, so these bound what the sink
        // holds on top of its buffered rows (4 MB is still ~20,000 records a round trip; each fetch's
        // buffers are garbage once its records are copied into the CSV block, and halving them from
        // 8 MB lowered the sink's memory swings and its lag in the soak).
        maxBytesPerPartition: 1024 * 1024,
        maxBytes: 4 * 1024 * 1024,
        sessionTimeout: options.sessionTimeoutMs ?? 30_000,
        // Short fetch polls: a stop (or rebalance) waits for the running poll to end.
        maxWaitTimeInMs: 500,
        heartbeatInterval: Math.min(3_000, Math.floor((options.sessionTimeoutMs ?? 30_000) / 3)),
      });
      // A rebalance may hand our partitions to another member: insert what we hold first, so the
      // new owner's replay is recognised by the stored offsets instead of racing with our insert.
      consumer.on(consumer.events.REBALANCING, () => void flushAll().catch(() => undefined));
      await consumer.connect();
      await consumer.subscribe({ topics: TOPIC_KINDS.map((kind) => topics[kind]), fromBeginning: true });
      running = true;
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: true,
        partitionsConsumedConcurrently: 1,
        eachBatch,
      });
      flushTimer = setInterval(
        () => void flushAll(true).catch((e: unknown) => log(`flush failed: ${(e as Error).message}`)),
        Math.max(50, Math.floor(maxBatchAgeMs / 2)),
      );
      lagTimer = setInterval(() => {
        // One probe at a time: a slow broker must not pile probes up on the shared connection.
        if (lagProbeRunning) return;
        lagProbeRunning = true;
        void updateLag().finally(() => {
          lagProbeRunning = false;
        });
      }, 5_000);
    },
    flush: () => flushAll(),
    async stop() {
      clearInterval(flushTimer);
      clearInterval(lagTimer);
      // Flush and commit while the consumer is still in its group (a commit needs the group), then leave.
      running = false;
      const started = Date.now();
      await flushAll().catch((e: unknown) => log(`final flush failed: ${(e as Error).message}`));
      const flushedAt = Date.now();
      await consumer?.disconnect();
      consumer = undefined;
      // A probe still running fails on the closed connection and ends (stop does not wait for it).
      await closeLagAdmin();
      log(`stopped: final flush ${flushedAt - started} ms, leaving the group ${Date.now() - flushedAt} ms`);
    },
    stats: () => ({ ...stats, inserted: { ...stats.inserted } }),
  };
}
