/**
 * The records of one partition from one fetch, as columns over the fetched bytes: no object per
 * record. Offsets and timestamps sit in Float64Arrays, and the positions of each record's key,
 * value and headers in one Int32Array (LAYOUT_STRIDE ints a record); `key(i)`, `value(i)` and
 * `header(i, name)` hand out Buffer views into `bytes` only when asked. Headers are parsed again
 * on each lookup (a few varints) rather than kept: the sink reads one header of each record.
 *
 * Offsets are JavaScript numbers: exact below 2^53, i.e. for 285 years at a million records a
 * second. Batch-level offsets (high watermark, nextOffset) are bigints, as commits take them.
 *
 * The views keep `bytes` (a whole fetch response, ~4 MiB) alive while anyone holds one: copy what
 * must outlive the batch.
 */
import { cursor, readVarint } from './varint.js';

/** Ints per record in `layout`: key start/end, value start/end (start -1: null), headers at, header count. */
export const LAYOUT_STRIDE = 6;
const KEY = 0;
const VALUE = 2;
const HEADERS_AT = 4;
const HEADER_COUNT = 5;

/** One record, as an object: the convenient and slower way (tests, tools, small topics). */
export interface ConsumedRecord {
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | undefined;
  readonly value: Buffer | undefined;
  /** Header name and value pairs, in record order. */
  readonly headerEntries: ReadonlyArray<readonly [Buffer, Buffer]>;
}

export interface PartitionBatchFields {
  topic: string;
  partition: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
  bytes: Buffer;
  count: number;
  offsets: Float64Array;
  timestamps: Float64Array;
  layout: Int32Array;
  nextOffset: bigint;
}

export class PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  /** The partition's high watermark when the broker answered (offset of the next record it will append). */
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  /** First offset still in the log (-1 where the broker did not say). */
  readonly logStartOffset: bigint;
  /** Records in the batch, in offset order. */
  readonly count: number;
  /** The memory every view of this batch points into. */
  readonly bytes: Buffer;
  /**
   * Where reading goes on after this batch: past its last record batch, so past control batches
   * and compacted gaps too. What to commit once every record of the batch is stored.
   */
  readonly nextOffset: bigint;
  readonly #offsets: Float64Array;
  readonly #timestamps: Float64Array;
  readonly #layout: Int32Array;

  constructor(fields: PartitionBatchFields) {
    this.topic = fields.topic;
    this.partition = fields.partition;
    this.highWatermark = fields.highWatermark;
    this.lastStableOffset = fields.lastStableOffset;
    this.logStartOffset = fields.logStartOffset;
    this.bytes = fields.bytes;
    this.count = fields.count;
    this.nextOffset = fields.nextOffset;
    this.#offsets = fields.offsets;
    this.#timestamps = fields.timestamps;
    this.#layout = fields.layout;
  }

  /** Offset of the first record (NaN when empty). */
  get firstOffset(): number {
    return this.count > 0 ? (this.#offsets[0] as number) : Number.NaN;
  }

  /** Offset of the last record (NaN when empty). */
  get lastOffset(): number {
    return this.count > 0 ? (this.#offsets[this.count - 1] as number) : Number.NaN;
  }

  offset(i: number): number {
    return this.#offsets[i] as number;
  }

  /** Record timestamp, ms since the epoch. */
  timestamp(i: number): number {
    return this.#timestamps[i] as number;
  }

  key(i: number): Buffer | undefined {
    return this.#view(i * LAYOUT_STRIDE + KEY);
  }

  value(i: number): Buffer | undefined {
    return this.#view(i * LAYOUT_STRIDE + VALUE);
  }

  /** Where record i's value starts in `bytes` (-1 when null), for readers that take the bytes in place. */
  valueStart(i: number): number {
    return this.#layout[i * LAYOUT_STRIDE + VALUE] as number;
  }

  valueEnd(i: number): number {
    return this.#layout[i * LAYOUT_STRIDE + VALUE + 1] as number;
  }

  headerCount(i: number): number {
    return this.#layout[i * LAYOUT_STRIDE + HEADER_COUNT] as number;
  }

  /**
   * The value of record i's header `name` (the last one if repeated), or undefined. `name` is
   * compared byte for byte as latin1, so header names are expected in ASCII, as Kafka's are.
   */
  header(i: number, name: string): Buffer | undefined {
    const bytes = this.bytes;
    const base = i * LAYOUT_STRIDE;
    let at = this.#layout[base + HEADERS_AT] as number;
    let found = -2;
    let foundEnd = 0;
    for (let h = this.#layout[base + HEADER_COUNT] as number; h > 0; h--) {
      cursor.at = at;
      const nameLength = readVarint(bytes);
      const nameAt = cursor.at;
      cursor.at += nameLength;
      const valueLength = readVarint(bytes);
      const valueAt = cursor.at;
      at = valueLength > 0 ? valueAt + valueLength : valueAt;
      if (nameLength !== name.length) continue;
      let same = true;
      for (let c = 0; c < nameLength; c++) {
        if (bytes[nameAt + c] !== name.charCodeAt(c)) {
          same = false;
          break;
        }
      }
      if (same) {
        found = valueLength < 0 ? -1 : valueAt;
        foundEnd = valueAt + Math.max(0, valueLength);
      }
    }
    if (found === -2 || found === -1) return undefined;
    return bytes.subarray(found, foundEnd);
  }

  /** Record i's headers as name/value pairs (a null value reads as an empty buffer). */
  headers(i: number): Array<[Buffer, Buffer]> {
    const bytes = this.bytes;
    const base = i * LAYOUT_STRIDE;
    const out: Array<[Buffer, Buffer]> = [];
    cursor.at = this.#layout[base + HEADERS_AT] as number;
    for (let h = this.#layout[base + HEADER_COUNT] as number; h > 0; h--) {
      const nameLength = readVarint(bytes);
      const name = bytes.subarray(cursor.at, cursor.at + nameLength);
      cursor.at += nameLength;
      const valueLength = Math.max(0, readVarint(bytes));
      const value = bytes.subarray(cursor.at, cursor.at + valueLength);
      cursor.at += valueLength;
      out.push([name, value]);
    }
    return out;
  }

  /** Record i as an object (allocates; the accessors above do not). */
  record(i: number): ConsumedRecord {
    return {
      offset: BigInt(this.offset(i)),
      timestamp: BigInt(this.timestamp(i)),
      key: this.key(i),
      value: this.value(i),
      headerEntries: this.headers(i),
    };
  }

  *[Symbol.iterator](): IterableIterator<ConsumedRecord> {
    for (let i = 0; i < this.count; i++) yield this.record(i);
  }

  #view(at: number): Buffer | undefined {
    const start = this.#layout[at] as number;
    if (start < 0) return undefined;
    return this.bytes.subarray(start, this.#layout[at + 1] as number);
  }
}

/** The value of header `name` of `record` (the last one if repeated), or undefined. */
export function headerValue(record: ConsumedRecord, name: string): Buffer | undefined {
  const entries = record.headerEntries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as readonly [Buffer, Buffer];
    if (entry[0].length === name.length && entry[0].toString('latin1') === name) return entry[1];
  }
  return undefined;
}
