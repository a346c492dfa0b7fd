/**
 * The records of one partition laid out directly as a Kafka record batch (magic 2, uncompressed),
 * for the producer's pre-encoded path (the kafkajs patch's `encodePartitions`/`encodeBatch`).
 *
 * kafkajs builds an Encoder object per record, spreads each message into a new object and checks the
 * batch a byte at a time: ~40k records/s per thread here, the ingestor's ceiling. This writes each
 * record's framing and value straight into one growing buffer and fills the batch header (producer
 * id, epoch, sequence, CRC) only when kafkajs sends it, so a retried send re-stamps the same bytes.
 *
 * Batch header (61 bytes): baseOffset i64, batchLength i32, partitionLeaderEpoch i32, magic i8,
 * crc u32 (CRC-32C of everything from attributes on), attributes i16, lastOffsetDelta i32,
 * baseTimestamp i64, maxTimestamp i64, producerId i64, producerEpoch i16, baseSequence i32,
 * recordCount i32. Record: length varint, attributes i8, timestampDelta varint, offsetDelta varint,
 * key length varint, key, value length varint, value, header count varint, then per header: key
 * length varint, key, value length varint, value (all varints zigzag). Each record carries one
 * header, its source identity (`fp-src`, source-identity.ts), so a copy can be recognised downstream.
 */

import { SOURCE_BYTES, SOURCE_HEADER } from '@feedpipe/contracts';
import { crc32c } from '@feedpipe/kafka-client';
import { BufferPool } from '@feedpipe/service-kit';
import type { EncodedRecordSet } from 'kafkajs';
import { IngestorError } from '../errors.js';

export const BATCH_HEADER_BYTES = 61;
const CRC_AT = 17;
const ATTRIBUTES_AT = 21;
const MAGIC = 2;
/** What Java producers send as the leader epoch of a produced batch: not known to the client. */
const NO_PARTITION_LEADER_EPOCH = -1;
/** Transactional bit of the batch attributes. */
const TRANSACTIONAL = 0x10;
const INITIAL_BYTES = 16 * 1024;

/** Record-set buffers, reused by later chunks once their send has settled. */
const pool = new BufferPool(64, 64 * 1024 * 1024);

/** Writes a record's value at `at` (at most `maxBytes` of room) and returns the end offset. */
export interface RecordValueWriter {
  readonly maxBytes: number;
  writeValue(out: Uint8Array, at: number): number;
}

/** Bytes of the zigzag varint of a non-negative int32. */
function varintSize(value: number): number {
  const zigzag = value * 2;
  if (zigzag < 0x80) return 1;
  if (zigzag < 0x4000) return 2;
  if (zigzag < 0x200000) return 3;
  if (zigzag < 0x10000000) return 4;
  return 5;
}

/** Writes the zigzag varint of a non-negative int32; returns the end offset. */
function putVarint(out: Uint8Array, at: number, value: number): number {
  let zigzag = value * 2;
  while (zigzag >= 0x80) {
    out[at++] = (zigzag & 0x7f) | 0x80;
    zigzag = Math.floor(zigzag / 128);
  }
  out[at++] = zigzag;
  return at;
}

/** A producer id as kafkajs hands it over: decimal text (from the broker), its Long, a bigint or a number. */
function producerIdOf(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' || (typeof value === 'string' && /^-?\d+$/.test(value))) return BigInt(value);
  const inner = (value as { value?: unknown } | null)?.value;
  if (typeof inner === 'bigint') return inner;
  throw new IngestorError('INTERNAL', 'unexpected producer id from the Kafka client');
}

const EMPTY = Buffer.alloc(0);

/**
 * The header section of a record up to the identity's bytes: count 1, the key, the value's length.
 * Written once: only the 14 identity bytes differ from record to record.
 */
const SOURCE_HEADER_PREFIX = (() => {
  const key = Buffer.from(SOURCE_HEADER, 'latin1');
  const out = Buffer.alloc(1 + 1 + key.length + 1);
  let p = putVarint(out, 0, 1);
  p = putVarint(out, p, key.length);
  key.copy(out, p);
  putVarint(out, p + key.length, SOURCE_BYTES);
  return out;
})();
const HEADERS_BYTES = SOURCE_HEADER_PREFIX.length + SOURCE_BYTES;

export class RecordSetBuilder implements EncodedRecordSet {
  #bytes: Buffer;
  #view: DataView;
  #length = BATCH_HEADER_BYTES;
  #count = 0;
  #timestamp = 0;

