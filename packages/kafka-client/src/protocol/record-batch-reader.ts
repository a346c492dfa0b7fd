/**
 * Decodes a partition's fetched record batches (magic 2, the only format Kafka 4 writes) into a
 * PartitionBatch: columns of offsets, timestamps and positions over the fetched bytes.
 *
 *   RecordBatch => base_offset:int64 batch_length:int32 partition_leader_epoch:int32 magic:int8
 *                  crc:uint32 attributes:int16 last_offset_delta:int32 base_timestamp:int64
 *                  max_timestamp:int64 producer_id:int64 producer_epoch:int16
 *                  base_sequence:int32 records_count:int32 records
 *   Record => length:varint attributes:int8 timestamp_delta:varlong offset_delta:varint
 *             key_length:varint key value_length:varint value headers_count:varint [headers]
 *   Header => key_length:varint key value_length:varint value
 *
 * - The broker answers in whole batches, so a batch may begin before the offset asked for: records
 *   below `fromOffset` are skipped. The last batch may be cut at the fetch size: it is left for the
 *   next fetch.
 * - Control batches (transaction markers) hold no data: skipped, but reading goes on past them.
 * - On LogAppendTime topics a record's timestamp is the batch's max timestamp, as Java reads it.
 * - Compressed batches (attributes & 7) are inflated with the library's codecs; the batch's records
 *   are then copied into one buffer, the one case where this reader copies.
 * - CRC-32C: checked when `checkCrcs` (the default, as the Java consumer does): it covers bytes from
 *   `attributes` to the end of the batch and catches corruption on disk or in a proxy that TCP's
 *   checksum does not see. It costs one pass over the bytes (see the bench for the figure).
 */
import { compressionsAlgorithmsByBitmask } from '@platformatic/kafka';
import { KafkaClientError } from '../errors.js';
import { crc32c } from './crc32c.js';
import type { FetchPartitionAnswer } from './fetch-records.js';
import { LAYOUT_STRIDE, PartitionBatch } from './partition-batch.js';
import { cursor, readVarint, readVarlong } from './varint.js';

const BATCH_OVERHEAD = 12; // base_offset + batch_length: batch_length counts the bytes after them
const RECORDS_AT = 61;
const MAGIC_AT = 16;
const CRC_AT = 17;
const ATTRIBUTES_AT = 21;
const LAST_OFFSET_DELTA_AT = 23;
const BASE_TIMESTAMP_AT = 27;
const MAX_TIMESTAMP_AT = 35;
const RECORDS_COUNT_AT = 57;
const COMPRESSION_MASK = 0x07;
const CONTROL_FLAG = 0x20;
/** Timestamp type LogAppendTime: every record's timestamp is the batch's max timestamp (the broker's clock). */
const LOG_APPEND_TIME_FLAG = 0x08;
const TWO_32 = 4294967296;

/** One batch's records section, where its records are to be decoded. */
interface Section {
  bytes: Buffer;
  start: number;
  end: number;
  baseOffset: number;
  baseTimestamp: number;
  /** The broker's append time for every record (LogAppendTime topics), else undefined. */
  appendTime: number | undefined;
  count: number;
}

function corrupt(message: string): KafkaClientError {
  return new KafkaClientError('RECORDS_CORRUPT', message, { retriable: true });
}

function int64At(bytes: Buffer, at: number): number {
  return bytes.readInt32BE(at) * TWO_32 + bytes.readUInt32BE(at + 4);
}

/**
 * The records at or after `fromOffset` in `answer`, and where to read on (`nextOffset`). Throws
 * RECORDS_CORRUPT for a CRC mismatch, an unknown format or records that overrun their batch.
 */
