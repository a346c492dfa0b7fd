/** Helpers of this package's broker tests: keyed JSON records laid out per partition with a source header. */
import { partitionOf, RecordBatchBuilder, type TopicRecords } from '../src/index.js';

export const SOURCE_HEADER = 'fp-src';

/** The source identity of record `row` of chunk `chunk` (14 bytes, as the ingestor's fp-src). */
export function sourceOf(chunk: number, row: number): Buffer {
  const out = Buffer.alloc(14);
  out.writeUInt32BE(1, 0);
  out.writeUInt16BE(0, 4);
  out.writeUInt32BE(chunk, 6);
  out.writeUInt32BE(row, 10);
  return out;
}

export function keyOf(row: number): string {
  return String(1000 + (row % 37) * 11);
}

/** Chunk `chunk` of `rows` keyed JSON records for `topic`, laid out when the producer asks. */
export function chunkRecords(topic: string, chunk: number, rows: number): TopicRecords {
  return {
    topic,
    layout(partitionCount) {
      const out = new Map<number, RecordBatchBuilder>();
      for (let row = 0; row < rows; row++) {
        const key = Buffer.from(keyOf(row));
        const partition = partitionOf(key, partitionCount);
        let builder = out.get(partition);
        if (!builder) {
          builder = new RecordBatchBuilder({ headers: [{ name: SOURCE_HEADER, valueBytes: 14 }] });
          out.set(partition, builder);
        }
        builder.appendBytes(
          key,
          Buffer.from(JSON.stringify({ chunk, row, ltp: 100 + row / 4 })),
          sourceOf(chunk, row),
        );
      }
      return out;
    },
  };
}
