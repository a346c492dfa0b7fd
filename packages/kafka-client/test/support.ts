/**
 * Helpers of this package's broker tests: keyed JSON records laid out per partition with a source
 * header, and a read-back by the library's own consumer.
 */
import { randomUUID } from 'node:crypto';
import { Consumer, MessagesStreamModes } from '@platformatic/kafka';
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

export interface LibraryRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
  headers: Map<string, Buffer>;
}

/**
 * The first `count` records of `topic` read by @platformatic/kafka's own Consumer (a reader that
 * is not ours), in partition then offset order. Bounded by `timeoutMs`.
 */
export async function readWithLibraryConsumer(
  brokers: string[],
  topic: string,
  count: number,
  timeoutMs = 60_000,
): Promise<LibraryRecord[]> {
  const consumer = new Consumer({
    clientId: 'kc-test-reader',
    groupId: `kc-test-reader-${randomUUID()}`,
    bootstrapBrokers: brokers,
  });
  const out: LibraryRecord[] = [];
  const stream = await consumer.consume({
    topics: [topic],
    mode: MessagesStreamModes.EARLIEST,
    autocommit: false,
  });
  const timer = setTimeout(() => void stream.close(), timeoutMs);
  try {
    for await (const m of stream) {
      out.push({
        partition: m.partition,
        offset: Number(m.offset),
        key: m.key.toString(),
        value: m.value.toString(),
        headers: new Map([...m.headers].map(([k, v]) => [k.toString(), v])),
      });
      if (out.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await stream.close().catch(() => undefined);
    await consumer.close(true).catch(() => undefined);
  }
  return out.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}
