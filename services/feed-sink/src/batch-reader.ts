/**
 * The sink's read side: one partition batch of a feed topic into its table's CSV buffer, straight
 * from the fetched bytes. Records whose offset is already stored (a replay after an insert that was
 * not committed) are skipped, and so are copies of a record already read (same `fp-src` source
 * identity at another offset, see source-marks.ts): exactly once in effect with the writer's
 * insert-then-commit.
 */
import { SOURCE_HEADER, type TopicKind } from '@feedpipe/contracts';
import type { PartitionBatch } from '@feedpipe/kafka-client';
import { appendCanonical, type CanonicalLayout, CsvBlock, rowLine } from './csv-lines.js';
import type { SinkMetrics } from './sink-metrics.js';
import { type FeedValue, ROUTED_TABLES, SINK_TABLES, type SinkTable } from './sink-tables.js';
import type { SourceMarks } from './source-marks.js';
import type { StoredOffsets } from './stored-offsets.js';
import type { TableBuffer } from './table-writer.js';
import type { TradeQuantities } from './trade-quantities.js';

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
  /** Each stored trade's quantity, in the order the trades are stored. */
  quantities: TradeQuantities;
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

  /**
   * Reads every record of `batch` (a partition of `kind`'s topic) into `buffer`. What can be known
   * per batch is decided once (the stored mark, the partition and cluster text of its lines); per
   * record there is the copy check of its source header and, for values in the ingestor's exact
   * text, one pass over the bytes in place (no view, string or object per record).
   */
  read(kind: TopicKind, batch: PartitionBatch, buffer: TableBuffer): void {
    const { stats, metrics } = this.#d;
    const sinkTable = SINK_TABLES[kind];
    const table = sinkTable.table;
    const routed = ROUTED_TABLES[kind];
    // Each table keeps its own stored offsets; where a topic feeds several, which one a record
    // belongs to is known only after its parse, so the check waits for it.
    const checkFirst = routed.size === 0;
    const partition = batch.partition;
    this.#forgetRecreated(table, partition, Number(batch.highWatermark));
    const storedUpTo = checkFirst ? (this.#d.stored.entries(table).get(partition) ?? -1) : -1;
    const canonical = checkFirst ? sinkTable.canonical : undefined;
    const marks = this.#d.sourceMarks.partition(batch.topic, partition);
    const block = buffer.lines;
    block.source(partition, this.#clusterField);
    if (block.rows === 0) buffer.oldestAt = Date.now();
    const count = batch.count;
    let taken = 0;
    for (let i = 0; i < count; i++) {
      const offset = batch.offset(i);
      // Marked before the stored-offset check, so a replay after a restart rebuilds the marks too.
      const copy = this.#d.sourceMarks.isCopy(marks, batch.header(i, SOURCE_HEADER));
      if (offset <= storedUpTo) {
        this.#replayed(table);
        continue;
      }
      if (copy) {
        stats.copiesDropped += 1;
        metrics.copiesDropped.inc({ table });
        continue;
      }
      const outcome = this.#append(batch, i, buffer, canonical, routed, sinkTable);
      if (outcome === 'appended') taken += 1;
      else if (outcome === 'invalid') {
        stats.invalid += 1;
        metrics.invalid.inc({ topic: batch.topic });
      }
    }
    if (count > 0) buffer.lastOffsets.set(partition, batch.lastOffset);
    stats.buffered += taken;
    stats.consumed += count;
    metrics.consumed.inc({ topic: batch.topic }, count);
    metrics.bufferedRows.set(stats.buffered);
  }

  /**
   * Record i's row: straight from the bytes when the value is in the table's canonical text, else
   * parsed and validated (for the topic's own table, or a routed one).
   */
  #append(
    batch: PartitionBatch,
    i: number,
    buffer: TableBuffer,
    canonical: CanonicalLayout | undefined,
    routed: ReadonlyMap<string, SinkTable>,
    own: SinkTable,
  ): 'appended' | 'stored' | 'invalid' {
    const start = batch.valueStart(i);
    if (start < 0) return 'invalid';
    const offset = batch.offset(i);
    const quantities = this.#d.quantities;
    if (
      canonical &&
      appendCanonical(buffer.lines, canonical, batch.bytes, offset, start, batch.valueEnd(i), quantities)
    )
      return 'appended';
    const value = batch.value(i) as Buffer;
    return routed.size === 0
      ? this.#appendParsed(own, buffer.lines, value, batch.partition, offset)
      : this.#appendRouted(routed, own, buffer, value, batch.partition, offset);
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
    const row = target.toRow(parsed, partition, String(offset), this.#d.quantities);
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

  /** The CSV line of a value in another spelling: parsed and validated against its table. */
  #appendParsed(
    table: SinkTable,
    block: CsvBlock,
    value: Buffer,
    partition: number,
    offset: number,
  ): 'appended' | 'invalid' {
    try {
      const row = table.toRow(
        JSON.parse(value.toString('utf8')) as FeedValue,
        partition,
        String(offset),
        this.#d.quantities,
      );
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
