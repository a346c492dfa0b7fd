/**
 * The sink: a Kafka consumer group that writes the feed topics into ClickHouse in large batches.
 *
 * Exactly once in effect: rows are buffered per table and inserted in one block; offsets are
 * committed only after the insert succeeded; and every row carries its partition and offset, so a
 * batch replayed after a crash (inserted, not yet committed) is recognised and skipped.
 * Backpressure: while ClickHouse is unreachable the insert is retried with backoff and the consumer
 * stops taking new batches once `maxBufferedRows` are waiting, so nothing is dropped.
 */

import {
  DEFAULT_FEED_TOPICS,
  type FeedTopics,
  SOURCE_HEADER,
  TOPIC_KINDS,
  type TopicKind,
} from '@feedpipe/contracts';
import { Backoff, ensureTopics } from '@feedpipe/service-kit';
import type { Store } from '@feedpipe/store';
import { type Admin, type Consumer, type EachBatchPayload, type IHeaders, Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { appendCanonical, CsvBlock, csvString, rowLine } from './csv-lines.js';
import { SinkError } from './errors.js';
import { createSinkMetrics, type SinkMetrics } from './sink-metrics.js';
import { type FeedValue, SINK_TABLES, type SinkTable } from './sink-tables.js';
import { SourceMarks } from './source-marks.js';
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
  /**
   * Consumer group session timeout: how long a crashed member holds its partitions, and so how long
   * the sink stores nothing after a broker restart (its new member waits for the old one to expire).
   * Default 10 s; the broker's minimum is 6 s (group.min.session.timeout.ms). Longer tolerates longer
   * event-loop pauses without a rebalance.
   */
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
  /** Records dropped as copies of one already read (same source identity, another offset). */
  copiesDropped: number;
  invalid: number;
  insertFailures: number;
  buffered: number;
  /** Whether the consumer is in its group and fetching (false: down or rejoining, nothing is stored). */
  consumerUp: boolean;
  /** Consumer crashes (broker lost, retries exhausted), each followed by a restart. */
  consumerCrashes: number;
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
    if (!KNOWN_OPTIONS.has(key)) throw new SinkError('CONFIG_INVALID', `unknown sink option "${key}"`);
  }
  if (!Array.isArray(options.brokers) || options.brokers.length === 0) {
    throw new SinkError('CONFIG_INVALID', 'sink option "brokers" must list at least one host:port');
  }
  for (const key of ['maxBatchRows', 'maxBatchAgeMs', 'maxBufferedRows', 'sessionTimeoutMs'] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new SinkError('CONFIG_INVALID', `sink option "${key}" must be a positive integer, got ${value}`);
    }
  }
}

