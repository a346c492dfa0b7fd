/**
 * The records of one partition laid out directly as a Kafka record batch (magic 2, uncompressed),
 * for BatchProducer: the caller writes each record's value straight into the batch's buffer (no
 * object per record), and the producer fields (id, epoch, base sequence) and the CRC are filled in
 * by `encode` when the batch is sent, so a retried send re-stamps the same bytes.
 *
 * Batch header (61 bytes): baseOffset i64, batchLength i32, partitionLeaderEpoch i32, magic i8,
 * crc u32 (CRC-32C of everything from attributes on), attributes i16, lastOffsetDelta i32,
 * baseTimestamp i64, maxTimestamp i64, producerId i64, producerEpoch i16, baseSequence i32,
 * recordCount i32. Record: length varint, attributes i8, timestampDelta varint, offsetDelta varint,
 * key length varint, key, value length varint, value, header count varint, then per header: key
 * length varint, key, value length varint, value (all varints zigzag).
 *
 * Headers: a batch has a fixed header layout (names and value sizes), written once as a template;
 * per record only the values differ. A header whose value is the same for every record of the batch
 * (`fp-schema`: the schema of a topic's records) is part of the template, value included, so it
 * costs a copy of its bytes and nothing per record beyond that. The feed records carry one of each
 * (`fp-src`, 14 bytes per record, and `fp-schema`); a fixed layout keeps the hot path to a few copies.
 *
 * Buffers: by default each builder allocates its own; a caller that makes many batches a second
 * (the ingestor's workers) passes a pool (`buffers`) and calls `release()` once the send settled,
 * so megabytes of batches are reused rather than left to the collector.
 */
import { KafkaClientError } from '../errors.js';
import { crc32c } from './crc32c.js';

export const BATCH_HEADER_BYTES = 61;
const CRC_AT = 17;
const ATTRIBUTES_AT = 21;
const MAGIC = 2;
/** What Java producers send as the leader epoch of a produced batch: not known to the client. */
const NO_PARTITION_LEADER_EPOCH = -1;
const INITIAL_BYTES = 16 * 1024;
/** A record batch larger than this cannot be sent (the broker's default message.max.bytes is ~1 MB; topics may allow more). */
export const MAX_BATCH_BYTES = 256 * 1024 * 1024;

/** What the producer stamps into a batch when it sends it. */
export interface ProducerFields {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
}

/** A finished batch of one partition, as BatchProducer sends it. */
export interface EncodedBatch {
  /** Records in the batch (the partition's sequence advances by this). */
  readonly count: number;
  /** The complete record batch with these producer fields and its CRC. */
  encode(fields: ProducerFields): Uint8Array;
}

/** Writes a record's value at `at` (at most `maxBytes` of room) and returns the end offset. */
export interface RecordValueWriter {
  readonly maxBytes: number;
  writeValue(out: Uint8Array, at: number): number;
}

/**
 * One header every record of a batch carries: its name, and either the fixed size of a value given
 * per record (`valueBytes`), or one value for every record (`value`).
 */
export type HeaderLayout =
  | { readonly name: string; readonly valueBytes: number; readonly value?: undefined }
  | { readonly name: string; readonly value: Uint8Array; readonly valueBytes?: undefined };

/** Where a builder's buffers come from and go back to (structural: a pool of the caller's). */
export interface BatchBuffers {
  /** A buffer of at least `minBytes` (contents undefined). */
  acquire(minBytes: number): Buffer;
  /** A buffer of at least `needed` bytes starting with the first `used` bytes of `buffer`, which goes back. */
  grow(buffer: Buffer, used: number, needed: number): Buffer;
  /** Takes a buffer back; nothing may use it afterwards. */
  recycle(buffer: Buffer): void;
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

/**
 * The header section of a record with every per-record value left out: [count][name][value length]
 * per header, and the value itself for a header with one value for all records.
 */
class HeaderTemplate {
  /** Pieces to write before each per-record value (the first also holds the count). */
  readonly prefixes: Uint8Array[];
  readonly valueBytes: number[];
  readonly totalValueBytes: number;
  readonly bytes: number;