export function readPartitionRecords(
  answer: FetchPartitionAnswer,
  fromOffset: number,
  checkCrcs: boolean,
): PartitionBatch {
  const data = answer.records;
  const where = `${answer.topic}:${answer.partition}`;
  const sections: Section[] = [];
  let next = fromOffset;
  let total = 0;
  let copied = false;
  for (let at = 0; at + RECORDS_AT <= data.length; ) {
    const end = at + BATCH_OVERHEAD + data.readInt32BE(at + 8);
    if (end > data.length) break; // cut at the fetch size: read again next time
    const magic = data[at + MAGIC_AT] as number;
    if (magic !== 2)
      throw corrupt(`${where}: record batch magic ${magic} at offset ${int64At(data, at)} (only 2 is read)`);
    if (checkCrcs && crc32c(data, at + ATTRIBUTES_AT, end) !== data.readUInt32BE(at + CRC_AT)) {
      throw corrupt(`${where}: CRC mismatch in the record batch at offset ${int64At(data, at)}`);
    }
    const baseOffset = int64At(data, at);
    const lastOffset = baseOffset + data.readInt32BE(at + LAST_OFFSET_DELTA_AT);
    const attributes = data.readInt16BE(at + ATTRIBUTES_AT);
    if (lastOffset >= next) next = lastOffset + 1;
    const count = data.readInt32BE(at + RECORDS_COUNT_AT);
    if ((attributes & CONTROL_FLAG) === 0 && count > 0 && lastOffset >= fromOffset) {
      let bytes = data;
      let start = at + RECORDS_AT;
      let stop = end;
      const codec = attributes & COMPRESSION_MASK;
      if (codec !== 0) {
        const algorithm = compressionsAlgorithmsByBitmask[codec];
        if (!algorithm) throw corrupt(`${where}: unknown compression ${codec}`);
        bytes = algorithm.decompressSync(data.subarray(start, stop));
        start = 0;
        stop = bytes.length;
        copied = true;
      }
      sections.push({
        bytes,
        start,
        end: stop,
        baseOffset,
        baseTimestamp: int64At(data, at + BASE_TIMESTAMP_AT),
        appendTime: attributes & LOG_APPEND_TIME_FLAG ? int64At(data, at + MAX_TIMESTAMP_AT) : undefined,
        count,
      });
      total += count;
    }
    at = end;
  }
  let bytes = data;
  if (copied) {
    // Views of one batch must share one buffer: join the sections (compressed topics only).
    bytes = Buffer.concat(sections.map((s) => s.bytes.subarray(s.start, s.end)));
    let at = 0;
    for (const s of sections) {
      const length = s.end - s.start;
      s.bytes = bytes;
      s.start = at;
      s.end = at + length;
      at += length;
    }
  }
  const offsets = new Float64Array(total);
  const timestamps = new Float64Array(total);
  const layout = new Int32Array(total * LAYOUT_STRIDE);
  let n = 0;
  for (const s of sections) n = decodeSection(s, fromOffset, n, offsets, timestamps, layout, where);
  return new PartitionBatch({
    topic: answer.topic,
    partition: answer.partition,
    highWatermark: answer.highWatermark,
    lastStableOffset: answer.lastStableOffset,
    logStartOffset: answer.logStartOffset,
    bytes,
    count: n,
    offsets,
    timestamps,
    layout,
    nextOffset: BigInt(next),
  });
}

/** Decodes one section's records into the columns from index `n`; returns the next free index. */
function decodeSection(
  s: Section,
  fromOffset: number,
  n: number,
  offsets: Float64Array,
  timestamps: Float64Array,
  layout: Int32Array,
  where: string,
): number {
  const bytes = s.bytes;
  cursor.at = s.start;
  for (let r = 0; r < s.count; r++) {
    if (cursor.at >= s.end)
      throw corrupt(`${where}: batch at ${s.baseOffset} holds fewer records than it says`);
    const length = readVarint(bytes);
    const end = cursor.at + length;
    if (length < 0 || end > s.end) throw corrupt(`${where}: a record overruns its batch at ${s.baseOffset}`);
    cursor.at += 1; // attributes: unused
    const timestampDelta = readVarlong(bytes);
    const offset = s.baseOffset + readVarint(bytes);
    const keyLength = readVarint(bytes);
    const keyAt = cursor.at;
    if (keyLength > 0) cursor.at += keyLength;
    const valueLength = readVarint(bytes);
    const valueAt = cursor.at;
    if (valueLength > 0) cursor.at += valueLength;
    const headerCount = readVarint(bytes);
    if (cursor.at > end) throw corrupt(`${where}: a record overruns its length at ${offset}`);
    const headersAt = cursor.at;
    cursor.at = end;
    if (offset < fromOffset) continue;
    offsets[n] = offset;
    timestamps[n] = s.appendTime ?? s.baseTimestamp + timestampDelta;
    const base = n * LAYOUT_STRIDE;
    layout[base] = keyLength < 0 ? -1 : keyAt;
    layout[base + 1] = keyAt + Math.max(0, keyLength);
    layout[base + 2] = valueLength < 0 ? -1 : valueAt;
    layout[base + 3] = valueAt + Math.max(0, valueLength);
    layout[base + 4] = headersAt;
    layout[base + 5] = headerCount;
    n += 1;
  }
  return n;
}
