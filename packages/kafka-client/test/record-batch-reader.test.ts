/**
 * Unit tier: fetched record batches decoded in place (batches laid out by our RecordBatchBuilder
 * and by @platformatic/kafka's own encoder, compressed ones included), the consumer protocol's
 * codecs and the round-robin assignor.
 */
import { createRecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from '../src/consumer/consumer-protocol.js';
import { assignRoundRobin } from '../src/consumer/round-robin-assignor.js';
import { crc32c, KafkaClientError, RecordBatchBuilder } from '../src/index.js';
import { brokerErrorCodes } from '../src/protocol/broker-errors.js';
import type { FetchPartitionAnswer } from '../src/protocol/fetch-records.js';
import { readPartitionRecords } from '../src/protocol/record-batch-reader.js';

/** A batch of `count` records from our builder, at `baseOffset`. */
function ourBatch(baseOffset: number, count: number): Buffer {
  const builder = new RecordBatchBuilder({ headers: [{ name: 'fp-src', valueBytes: 4 }] });
  for (let i = 0; i < count; i++) {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(baseOffset + i);
    builder.appendBytes(Buffer.from(`k${baseOffset + i}`), Buffer.from(`{"n":${baseOffset + i}}`), header);
  }
  builder.stamp(1_767_225_600_000);
  return withBaseOffset(
    Buffer.from(builder.encode({ producerId: 7n, producerEpoch: 0, baseSequence: 0 })),
    baseOffset,
  );
}

/** Sets a batch's base offset (as the broker does on append; the CRC does not cover it). */
function withBaseOffset(batch: Buffer, baseOffset: number): Buffer {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
  return batch;
}

function answerOf(records: Buffer): FetchPartitionAnswer {
  return {
    topic: 't',
    partition: 3,
    errorCode: 0,
    highWatermark: 1000n,
    lastStableOffset: 1000n,
    logStartOffset: 0n,
    records,
  };
}

describe('readPartitionRecords', () => {
  it('decodes keys, values, headers and offsets in place, skipping records before the offset asked for', () => {
    const records = Buffer.concat([ourBatch(10, 3), ourBatch(13, 2)]);
    const batch = readPartitionRecords(answerOf(records), 11, true);
    expect(batch.count).toBe(4);
    expect(batch.topic).toBe('t');
    expect(batch.partition).toBe(3);
    expect(batch.highWatermark).toBe(1000n);
    expect([batch.firstOffset, batch.lastOffset, batch.nextOffset]).toEqual([11, 14, 15n]);
    const seen = Array.from({ length: batch.count }, (_, i) => ({
      offset: batch.offset(i),
      key: batch.key(i)?.toString(),
      value: batch.value(i)?.toString(),
      header: batch.header(i, 'fp-src')?.readUInt32BE(0),
      timestamp: batch.timestamp(i),
    }));
    expect(seen).toEqual(
      [11, 12, 13, 14].map((n) => ({
        offset: n,
        key: `k${n}`,
        value: `{"n":${n}}`,
        header: n,
        timestamp: 1_767_225_600_000,
      })),
    );
    // Views, not copies: the value is in the fetched bytes.
    expect(batch.value(0)?.buffer).toBe(records.buffer);
    expect(batch.bytes).toBe(records);
    expect(batch.header(0, 'fp-sr')).toBeUndefined();
    expect(batch.headers(1).map(([k, v]) => [k.toString(), v.readUInt32BE(0)])).toEqual([['fp-src', 12]]);
    expect([...batch].map((r) => r.offset)).toEqual([11n, 12n, 13n, 14n]);
  });

  it('leaves a batch cut at the fetch size for the next fetch', () => {
    const whole = Buffer.concat([ourBatch(0, 2), ourBatch(2, 2)]);
    const batch = readPartitionRecords(answerOf(whole.subarray(0, whole.length - 5)), 0, true);
    expect(batch.count).toBe(2);
    expect(batch.nextOffset).toBe(2n);
    const none = readPartitionRecords(answerOf(whole.subarray(0, 30)), 0, true);
    expect([none.count, none.nextOffset]).toEqual([0, 0n]);
  });

  it('checks the CRC when asked, and says where', () => {
    const records = ourBatch(5, 2);
    records[records.length - 1] ^= 0xff;
    expect(() => readPartitionRecords(answerOf(records), 5, true)).toThrow(/CRC mismatch .* at offset 5/);
    expect(readPartitionRecords(answerOf(records), 5, false).count).toBe(2);
    try {
      readPartitionRecords(answerOf(records), 5, true);
    } catch (error) {
      expect((error as KafkaClientError).code).toBe('RECORDS_CORRUPT');
    }
  });

  it('skips control batches but reads on past them', () => {
    const control = ourBatch(0, 1);
    control.writeInt16BE(control.readInt16BE(21) | 0x20, 21);
    control.writeUInt32BE(crc32c(control, 21, control.length), 17);
    const batch = readPartitionRecords(answerOf(Buffer.concat([control, ourBatch(1, 2)])), 0, true);
    expect(batch.count).toBe(2);
    expect(batch.firstOffset).toBe(1);
    const onlyControl = readPartitionRecords(answerOf(control), 0, true);
    expect([onlyControl.count, onlyControl.nextOffset]).toEqual([0, 1n]);
  });

  it('reads compressed batches, null keys and values, and timestamp deltas from another encoder', () => {
    for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const messages = [
        { topic: 't', key: Buffer.from('a'), value: Buffer.from('1'), timestamp: 1_000n },
        {
          topic: 't',
          value: Buffer.from('2'),
          timestamp: 1_000_000_000n,
          headers: new Map([[Buffer.from('h'), Buffer.from('x')]]),
        },
        { topic: 't', key: Buffer.from('c'), value: null as unknown as Buffer, timestamp: 999n },
      ];
      const encoded = createRecordsBatch(messages, {
        compression,
        producerId: 1n,
        producerEpoch: 0,
        partitionLeaderEpoch: 0,
      }).buffer;
      const records = withBaseOffset(Buffer.from(encoded), 40);
      const batch = readPartitionRecords(answerOf(records), 40, true);
      expect(batch.count, compression).toBe(3);
      expect([0, 1, 2].map((i) => batch.offset(i))).toEqual([40, 41, 42]);
      expect([0, 1, 2].map((i) => batch.key(i)?.toString())).toEqual(['a', undefined, 'c']);
      expect([0, 1, 2].map((i) => batch.value(i)?.toString())).toEqual(['1', '2', undefined]);
      expect([0, 1, 2].map((i) => batch.timestamp(i))).toEqual([1_000, 1_000_000_000, 999]);
      expect(batch.header(1, 'h')?.toString()).toBe('x');
      expect(batch.headerCount(0)).toBe(0);
    }
  });

  it("reads the broker's append time on LogAppendTime batches", () => {
    const records = ourBatch(0, 2);
    records.writeInt16BE(records.readInt16BE(21) | 0x08, 21);
    records.writeBigInt64BE(1_800_000_000_000n, 35);
    records.writeUInt32BE(crc32c(records, 21, records.length), 17);
    const batch = readPartitionRecords(answerOf(records), 0, true);
    expect([batch.timestamp(0), batch.timestamp(1)]).toEqual([1_800_000_000_000, 1_800_000_000_000]);
  });

  it('refuses records that overrun their batch', () => {
    const records = ourBatch(0, 2);
    records[61] = 0x7e; // first record's length varint: 63, past the batch
    records.writeUInt32BE(crc32c(records, 21, records.length), 17);
    expect(() => readPartitionRecords(answerOf(records), 0, true)).toThrow(/overruns/);
  });
});

