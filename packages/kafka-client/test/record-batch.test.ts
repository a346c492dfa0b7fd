/**
 * Unit tier: the batch layout held to @platformatic/kafka's own encoder byte for byte and read back
 * by its decoder, CRC and producer fields included; headers per record and per batch; pooled buffers.
 */
import { createRecordsBatch, NumericMap, Reader, readRecordsBatch } from '@platformatic/kafka';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BatchBuffers,
  crc32c,
  type HeaderLayout,
  KafkaClientError,
  partitionOf,
  RecordBatchBuilder,
} from '../src/index.js';

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

describe('RecordBatchBuilder against the library encoder', () => {
  it('lays out the bytes @platformatic/kafka lays out, for any records, headers and producer fields', () => {
    const record = fc.record({
      key: fc.uint8Array({ minLength: 0, maxLength: 12 }),
      source: fc.uint8Array({ minLength: 14, maxLength: 14 }),
      // Lengths around the varint boundaries (64 and 8192 bytes) the builder moves values across.
      value: fc.oneof(
        fc.uint8Array({ maxLength: 70 }),
        fc.uint8Array({ minLength: 120, maxLength: 300 }),
        fc.uint8Array({ minLength: 8_180, maxLength: 8_200 }),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        fc.bigInt({ min: 0n, max: 2n ** 40n }),
        fc.integer({ min: 0, max: 32_767 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (records, schema, producerId, producerEpoch, baseSequence) => {
          const schemaBytes = Buffer.from(schema, 'utf8');
          const layout: HeaderLayout[] = [
            { name: 'fp-src', valueBytes: 14 },
            { name: 'fp-schema', value: schemaBytes },
          ];
          const builder = new RecordBatchBuilder({ headers: layout, expectedBytes: 64 });
          for (const r of records) builder.appendBytes(r.key, r.value, r.source);
          const timestamp = 1_767_225_600_123;
          builder.stamp(timestamp);
          const ours = Buffer.from(builder.encode({ producerId, producerEpoch, baseSequence }));
          const theirs = createRecordsBatch(
            records.map((r) => ({
              topic: 't',
              partition: 0,
              key: Buffer.from(r.key),
              value: Buffer.from(r.value),
              timestamp: BigInt(timestamp),
              headers: new Map([
                [Buffer.from('fp-src'), Buffer.from(r.source)],
                [Buffer.from('fp-schema'), schemaBytes],
              ]),
            })),
            {
              producerId,
              producerEpoch,
              partitionLeaderEpoch: -1,
              sequences: new NumericMap([['t:0', baseSequence]]),
            },
          ).buffer;
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('takes a header either per record or once per batch, not both', () => {
    const both = { name: 'x', valueBytes: 1, value: Buffer.from('a') } as unknown as HeaderLayout;
    expect(() => new RecordBatchBuilder({ headers: [both] })).toThrow(/either valueBytes/);
    expect(() => new RecordBatchBuilder({ headers: [{ name: 'x', valueBytes: -1 }] })).toThrow(
      KafkaClientError,
    );
  });

  it('takes its buffers from a pool and gives them back on release, then starts a fresh batch', () => {
    const given: Buffer[] = [];
    const returned: Buffer[] = [];
    const pool: BatchBuffers = {
      acquire: (minBytes) => {
        const b = Buffer.alloc(minBytes);
        given.push(b);
        return b;
      },
      grow: (buffer, used, needed) => {
        const b = Buffer.alloc(needed * 2);
        buffer.copy(b, 0, 0, used);
        given.push(b);
        returned.push(buffer);
        return b;
      },
      recycle: (buffer) => {
        returned.push(buffer);
      },
    };
    const builder = new RecordBatchBuilder({ expectedBytes: 1, buffers: pool });
    for (let i = 0; i < 20; i++) builder.appendBytes(Buffer.from(String(i)), Buffer.alloc(200, 0x62));
    const sent = builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 });
    expect(given.length).toBeGreaterThan(1);
    expect(given.at(-1)?.buffer).toBe(sent.buffer);
    builder.release();
    expect(returned).toEqual(given);
    expect(builder.count).toBe(0);
    expect(() => builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 })).toThrow(/empty/);
    builder.appendBytes(Buffer.from('k'), Buffer.from('again'));
    const batch = readRecordsBatch(
      Reader.from(Buffer.from(builder.encode({ producerId: 1n, producerEpoch: 0, baseSequence: 0 }))),
    );
    expect(batch.records.map((r) => r.value?.toString())).toEqual(['again']);
  });
});

describe('partitionOf', () => {
  it("matches Java's default partitioner (golden values recorded from a Java-compatible client: murmur2, sign bit masked)", () => {
    const keys = ['1333', '2885', '11536', '0', '99999999'].map((k) => Buffer.from(k));
    expect(keys.map((k) => partitionOf(k, 6))).toEqual([3, 2, 2, 2, 5]);
    expect(keys.map((k) => partitionOf(k, 12))).toEqual([3, 8, 8, 8, 11]);
  });
});