  constructor(expectedBytes = INITIAL_BYTES) {
    this.#bytes = pool.acquire(Math.max(expectedBytes, BATCH_HEADER_BYTES + 1024));
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
  }

  /** Records appended (kafkajs advances the partition's sequence by this). */
  get length(): number {
    return this.#count;
  }

  /** Bytes of the finished batch. */
  get byteLength(): number {
    return this.#length;
  }

  /**
   * Appends one record: `key` as is, the value from `value`, and its source identity (SOURCE_BYTES
   * bytes, source-identity.ts) as the `fp-src` header. Every record carries timestamp delta 0: the
   * batch is stamped with its encode time (CreateTime), which is when the producer made it.
   */
  append(key: Uint8Array, value: RecordValueWriter, source: Uint8Array): void {
    const offsetDelta = this.#count;
    // Everything of the body before the value length: attributes, timestamp delta, offset delta, key.
    const head = 1 + 1 + varintSize(offsetDelta) + varintSize(key.length) + key.length;
    // Reserve 5 bytes for each of the two varints that depend on the value's length (known only once
    // it is written); the value is moved down afterwards if they turn out shorter.
    this.#ensure(5 + head + 5 + value.maxBytes + HEADERS_BYTES);
    const out = this.#bytes;
    const start = this.#length;
    const reservedValueAt = start + 5 + head + 5;
    const valueEnd = value.writeValue(out, reservedValueAt);
    const valueLength = valueEnd - reservedValueAt;
    const bodyLength = head + varintSize(valueLength) + valueLength + HEADERS_BYTES;
    let p = putVarint(out, start, bodyLength);
    out[p++] = 0; // record attributes: none
    out[p++] = 0; // timestamp delta 0
    p = putVarint(out, p, offsetDelta);
    p = putVarint(out, p, key.length);
    for (let i = 0; i < key.length; i++) out[p + i] = key[i] as number;
    p = putVarint(out, p + key.length, valueLength);
    if (p !== reservedValueAt) out.copyWithin(p, reservedValueAt, valueEnd);
    p += valueLength;
    out.set(SOURCE_HEADER_PREFIX, p);
    p += SOURCE_HEADER_PREFIX.length;
    for (let i = 0; i < SOURCE_BYTES; i++) out[p + i] = source[i] as number;
    p += SOURCE_BYTES;
    this.#length = p;
    this.#count += 1;
  }

  /** Fixes the batch's timestamp (epoch ms); `encodeBatch` uses it, or the time of its first call. */
  stamp(timestampMs: number): void {
    this.#timestamp = timestampMs;
  }

  encodeBatch(fields: {
    producerId: unknown;
    producerEpoch: number;
    firstSequence: number;
    transactional: boolean;
  }): Buffer {
    if (this.#count === 0) throw new IngestorError('INTERNAL', 'an empty record set cannot be sent');
    if (this.#timestamp === 0) this.#timestamp = Date.now();
    const v = this.#view;
    v.setBigInt64(0, 0n);
    v.setInt32(8, this.#length - 12);
    v.setInt32(12, NO_PARTITION_LEADER_EPOCH);
    v.setInt8(16, MAGIC);
    v.setInt16(ATTRIBUTES_AT, fields.transactional ? TRANSACTIONAL : 0);
    v.setInt32(23, this.#count - 1);
    v.setBigInt64(27, BigInt(this.#timestamp));
    v.setBigInt64(35, BigInt(this.#timestamp));
    v.setBigInt64(43, producerIdOf(fields.producerId));
    v.setInt16(51, fields.producerEpoch);
    v.setInt32(53, fields.firstSequence);
    v.setInt32(57, this.#count);
    v.setUint32(CRC_AT, crc32c(this.#bytes, ATTRIBUTES_AT, this.#length));
    return this.#bytes.subarray(0, this.#length);
  }

  /**
   * Gives the buffer back for reuse; the set must not be used afterwards. Call only once the Kafka
   * client is done with the batch (the produce request copies it, so after the send settles).
   */
  release(): void {
    pool.recycle(this.#bytes);
    this.#bytes = EMPTY;
    this.#view = new DataView(EMPTY.buffer);
    this.#length = BATCH_HEADER_BYTES;
    this.#count = 0;
  }

  #ensure(room: number): void {
    if (this.#length + room <= this.#bytes.length) return;
    this.#bytes = pool.grow(this.#bytes, this.#length, this.#length + room);
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
  }
}