describe('broker error codes', () => {
  it('are read from library errors, also when wrapped in ours', () => {
    const library = Object.assign(new Error('response'), {
      errors: [Object.assign(new Error('protocol'), { apiCode: 27 })],
    });
    const ours = new KafkaClientError('COMMIT_FAILED', 'x', {
      cause: new KafkaClientError('GROUP_FAILED', 'y', { cause: library }),
    });
    expect(brokerErrorCodes(ours)).toEqual([27]);
    expect(brokerErrorCodes(new Error('socket hang up'))).toEqual([]);
  });
});

describe('consumer protocol and round-robin assignor', () => {
  it('round-trips subscriptions and assignments', () => {
    expect(decodeSubscription(encodeSubscription(['a', 'b']))).toEqual(['a', 'b']);
    const assigned = [
      { topic: 'a', partitions: [0, 2] },
      { topic: 'b', partitions: [1] },
    ];
    expect(decodeAssignment(encodeAssignment(assigned))).toEqual(assigned);
    expect(decodeAssignment(Buffer.alloc(0))).toEqual([]);
  });

  it('deals partitions in turn to the members subscribed to their topic', () => {
    const out = assignRoundRobin(
      [
        { memberId: 'm2', topics: ['a', 'b'] },
        { memberId: 'm1', topics: ['a'] },
      ],
      new Map([
        ['a', 3],
        ['b', 2],
      ]),
    );
    expect(out.get('m1')).toEqual([{ topic: 'a', partitions: [0, 2] }]);
    expect(out.get('m2')).toEqual([
      { topic: 'a', partitions: [1] },
      { topic: 'b', partitions: [0, 1] },
    ]);
    expect(assignRoundRobin([{ memberId: 'x', topics: ['gone'] }], new Map()).get('x')).toEqual([]);
  });
});