  constructor(layout: readonly HeaderLayout[]) {
    this.prefixes = [];
    this.valueBytes = [];
    let bytes = 0;
    layout.forEach((header, index) => {
      const fixed = header.value;
      const valueBytes = fixed ? fixed.length : header.valueBytes;
      if (fixed ? header.valueBytes !== undefined : !Number.isInteger(valueBytes) || valueBytes < 0) {
        throw new KafkaClientError(
          'CONFIG_INVALID',
          `header "${header.name}": give either valueBytes (a non-negative integer) or one value`,
        );
      }
      const name = Buffer.from(header.name, 'utf8');
      const out = Buffer.alloc(5 + 5 + name.length + 5 + (fixed?.length ?? 0));
      let p = index === 0 ? putVarint(out, 0, layout.length) : 0;
      p = putVarint(out, p, name.length);
      name.copy(out, p);
      p = putVarint(out, p + name.length, valueBytes);
      if (fixed) {
        out.set(fixed, p);
        p += fixed.length;
      }
      this.prefixes.push(out.subarray(0, p));
      // A value given once is in the prefix: nothing of it comes with each record.
      this.valueBytes.push(fixed ? 0 : valueBytes);
      bytes += p + (fixed ? 0 : valueBytes);
    });
    // No headers: the section is the count alone (0).
    if (layout.length === 0) {
      this.prefixes.push(Uint8Array.of(0));
      this.valueBytes.push(0);
      bytes = 1;
    }
    this.totalValueBytes = this.valueBytes.reduce((s, n) => s + n, 0);
    this.bytes = bytes;
  }
}

const NO_HEADERS = new HeaderTemplate([]);
const EMPTY = new Uint8Array(0);
const NO_BYTES = Buffer.alloc(0);

/**
 * Templates by layout: a caller that keeps its layout in one constant (as it should: the layout of
 * a topic's records does not change) makes the template once, not once per batch.
 */
const templates = new WeakMap<readonly HeaderLayout[], HeaderTemplate>();
function templateOf(layout: readonly HeaderLayout[] | undefined): HeaderTemplate {
  if (!layout || layout.length === 0) return NO_HEADERS;
  let template = templates.get(layout);
  if (!template) {
    template = new HeaderTemplate(layout);
    templates.set(layout, template);
  }
  return template;
}

/** Fresh buffers, left to the collector: the default when no pool is given. */
const ALLOCATE: BatchBuffers = {
  acquire: (minBytes) => Buffer.allocUnsafe(minBytes),
  grow: (buffer, used, needed) => {
    let size = buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(Math.min(size, MAX_BATCH_BYTES));
    buffer.copy(grown, 0, 0, used);
    return grown;
  },
  recycle: () => undefined,
};

export interface RecordBatchBuilderOptions {
  /** Headers every record carries (fixed value sizes, or one value for all). Default none. */
  headers?: readonly HeaderLayout[];
  /** Bytes to reserve up front (the buffer grows by doubling). Default 16 KiB. */
  expectedBytes?: number;
  /** Where the batch's buffer comes from; `release()` gives it back. Default: a fresh buffer. */
  buffers?: BatchBuffers;
}

export class RecordBatchBuilder implements EncodedBatch {
  readonly #headers: HeaderTemplate;
  readonly #buffers: BatchBuffers;
  #bytes: Buffer;
  #view: DataView;
  #length = BATCH_HEADER_BYTES;
  #count = 0;
  #timestamp = 0;

  constructor(options: RecordBatchBuilderOptions = {}) {
    this.#headers = templateOf(options.headers);
    this.#buffers = options.buffers ?? ALLOCATE;
    this.#bytes = this.#buffers.acquire(
      Math.max(options.expectedBytes ?? INITIAL_BYTES, BATCH_HEADER_BYTES + 1024),
    );
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
  }

  /** Records appended. */
  get count(): number {
    return this.#count;
  }

  /** Bytes of the finished batch. */
  get byteLength(): number {
    return this.#length;
  }

