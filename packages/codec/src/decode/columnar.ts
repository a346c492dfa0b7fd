import { CodecError } from '../errors.js';
import { MsgCode } from '../wire/constants.js';
import type { ColumnarBatch } from './columnar-batch.js';
import type { DecodeCounters } from './counters.js';
import { PacketCursor } from './packet-cursor.js';

/**
 * Where decodeFramesToColumns stopped, owned by the caller so one input can be decoded into several
 * batches: `frame` is the ordinal of the next frame, `byteInFrame` a packet boundary inside it when a
 * batch filled mid-frame, `packOffset` the byte offset of that frame's record in a pack input, and
 * `done` turns true once the whole input is consumed.
 */
export interface DecodePosition {
  frame: number;
  byteInFrame: number;
  packOffset: number;
  done: boolean;
}

export function newDecodePosition(): DecodePosition {
  return { frame: 0, byteInFrame: 0, packOffset: 0, done: false };
}

/** Capture-record header in a pack: u32 LE payload length, u64 LE receive time (microseconds). */
const PACK_RECORD_HEADER = 12;

const shared = new PacketCursor();

/**
 * Decodes frames into the preallocated columns of `batch`, appending after its current rows, and
 * returns the number of rows added. Input is either an array of frames or one pack: capture records
 * (u32 LE length, u64 LE receive time in microseconds, payload) back to back, the layout of a
 * capture file after its magic, so a worker gets a whole batch of frames in one transferable buffer.
 *
 * Stops when the input is consumed or the batch is full; pass the same `position` again (after
 * clearing the batch) to continue exactly where it stopped, mid-frame if need be. Without a position
 * it starts at the beginning and whatever does not fit is left undecoded. Peer bytes never make it
 * throw; a pack whose record headers are inconsistent is a local fault: CodecError('INVALID_CAPTURE').
 */
export function decodeFramesToColumns(
  frames: readonly Uint8Array[] | Uint8Array,
  batch: ColumnarBatch,
  counters?: DecodeCounters,
  position: DecodePosition = newDecodePosition(),
): number {
  const cursor = shared;
  cursor.resetCounters();
  const before = batch.length;
  try {
    if (frames instanceof Uint8Array) decodePack(frames, batch, cursor, position);
    else decodeList(frames, batch, cursor, position);
  } finally {
    if (counters !== undefined) cursor.addCountersTo(counters);
  }
  return batch.length - before;
}

function decodeList(
  frames: readonly Uint8Array[],
  batch: ColumnarBatch,
  cursor: PacketCursor,
  position: DecodePosition,
): void {
  while (position.frame < frames.length) {
    if (batch.length >= batch.capacity) return;
    const bytes = frames[position.frame] as Uint8Array;
    if (!decodeOneFrame(bytes, 0, batch, cursor, position)) return;
    position.frame++;
  }
  position.done = true;
}

function decodePack(
  pack: Uint8Array,
  batch: ColumnarBatch,
  cursor: PacketCursor,
  position: DecodePosition,
): void {
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  while (position.packOffset < pack.byteLength) {
    if (batch.length >= batch.capacity) return;
    const at = position.packOffset;
    if (pack.byteLength - at < PACK_RECORD_HEADER) {
      throw new CodecError('INVALID_CAPTURE', `pack record header at byte ${at} is truncated`);
    }
    const length = view.getUint32(at, true);
    const start = at + PACK_RECORD_HEADER;
    if (length > pack.byteLength - start) {
      throw new CodecError(
        'INVALID_CAPTURE',
        `pack record at byte ${at} claims ${length} bytes beyond the end`,
      );
    }
    // Two 32-bit halves instead of getBigUint64: no BigInt per frame, exact below 2^53 microseconds.
    const micros = view.getUint32(at + 4, true) + view.getUint32(at + 8, true) * 4294967296;
    const payload = pack.subarray(start, start + length);
    if (!decodeOneFrame(payload, micros, batch, cursor, position)) return;
    position.frame++;
    position.packOffset = start + length;
  }
  position.done = true;
}

/** Decodes (the rest of) one frame; false when the batch filled before the frame ended. */
function decodeOneFrame(
  bytes: Uint8Array,
  micros: number,
  batch: ColumnarBatch,
  cursor: PacketCursor,
  position: DecodePosition,
): boolean {
  if (position.byteInFrame === 0) cursor.reset(bytes);
  else cursor.resume(bytes, position.byteInFrame);
  const frameIndex = position.frame;
  const capacity = batch.capacity;
  const { code, segment, securityId, f0, f1, f2, f3, i0, i1, i2 } = batch;
  let row = batch.length;
  while (cursor.next()) {
    const c = cursor.code;
    code[row] = c;
    segment[row] = cursor.segment;
    securityId[row] = cursor.securityId;
    batch.frameIndex[row] = frameIndex;
    batch.receivedAtMicros[row] = micros;
    switch (c) {
      case MsgCode.Trade:
        f0[row] = cursor.ltp;
        f1[row] = 0;
        f2[row] = 0;
        f3[row] = 0;
        i0[row] = cursor.volume;
        i1[row] = cursor.ltt;
        i2[row] = cursor.lut;
        break;
      case MsgCode.Ohlc:
        f0[row] = cursor.open;
        f1[row] = cursor.close;
        f2[row] = cursor.high;
        f3[row] = cursor.low;
        i0[row] = 0;
        i1[row] = 0;
        i2[row] = 0;
        break;
      default:
        writeRareRow(batch, row, cursor, c);
    }
    row++;
    if (row >= capacity) {
      batch.length = row;
      position.byteInFrame = cursor.nextOffset;
      return false;
    }
  }
  batch.length = row;
  position.byteInFrame = 0;
  return true;
}

/** Reference, status and error packets: rare, so kept out of the hot loop's body. */
function writeRareRow(batch: ColumnarBatch, row: number, cursor: PacketCursor, c: number): void {
  let f0 = 0;
  let f1 = 0;
  let i0 = 0;
  let i1 = 0;
  switch (c) {
    case MsgCode.PrevClose:
      f0 = cursor.prevClose;
      break;
    case MsgCode.CircuitLimit:
      f0 = cursor.upper;
      f1 = cursor.lower;
      break;
    case MsgCode.Week52:
      f0 = cursor.week52High;
      f1 = cursor.week52Low;
      break;
    case MsgCode.MarketStatus:
      i0 = cursor.marketType(0) | (cursor.marketType(1) << 8) | (cursor.marketType(2) << 16);
      i1 = cursor.marketStatus;
      break;
    case MsgCode.Error:
      i0 = cursor.errorCode;
      break;
  }
  batch.f0[row] = f0;
  batch.f1[row] = f1;
  batch.f2[row] = 0;
  batch.f3[row] = 0;
  batch.i0[row] = i0;
  batch.i1[row] = i1;
  batch.i2[row] = 0;
}
