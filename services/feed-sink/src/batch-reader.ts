/**
 * The sink's read side: one partition batch of a feed topic into its table's CSV buffer, straight
 * from the fetched bytes. Records whose offset is already stored (a replay after an insert that was
 * not committed) are skipped, and so are copies of a record already read (same `fp-src` source
 * identity at another offset, see source-marks.ts): exactly once in effect with the writer's
 * insert-then-commit.
 */
import { SOURCE_HEADER, type TopicKind } from '@feedpipe/contracts';
import type { PartitionBatch } from '@feedpipe/kafka-client';
import { appendCanonical, CsvBlock, rowLine } from './csv-lines.js';
import type { SinkMetrics } from './sink-metrics.js';
import { type FeedValue, ROUTED_TABLES, SINK_TABLES, type SinkTable } from './sink-tables.js';
import type { SourceMarks } from './source-marks.js';
import type { StoredOffsets } from './stored-offsets.js';
import type { TableBuffer } from './table-writer.js';

/** Counters the reader shares with the writer (SinkStats). */
export interface ReadStats {
  consumed: number;
  replayedSkipped: number;
  copiesDropped: number;
  invalid: number;
  buffered: number;
}

export interface BatchReaderDeps {
  metrics: SinkMetrics;
  stats: ReadStats;
  stored: StoredOffsets;
  sourceMarks: SourceMarks;
  log: (message: string) => void;
}

export class BatchReader {
  readonly #d: BatchReaderDeps;
  /** The cluster id as a CSV field, the last column of every row. */
  #clusterField = '""';

  constructor(deps: BatchReaderDeps) {
    this.#d = deps;
  }

  set clusterField(field: string) {
    this.#clusterField = field;
  }

  /** Reads every record of `batch` (a partition of `kind`'s topic) into `buffer`. */
  read(kind: TopicKind, batch: PartitionBatch, buffer: TableBuffer): void {
    const { stats, metrics, stored } = this.#d;
    const sinkTable = SINK_TABLES[kind];
    const table = sinkTable.table;
    const routed = ROUTED_TABLES[kind];
    // Each table keeps its own stored offsets; where a topic feeds several, which one a record
    // belongs to is known only after its parse, so the check waits for it.
    const checkFirst = routed.size === 0;
    const partition = batch.partition;
    this.#forgetRecreated(table, partition, Number(batch.highWatermark));
    const marks = this.#d.sourceMarks.partition(batch.topic, partition);
    const count = batch.count;
    for (let i = 0; i < count; i++) {
      const offset = batch.offset(i);
      buffer.lastOffsets.set(partition, offset);
      // Marked before the stored-offset check, so a replay after a restart rebuilds the marks too.
      const copy = this.#d.sourceMarks.isCopy(marks, batch.header(i, SOURCE_HEADER));
      if (checkFirst && stored.isStored(table, partition, offset)) {
        this.#replayed(table);
        continue;
      }
      if (copy) {
        stats.copiesDropped += 1;
        metrics.copiesDropped.inc({ table });
        continue;
      }
      if (buffer.lines.rows === 0) buffer.oldestAt = Date.now();
      const value = batch.value(i);
      const outcome = !value
        ? 'invalid'
        : checkFirst
          ? this.#appendLine(sinkTable, buffer.lines, value, partition, String(offset))
          : this.#appendRouted(routed, sinkTable, buffer, value, partition, offset);
      if (outcome === 'stored') continue;
      if (outcome === 'invalid') {
        stats.invalid += 1;
        metrics.invalid.inc({ topic: batch.topic });
        continue;
      }
      stats.buffered += 1;
    }
    stats.consumed += count;
    metrics.consumed.inc({ topic: batch.topic }, count);
    metrics.bufferedRows.set(stats.buffered);
  }

  #replayed(table: string): void {
    this.#d.stats.replayedSkipped += 1;
    this.#d.metrics.replayedSkipped.inc({ table });
  }

  /**
   * A record of a topic that feeds several tables: parsed, sent to its type's table (the topic's own
   * unless ROUTED_TABLES names another), skipped when that table already stores its offset.
   */
  #appendRouted(
    routed: ReadonlyMap<string, SinkTable>,
    own: SinkTable,
    buffer: TableBuffer,
    value: Buffer,
    partition: number,
    offset: number,
  ): 'appended' | 'stored' | 'invalid' {
    let parsed: FeedValue;
    try {
      parsed = JSON.parse(value.toString('utf8')) as FeedValue;
    } catch {
      return 'invalid';
    }
    const target = (typeof parsed.type === 'string' ? routed.get(parsed.type) : undefined) ?? own;
    if (this.#d.stored.isStored(target.table, partition, offset)) {
      this.#replayed(target.table);
      return 'stored';
    }
    const row = target.toRow(parsed, partition, String(offset));
    if (!row) return 'invalid';
    const block = target === own ? buffer.lines : routedBlock(buffer, target.table);
    block.append(rowLine(row, this.#clusterField));
    return 'appended';
  }

  /** Offsets restarted below what is stored: the topic was recreated. Trust Kafka. */
  #forgetRecreated(table: string, partition: number, highWatermark: number): void {
    const max = this.#d.stored.entries(table).get(partition);
    if (max === undefined || max < highWatermark) return;
    this.#d.log(
      `${table} partition ${partition}: stored offset ${max} >= high watermark ${highWatermark}; topic recreated?`,
    );
    this.#d.stored.forget(table, partition);
  }

  /**
   * Appends the CSV line of one message to `block`: straight from the bytes when the value is in the
   * table's canonical text, else parsed and validated. False when the value is invalid.
   */
  #appendLine(
    table: SinkTable,
    block: CsvBlock,
    value: Buffer,
    partition: number,
    offset: string,
  ): 'appended' | 'invalid' {
    if (
      table.canonical &&
      appendCanonical(block, table.canonical, value, partition, offset, this.#clusterField)
    ) {
      return 'appended';
    }
    try {
      const row = table.toRow(JSON.parse(value.toString('utf8')) as FeedValue, partition, offset);
      if (!row) return 'invalid';
      block.append(rowLine(row, this.#clusterField));
      return 'appended';
    } catch {
      return 'invalid';
    }
  }
}

/** The buffer's block of a routed table, made on first use (gap records are few: a small block). */
function routedBlock(buffer: TableBuffer, table: string): CsvBlock {
  let block = buffer.routed.get(table);
  if (!block) {
    block = new CsvBlock(64 * 1024);
    buffer.routed.set(table, block);
  }
  return block;
}