/** The `fp-src` header value of a consumed record, if it has one. */
function sourceHeaderOf(headers: IHeaders | undefined): Buffer | undefined {
  const value = headers?.[SOURCE_HEADER];
  return Buffer.isBuffer(value) ? value : undefined;
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
  // The pipeline's own lane: the sink never queues behind a caller's query (packages/store).
  const lane = options.store.internal;
  const stored = new StoredOffsets();
  const sourceMarks = new SourceMarks();
  const kafka = new Kafka({
    clientId: 'feedpipe-sink',
    brokers: options.brokers,
    logLevel: logLevel.NOTHING,
  });
  const buffers = new Map<TopicKind, TableBuffer>();
  const stats: Omit<SinkStats, 'consumerUp' | 'consumerCrashes'> = {
    consumed: 0,
    inserted: {},
    replayedSkipped: 0,
    copiesDropped: 0,
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
        await lane.insertCsv(table.table, table.columns, csv);
        end();
        return;
      } catch (error) {
        stats.insertFailures += 1;
        metrics.insertFailures.inc({ table: table.table });
        if (!running)
          throw new SinkError('STOPPED', 'sink stopped while an insert was failing', { cause: error });
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
    const marks = sourceMarks.partition(batch.topic, batch.partition);
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      consumedHere += 1;
      buffer.lastOffsets.set(batch.partition, offset);
      // Marked before the stored-offset check, so a replay after a restart rebuilds the marks too.
      const copy = sourceMarks.isCopy(marks, sourceHeaderOf(message.headers));
      if (stored.isStored(sinkTable.table, batch.partition, offset)) {
        stats.replayedSkipped += 1;
        metrics.replayedSkipped.inc({ table: sinkTable.table });
        continue;
      }
      if (copy) {
        stats.copiesDropped += 1;
        metrics.copiesDropped.inc({ table: sinkTable.table });
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

  /**
   * Consumer health. After a broker restart kafkajs gives up on the lost broker, crashes and starts
   * a new consumer; the new one joins the group as a new member, and the coordinator (which reloads
   * the group with our previous member in it) waits for that member's session to time out before it
   * hands the partitions over. Nothing is stored meanwhile: that was the 35-40 s silent stall of a
   * 30 s session timeout. Hence a short session timeout (below), and the outage is logged, counted
   * and measured here instead of passing in silence.
   */
  const consumerHealth = { up: false, downSince: 0, joins: 0, crashes: 0 };

  function markDown(why: string): void {
    if (!consumerHealth.up && consumerHealth.downSince !== 0) return;
    consumerHealth.up = false;
    consumerHealth.downSince = Date.now();
    metrics.consumerUp.set(0);
    log(`consumer ${why}; nothing is stored until it rejoins the group`);
  }

  function onJoined(memberId: string, durationMs: number): void {
    consumerHealth.joins += 1;
    if (consumerHealth.joins > 1) {
      metrics.consumerRejoins.inc();
      const outage = consumerHealth.downSince === 0 ? 0 : Date.now() - consumerHealth.downSince;
      if (consumerHealth.downSince !== 0) metrics.consumerOutageSeconds.observe(outage / 1000);
      log(`consumer rejoined the group as ${memberId} (join ${durationMs} ms, ${outage} ms without storing)`);
    }
    consumerHealth.up = true;
    consumerHealth.downSince = 0;
    metrics.consumerUp.set(1);
  }

  function buildConsumer(): Consumer {
    const sessionTimeout = options.sessionTimeoutMs ?? 10_000;
    const c = kafka.consumer({
      groupId: options.groupId ?? 'feedpipe-sink',
      // Modest fetches: a lagging consumer always gets full ones, so these bound what the sink
      // holds on top of its buffered rows (4 MB is still ~20,000 records a round trip; each fetch's
      // buffers are garbage once its records are copied into the CSV block, and halving them from
      // 8 MB lowered the sink's memory swings and its lag in the soak).
      maxBytesPerPartition: 1024 * 1024,
      maxBytes: 4 * 1024 * 1024,
      sessionTimeout,
      // Short fetch polls: a stop (or rebalance) waits for the running poll to end.
      maxWaitTimeInMs: 500,
      heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeout / 3)),
      // A crashed consumer starts over quickly; the broker's session timeout is the real wait.
      retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 8 },
    });
    // A rebalance may hand our partitions to another member: insert what we hold first, so the
    // new owner's replay is recognised by the stored offsets instead of racing with our insert.
    c.on(c.events.REBALANCING, () => void flushAll().catch(() => undefined));
    c.on(c.events.GROUP_JOIN, (event) => onJoined(event.payload.memberId, event.payload.duration));
    c.on(c.events.CRASH, (event) => {
      if (!running) return;
      const error = event.payload.error;
      consumerHealth.crashes += 1;
      metrics.consumerCrashes.inc({ error: error.name });
      markDown(`crashed (${error.name}: ${error.message})${event.payload.restart ? '; restarting' : ''}`);
      // kafkajs restarts by itself after a retriable crash; after any other it stays down, so the
      // sink starts a new consumer (a sink that silently stops is the failure this guards against).
      if (!event.payload.restart) void replaceConsumer(c);
    });
    return c;
  }

  async function startConsumer(): Promise<void> {
    const c = buildConsumer();
    consumer = c;
    await c.connect();
    await c.subscribe({ topics: TOPIC_KINDS.map((kind) => topics[kind]), fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      partitionsConsumedConcurrently: 1,
      eachBatch,
    });
  }

  /** Replaces a consumer that will not restart by itself; retried with backoff while the sink runs. */
  async function replaceConsumer(dead: Consumer): Promise<void> {
    if (consumer !== dead) return;
    await dead.disconnect().catch(() => undefined);
    const backoff = new Backoff({ initialMs: 500, maxMs: 10_000 });
    while (running && consumer === dead) {
      try {
        await startConsumer();
        return;
      } catch (error) {
        const delay = backoff.next();
        log(`consumer could not be started again (${(error as Error).message}); retrying in ${delay} ms`);
        await consumer?.disconnect().catch(() => undefined);
        consumer = dead;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
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
      await stored.load(lane, tables, clusterId);
      await ensureTopics(
        options.brokers,
        TOPIC_KINDS.map((kind) => topics[kind]),
      );
      running = true;
      await startConsumer();
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
    stats: () => ({
      ...stats,
      inserted: { ...stats.inserted },
      consumerUp: consumerHealth.up,
      consumerCrashes: consumerHealth.crashes,
    }),
  };
}
