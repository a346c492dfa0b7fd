/**
 * One record of the postback write-ahead log, as bytes. Little endian, 24-byte header:
 *
 *   0  u32  body length L (bytes of UTF-8 JSON after the header)
 *   4  u32  CRC-32 of bytes 8 .. 24+L (header rest and body)
 *   8  u64  sequence number (unique and increasing within one log directory)
 *  16  u48  receive time, epoch ms
 *  22  u8   source: 1 postback, 2 reconcile
 *  23  u8   reserved, 0
 *  24  L    the body exactly as received
 *
 * A record is valid only whole and with a matching CRC: a crash mid-write leaves a torn tail that
 * the reader recognises and stops at (everything before it was synced and acknowledged; the torn
 * record never was).
 */
import { crc32 } from 'node:zlib';
import type { OrderEventSource } from './order-event.js';

export const WAL_HEADER_BYTES = 24;

export interface WalRecord {
  readonly seq: number;
  readonly receivedAtMs: number;
  readonly source: OrderEventSource;
  /** The body's JSON text. */
  readonly body: string;
  /** Size of the record in the log (header + body). */
  readonly bytes: number;
}

const SOURCE_CODE: Record<OrderEventSource, number> = { postback: 1, reconcile: 2 };

export function encodeRecord(
  seq: number,
  receivedAtMs: number,
  source: OrderEventSource,
  body: string,
): Buffer {
  const length = Buffer.byteLength(body, 'utf8');
  const buf = Buffer.allocUnsafe(WAL_HEADER_BYTES + length);
  buf.writeUInt32LE(length, 0);
  buf.writeBigUInt64LE(BigInt(seq), 8);
  buf.writeUIntLE(receivedAtMs, 16, 6);
  buf.writeUInt8(SOURCE_CODE[source], 22);
  buf.writeUInt8(0, 23);
  buf.write(body, WAL_HEADER_BYTES, 'utf8');
  buf.writeUInt32LE(crc32(buf.subarray(8)), 4);
  return buf;
}

export type TailState = 'clean' | 'torn' | 'corrupt';

export interface DecodedSegment {
  readonly records: WalRecord[];
  /** How the segment ends: whole records only, a cut-off record, or bytes that fail the checks. */
  readonly tail: TailState;
}

/** Reads records from the start of `buf` until its end or the first record that is not whole and valid. */
export function decodeSegment(buf: Buffer, maxBodyBytes: number): DecodedSegment {
  const records: WalRecord[] = [];
  let at = 0;
  while (at < buf.length) {
    if (buf.length - at < WAL_HEADER_BYTES) return { records, tail: 'torn' };
    const length = buf.readUInt32LE(at);
    if (length > maxBodyBytes) return { records, tail: 'corrupt' };
    const end = at + WAL_HEADER_BYTES + length;
    if (end > buf.length) return { records, tail: 'torn' };
    if (crc32(buf.subarray(at + 8, end)) !== buf.readUInt32LE(at + 4)) return { records, tail: 'corrupt' };
    const code = buf.readUInt8(at + 22);
    if (code !== 1 && code !== 2) return { records, tail: 'corrupt' };
    records.push({
      seq: Number(buf.readBigUInt64LE(at + 8)),
      receivedAtMs: buf.readUIntLE(at + 16, 6),
      source: code === 1 ? 'postback' : 'reconcile',
      body: buf.toString('utf8', at + WAL_HEADER_BYTES, end),
      bytes: end - at,
    });
    at = end;
  }
  return { records, tail: 'clean' };
}
