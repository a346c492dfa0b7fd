import { createRequire } from 'node:module';
import { readSourceIdentity, SOURCE_BYTES, SOURCE_HEADER, writeSourceIdentity } from '@feedpipe/contracts';
import { crc32c } from '@feedpipe/kafka-client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BATCH_HEADER_BYTES,
  RecordSetBuilder,
  type RecordValueWriter,
} from '../src/kafka/record-set-builder.js';

// kafkajs's own record batch encoder, the reference the hand-laid batches must match byte for byte.
const require = createRequire(import.meta.url);
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (options: Record<string, unknown>) => Promise<{ buffer: Buffer }>;
};
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (
  options: Record<string, unknown>,
) => unknown;

class BytesValue implements RecordValueWriter {
  constructor(
    readonly bytes: Uint8Array,
    readonly maxBytes = bytes.length,
  ) {}
  writeValue(out: Uint8Array, at: number): number {
    out.set(this.bytes, at);
    return at + this.bytes.length;
  }
}

describe('RecordSetBuilder', () => {
  it('lays out the same record batch as kafkajs, for any keys, values and producer fields', async () => {
    const record = fc.record({
      key: fc.uint8Array({ minLength: 1, maxLength: 12 }),
      source: fc.uint8Array({ minLength: SOURCE_BYTES, maxLength: SOURCE_BYTES }),
      // Lengths around the varint boundaries (64 and 8192 bytes) the builder has to move values across.
      value: fc.oneof(
        fc.uint8Array({ maxLength: 70 }),
        fc.uint8Array({ minLength: 120, maxLength: 300 }),
        fc.uint8Array({ minLength: 8_180, maxLength: 8_200 }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 80 }),
        fc.bigInt({ min: 0n, max: 2n ** 40n }),
        fc.integer({ min: 0, max: 32_767 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (records, producerId, producerEpoch, firstSequence) => {
          const builder = new RecordSetBuilder(64);
          for (const r of records)
            builder.append(r.key, new BytesValue(r.value, r.value.length + 9), r.source);
          const timestamp = 1_760_000_000_123;
          builder.stamp(timestamp);
          const fields = {
            producerId: { value: producerId },
            producerEpoch,
            firstSequence,
            transactional: false,
          };
          const ours = Buffer.from(builder.encodeBatch(fields));

          const reference = await RecordBatch({
            firstTimestamp: timestamp,
            maxTimestamp: timestamp,
            producerId: { value: producerId },
            producerEpoch,
            firstSequence,
            lastOffsetDelta: records.length - 1,
            records: records.map((r, i) =>
              Record({
                key: Buffer.from(r.key),
                value: Buffer.from(r.value),
                headers: { [SOURCE_HEADER]: Buffer.from(r.source) },
                offsetDelta: i,
                timestampDelta: 0,
              }),
            ),
          });
          const theirs = Buffer.from(reference.buffer);
          expect(builder.length).toBe(records.length);
          expect(ours.length).toBe(theirs.length);
          // Bytes 12..15 are the partition leader epoch: -1 here (as Java producers send), 0 in kafkajs.
          expect(ours.readInt32BE(12)).toBe(-1);
          expect(Buffer.concat([ours.subarray(0, 12), ours.subarray(16)])).toEqual(
            Buffer.concat([theirs.subarray(0, 12), theirs.subarray(16)]),
          );
          expect(ours.length).toBeGreaterThan(BATCH_HEADER_BYTES);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('re-stamps the same records for a retry with another producer and sequence', () => {
    const builder = new RecordSetBuilder();
    builder.append(Buffer.from('7'), new BytesValue(Buffer.from('{"a":1}')), new Uint8Array(SOURCE_BYTES));
    const first = Buffer.from(
      builder.encodeBatch({ producerId: 5n, producerEpoch: 0, firstSequence: 10, transactional: false }),
    );
    const second = Buffer.from(
      builder.encodeBatch({ producerId: 6n, producerEpoch: 1, firstSequence: 0, transactional: false }),
    );
    expect(first.readBigInt64BE(43)).toBe(5n);
    expect(second.readBigInt64BE(43)).toBe(6n);
    expect(second.readInt32BE(53)).toBe(0);
    expect(second.readUInt32BE(17)).toBe(crc32c(second, 21));
    expect(second.subarray(BATCH_HEADER_BYTES)).toEqual(first.subarray(BATCH_HEADER_BYTES));
  });

  it('refuses to send an empty set', () => {
    expect(() =>
      new RecordSetBuilder().encodeBatch({
        producerId: 1n,
        producerEpoch: 0,
        firstSequence: 0,
        transactional: false,
      }),
    ).toThrow(/empty/);
  });
});

describe('source identity', () => {
  it('reads back what was written, and refuses a value of another length', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 65_535 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (run, connection, chunk, row) => {
          const bytes = new Uint8Array(SOURCE_BYTES);
          writeSourceIdentity(new DataView(bytes.buffer), { run, connection, chunk, row });
          expect(readSourceIdentity(bytes)).toEqual({ run, connection, chunk, row });
        },
      ),
    );
    expect(readSourceIdentity(new Uint8Array(SOURCE_BYTES + 1))).toBeUndefined();
  });
});
