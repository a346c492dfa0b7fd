/** Unit tier: the batch layout read back by @platformatic/kafka's own decoder, CRC and producer fields included. */
import { Reader, readRecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { crc32c, KafkaClientError, partitionOf, RecordBatchBuilder } from '../src/index.js';

describe('RecordBatchBuilder', () => {
  it('lays out a batch any Kafka decoder reads: keys, values, headers, producer fields, CRC', () => {
    const builder = new RecordBatchBuilder({
      headers: [
        { name: 'fp-src', valueBytes: 14 },
        { name: 'x', valueBytes: 2 },
      ],
    });
    const values = ['{"a":1}', 'é'.repeat(100), ''];
    values.forEach((v, i) => {
      const headerValues = Buffer.alloc(16, i + 1);
      builder.appendBytes(Buffer.from(`k${i}`), Buffer.from(v), headerValues);
    });
    builder.stamp(1_767_225_600_123);
    const bytes = Buffer.from(builder.encode({ producerId: 4242n, producerEpoch: 3, baseSequence: 77 }));
    expect(bytes.length).toBe(builder.byteLength);
    expect(bytes.readUInt32BE(17)).toBe(crc32c(bytes, 21, bytes.length));
    const batch = readRecordsBatch(Reader.from(bytes));
    expect(batch.magic).toBe(2);
    expect(batch.producerId).toBe(4242n);
    expect(batch.producerEpoch).toBe(3);
    expect(batch.firstSequence).toBe(77);
    expect(batch.firstTimestamp).toBe(1_767_225_600_123n);
    expect(batch.records.map((r) => r.key?.toString())).toEqual(['k0', 'k1', 'k2']);
    expect(batch.records.map((r) => r.value?.toString())).toEqual(values);
    expect(batch.records.map((r) => r.offsetDelta)).toEqual([0, 1, 2]);
    const headers = batch.records[1]?.headers ?? [];
    expect(headers.map(([k]) => k?.toString())).toEqual(['fp-src', 'x']);
    expect(headers[0]?.[1]).toEqual(Buffer.alloc(14, 2));
    expect(headers[1]?.[1]).toEqual(Buffer.alloc(2, 2));
  });

  it('re-stamps the same bytes for a retry and refuses what cannot be sent', () => {
    const builder = new RecordBatchBuilder();
    expect(() => builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 })).toThrow(
      KafkaClientError,
    );
    builder.appendBytes(Buffer.from('k'), Buffer.from('v'));
    const first = Buffer.from(builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 5 }));
    const again = Buffer.from(builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 5 }));
    expect(again).toEqual(first);
    expect(() => builder.appendBytes(Buffer.from('k'), Buffer.from('v'), Buffer.alloc(3))).toThrow(
      /header values/,
    );
  });

  it('grows past its first buffer without losing records', () => {
    const builder = new RecordBatchBuilder({ expectedBytes: 1 });
    const value = Buffer.alloc(700, 0x61);
    for (let i = 0; i < 500; i++) builder.appendBytes(Buffer.from(String(i)), value);
    const batch = readRecordsBatch(
      Reader.from(Buffer.from(builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 }))),
    );
    expect(batch.records).toHaveLength(500);
    expect(batch.records[499]?.key?.toString()).toBe('499');
  });
});

describe('partitionOf', () => {
  it("matches Java's default partitioner (golden values recorded from a Java-compatible client: murmur2, sign bit masked)", () => {
    const keys = ['1333', '2885', '11536', '0', '99999999'].map((k) => Buffer.from(k));
    expect(keys.map((k) => partitionOf(k, 6))).toEqual([3, 2, 2, 2, 5]);
    expect(keys.map((k) => partitionOf(k, 12))).toEqual([3, 8, 8, 8, 11]);
  });
});