  /**
   * Appends one record: `key` as is, the value from `value`, and `headerValues` (the values of the
   * batch's headers, concatenated in layout order; exactly their total size). Every record carries
   * timestamp delta 0: the batch is stamped with one time (CreateTime), see `stamp`.
   */
  append(key: Uint8Array, value: RecordValueWriter, headerValues: Uint8Array = EMPTY): void {
    const headers = this.#headers;
    if (headerValues.length !== headers.totalValueBytes) {
      throw new KafkaClientError(
        'BATCH_INVALID',
        `header values of ${headerValues.length} bytes, the batch's layout needs ${headers.totalValueBytes}`,
      );
    }
    const offsetDelta = this.#count;
    // Everything of the body before the value length: attributes, timestamp delta, offset delta, key.
    const head = 1 + 1 + varintSize(offsetDelta) + varintSize(key.length) + key.length;
    // Reserve 5 bytes for each of the two varints that depend on the value's length (known only once
    // it is written); the value is moved down afterwards if they turn out shorter.
    this.#ensure(5 + head + 5 + value.maxBytes + headers.bytes);
    const out = this.#bytes;
    const start = this.#length;
    const reservedValueAt = start + 5 + head + 5;
    const valueEnd = value.writeValue(out, reservedValueAt);
    const valueLength = valueEnd - reservedValueAt;
    const bodyLength = head + varintSize(valueLength) + valueLength + headers.bytes;
    let p = putVarint(out, start, bodyLength);
    out[p++] = 0; // record attributes: none
    out[p++] = 0; // timestamp delta 0
    p = putVarint(out, p, offsetDelta);
    p = putVarint(out, p, key.length);
    for (let i = 0; i < key.length; i++) out[p + i] = key[i] as number;
    p = putVarint(out, p + key.length, valueLength);
    if (p !== reservedValueAt) out.copyWithin(p, reservedValueAt, valueEnd);
    p += valueLength;
    let v = 0;
    for (let h = 0; h < headers.prefixes.length; h++) {
      const prefix = headers.prefixes[h] as Uint8Array;
      out.set(prefix, p);
      p += prefix.length;
      const n = headers.valueBytes[h] as number;
      for (let i = 0; i < n; i++) out[p + i] = headerValues[v + i] as number;
      p += n;
      v += n;
    }
    this.#length = p;
    this.#count += 1;
  }

  /** Appends a record whose value is already bytes (tests, small producers). */
  appendBytes(key: Uint8Array, value: Uint8Array, headerValues?: Uint8Array): void {
    this.append(
      key,
      {
        maxBytes: value.length,
        writeValue: (out, at) => {
          out.set(value, at);
          return at + value.length;
        },
      },
      headerValues,
    );
  }

  /** Fixes the batch's timestamp (epoch ms); `encode` uses it, or the time of its first call. */
  stamp(timestampMs: number): void {
    this.#timestamp = timestampMs;
  }

  encode(fields: ProducerFields): Uint8Array {
    if (this.#count === 0)
      throw new KafkaClientError('BATCH_INVALID', 'an empty record batch cannot be sent');
    if (this.#timestamp === 0) this.#timestamp = Date.now();
    const v = this.#view;
    v.setBigInt64(0, 0n);
    v.setInt32(8, this.#length - 12);
    v.setInt32(12, NO_PARTITION_LEADER_EPOCH);
    v.setInt8(16, MAGIC);
    v.setInt16(ATTRIBUTES_AT, 0);
    v.setInt32(23, this.#count - 1);
    v.setBigInt64(27, BigInt(this.#timestamp));
    v.setBigInt64(35, BigInt(this.#timestamp));
    v.setBigInt64(43, fields.producerId);
    v.setInt16(51, fields.producerEpoch);
    v.setInt32(53, fields.baseSequence);
    v.setInt32(57, this.#count);
    v.setUint32(CRC_AT, crc32c(this.#bytes, ATTRIBUTES_AT, this.#length));
    return this.#bytes.subarray(0, this.#length);
  }

  /**
   * Gives the buffer back to `buffers` and empties the builder (appending again starts a new batch
   * in a fresh buffer). Call only once the producer is done with the batch: after its send settled.
   */
  release(): void {
    const bytes = this.#bytes;
    this.#bytes = NO_BYTES;
    this.#view = new DataView(NO_BYTES.buffer, NO_BYTES.byteOffset, 0);
    this.#length = BATCH_HEADER_BYTES;
    this.#count = 0;
    this.#timestamp = 0;
    this.#buffers.recycle(bytes);
  }

  #ensure(room: number): void {
    const needed = this.#length + room;
    if (needed <= this.#bytes.length) return;
    if (needed > MAX_BATCH_BYTES) {
      throw new KafkaClientError('BATCH_INVALID', `a record batch may hold at most ${MAX_BATCH_BYTES} bytes`);
    }
    const grown =
      this.#bytes.length === 0
        ? this.#buffers.acquire(Math.max(needed, INITIAL_BYTES))
        : this.#buffers.grow(this.#bytes, this.#length, needed);
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }
}
