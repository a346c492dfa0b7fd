import type { FeedRecord } from '@feedpipe/contracts';
import { CodecError } from '../errors.js';
import { MsgCode, PACKET_SIZE } from '../wire/constants.js';
import { CODE_BY_RECORD_TYPE, isRecordType } from '../wire/record-types.js';
import {
  writeError,
  writeMarketStatus,
  writeOhlc,
  writePrevClose,
  writeTrade,
  writeTwoFloats,
} from './packet-writer.js';
import { dataViewOf } from './view-cache.js';

/** Size in bytes of the packet that encodes `record`. */
export function encodedSize(record: FeedRecord): number {
  if (record === null || typeof record !== 'object' || !isRecordType(record.type)) {
    throw new CodecError('INVALID_RECORD', `unknown record type ${describeType(record)}`);
  }
  return PACKET_SIZE[CODE_BY_RECORD_TYPE[record.type]];
}

/** Writes one packet at the absolute offset `at` of `view`; the caller has checked the room. */
export function writeRecord(view: DataView, at: number, record: FeedRecord): number {
  switch (record.type) {
    case 'trade':
      return writeTrade(
        view,
        at,
        record.segment,
        record.securityId,
        record.ltp,
        record.volume,
        record.ltt,
        record.lut,
      );
    case 'ohlc':
      return writeOhlc(
        view,
        at,
        record.segment,
        record.securityId,
        record.open,
        record.close,
        record.high,
        record.low,
      );
    case 'prev_close':
      return writePrevClose(view, at, record.segment, record.securityId, record.prevClose);
    case 'circuit_limit':
      return writeTwoFloats(
        view,
        at,
        MsgCode.CircuitLimit,
        record.segment,
        record.securityId,
        record.upper,
        record.lower,
      );
    case 'week52':
      return writeTwoFloats(
        view,
        at,
        MsgCode.Week52,
        record.segment,
        record.securityId,
        record.high,
        record.low,
      );
    case 'market_status':
      return writeMarketStatus(view, at, record.segment, record.securityId, record.marketType, record.status);
    case 'error':
      return writeError(view, at, record.segment, record.securityId, record.code);
    default:
      throw new CodecError('INVALID_RECORD', `unknown record type ${describeType(record)}`);
  }
}

/**
 * Writes one packet at `offset` of `target` and returns the offset after it, allocating nothing
 * when called repeatedly on the same target. Throws CodecError('BUFFER_TOO_SMALL') if it does not
 * fit and CodecError('INVALID_RECORD') if a field cannot be represented on the wire; nothing is
 * written in either case.
 */
export function encodeRecord(target: Uint8Array, offset: number, record: FeedRecord): number {
  const size = encodedSize(record);
  if (!Number.isInteger(offset) || offset < 0 || offset + size > target.length) {
    throw new CodecError(
      'BUFFER_TOO_SMALL',
      `a ${record.type} packet needs ${size} bytes at offset ${offset}, the target holds ${target.length}`,
    );
  }
  writeRecord(dataViewOf(target), target.byteOffset + offset, record);
  return offset + size;
}

/** One WebSocket message (frame) holding all records, packed back to back. */
export function encodeFrame(records: readonly FeedRecord[]): Uint8Array {
  let total = 0;
  for (const record of records) total += encodedSize(record);
  const frame = new Uint8Array(total);
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  let at = 0;
  for (const record of records) at = writeRecord(view, at, record);
  return frame;
}

function describeType(record: unknown): string {
  if (record === null || typeof record !== 'object') return String(record);
  const type = (record as { type?: unknown }).type;
  return typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : String(type);
}
