/**
 * The sink's write side: rows buffered per table as CSV, inserted in one block each, and only then
 * their offsets committed (exactly once in effect, with the stored offsets and source marks of the
 * read side). An insert that fails is retried with backoff and its rows kept; flushes run one at a
 * time, in order.
 */

import { TOPIC_KINDS, type TopicKind } from '@feedpipe/contracts';
import type { TopicPartitionOffset } from '@feedpipe/kafka-client';
import { Backoff } from '@feedpipe/retry';
import type { StoreLane } from '@feedpipe/store';
import { CsvBlock } from './csv-lines.js';
import { SinkError } from './errors.js';
import type { SinkMetrics } from './sink-metrics.js';
import type { SinkSettings } from './sink-options.js';
import { ALL_SINK_TABLES, SINK_TABLES } from './sink-tables.js';
import type { StoredOffsets } from './stored-offsets.js';

export interface TableBuffer {
  /** CSV lines of the rows to insert into the topic's table, kafka_cluster included. */
  lines: CsvBlock;
  /** Lines of record types the topic routes to other tables (ROUTED_TABLES), by table name. */
  routed: Map<string, CsvBlock>;
  /** Highest offset per partition among the buffered rows and skipped messages. */
  lastOffsets: Map<number, number>;
  oldestAt: number;
}

/** Counters the writer shares with the read side (SinkStats). */
export interface WriteStats {
  inserted: Record<string, number>;
  insertFailures: number;
  buffered: number;
}

export interface TableWriterDeps {
  settings: SinkSettings;
  lane: StoreLane;
  metrics: SinkMetrics;
  stats: WriteStats;
  stored: StoredOffsets;
  /** Commits offsets to the group (none while the consumer is not there: the rows are read again). */
  commit: (offsets: TopicPartitionOffset[]) => Promise<void>;
  /** False once the sink stops: a failing insert then gives up (STOPPED) instead of retrying. */
  running: () => boolean;
  /**
   * True while the disk guard holds writes: the periodic and full-block flushes wait. A flush asked
   * for explicitly (a rebalance's, the stop's, `Sink.flush`) still inserts what is buffered (at most
   * maxBufferedRows, which the guard's headroom is there for), so rows of revoked partitions never
   * outlive their ownership.
   */
  held: () => boolean;
  afterInsert?: (table: string, rows: number) => Promise<void> | void;
}

export class TableWriter {
  readonly #d: TableWriterDeps;
  readonly #buffers = new Map<TopicKind, TableBuffer>();
  #flushing: Promise<void> = Promise.resolve();
  /** Tables whose full buffer already has a flush queued. */
  readonly #fullFlushQueued = new Set<TopicKind>();

  constructor(deps: TableWriterDeps) {
    this.#d = deps;
  }

  bufferOf(kind: TopicKind): TableBuffer {
    let buffer = this.#buffers.get(kind);
    if (!buffer) {
      buffer = { lines: new CsvBlock(), routed: new Map(), lastOffsets: new Map(), oldestAt: Date.now() };
      this.#buffers.set(kind, buffer);
    }
    return buffer;
  }

  /**
   * Inserts and commits the buffered tables (only those old or full enough with `onlyAged`, only
   * `onlyKind` when given), after every flush already queued. A failed flush does not stop later
   * ones (its rows stay uncommitted and are read again).
   */
  flushAll(onlyAged = false, onlyKind?: TopicKind): Promise<void> {
    if (onlyAged && this.#d.held()) return this.#flushing.catch(() => undefined);
    const { maxBatchAgeMs, maxBatchRows } = this.#d.settings;
    this.#flushing = this.#flushing
      .catch(() => undefined)
      .then(async () => {
        const now = Date.now();
        for (const kind of onlyKind ? [onlyKind] : TOPIC_KINDS) {
          const buffer = this.#buffers.get(kind);
          if (!buffer) continue;
          if (onlyAged && now - buffer.oldestAt < maxBatchAgeMs && buffer.lines.rows < maxBatchRows) continue;
          await this.#flushKind(kind);
        }
      });
    return this.#flushing;
  }

  /**
   * After a batch was read into `kind`'s buffer: a full block is inserted while consumption goes on
   * (the insert runs off the event loop), so reading the next block overlaps writing this one; only
   * at the bound on buffered rows (counted until their insert is done) does the consumer wait.
   */
  async afterBatch(kind: TopicKind): Promise<void> {
    const { maxBatchRows, maxBufferedRows } = this.#d.settings;
    const buffer = this.#buffers.get(kind);
    if (buffer && buffer.lines.rows >= maxBatchRows && !this.#fullFlushQueued.has(kind) && !this.#d.held()) {
      this.#fullFlushQueued.add(kind);
      void this.flushAll(false, kind)
        .catch(() => undefined)
        .finally(() => this.#fullFlushQueued.delete(kind));
    }
    // The consumer heartbeats on its own timer: waiting here does not cost the session.
    if (this.#d.stats.buffered >= maxBufferedRows) await this.flushAll();
  }

  /**
   * Inserts one topic's buffer (its own table, then any routed ones) and only then commits its
   * offsets: a record routed elsewhere is committed with the rest of its partition, never before
   * its own table holds it. Serialised through `flushAll`.
   */
  async #flushKind(kind: TopicKind): Promise<void> {
    const { stats, metrics, settings } = this.#d;
    const buffer = this.#buffers.get(kind);
    if (!buffer || buffer.lastOffsets.size === 0) return;
    this.#buffers.delete(kind);
    const blocks: Array<[string, CsvBlock]> = [[SINK_TABLES[kind].table, buffer.lines], ...buffer.routed];
    let rows = 0;
    for (const [table, lines] of blocks) {
      const count = lines.rows;
      rows += count;
      if (count === 0) {
        lines.recycle();
        continue;
      }
      await this.#insertWithRetry(table, lines);
      lines.recycle();
      stats.inserted[table] = (stats.inserted[table] ?? 0) + count;
      metrics.rowsInserted.inc({ table }, count);
      for (const [partition, offset] of buffer.lastOffsets) this.#d.stored.record(table, partition, offset);
      await this.#d.afterInsert?.(table, count);
    }
    stats.buffered -= rows;
    metrics.bufferedRows.set(stats.buffered);
    await this.#d.commit(
      [...buffer.lastOffsets].map(([partition, offset]) => ({
        topic: settings.topics[kind],
        partition,
        offset: BigInt(offset + 1),
      })),
    );
  }

  async #insertWithRetry(tableName: string, lines: CsvBlock): Promise<void> {
    const { stats, metrics, settings } = this.#d;
    const table = ALL_SINK_TABLES.find((t) => t.table === tableName);
    if (!table) throw new SinkError('INTERNAL', `no sink table ${tableName}`);
    const csv = lines.bytes();
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    for (;;) {
      const end = metrics.insertSeconds.startTimer({ table: table.table });
      try {
        await this.#d.lane.insertCsv(table.table, table.columns, csv);
        end();
        return;
      } catch (error) {
        stats.insertFailures += 1;
        metrics.insertFailures.inc({ table: table.table });
        if (!this.#d.running())
          throw new SinkError('STOPPED', 'sink stopped while an insert was failing', { cause: error });
        const delay = backoff.next();
        settings.log(
          `insert into ${table.table} failed (${(error as Error).message}); retrying in ${delay} ms, rows kept`,
        );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
