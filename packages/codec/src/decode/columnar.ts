import { CodecError } from '../errors.js';
import { FIXED_SIZE_BY_CODE, HEADER_SIZE, MsgCode, Offset } from '../wire/constants.js';
import { isNoDataYet, REFERENCE_CODE } from '../wire/no-data-yet.js';
import { type ColumnarBatch, ROW_WORDS, RowWord } from './columnar-batch.js';
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
const KNOWN_CODES: readonly number[] = Object.values(MsgCode);

/**
 * Decodes frames into the preallocated columns of `batch`, appending after its current rows, and
 * returns the number of rows added. Input is either an array of frames or one pack: capture records
 * (u32 LE length, u64 LE receive time in microseconds, payload) back to back, the layout of a
 * capture file after its magic, so a worker gets a whole batch of frames in one transferable buffer.
 *
 * A "no data yet" packet (wire/no-data-yet.ts) is decoded and counted but yields no row.
 *
 * Stops when the input is consumed or the batch is full (every row or every frame slot taken, see
 * ColumnarBatch.full); pass the same `position` again (after
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
  fastCounts.fill(0);
  frameCount = 0;
  noDataYetCount = 0;
  const before = batch.length;
  try {
    if (frames instanceof Uint8Array) decodePack(frames, batch, cursor, position);
    else decodeList(frames, batch, cursor, position);
  } finally {
    if (counters !== undefined) {
      cursor.addCountersTo(counters);
      counters.frames += frameCount;
      counters.noDataYet += noDataYetCount;
      for (const code of KNOWN_CODES) {
        const count = fastCounts[code] as number;
        if (count > 0) {
          counters.packets += count;
          counters.byCode[code] = (counters.byCode[code] ?? 0) + count;
        }
      }
    }
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
    if (batch.full) return;
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
    if (batch.full) return;
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
    // The u64 time from its two 32-bit halves: no BigInt per frame, exact below 2^53 microseconds.
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
  // The cursor is only needed for the rare steps; the fast path reads through a cached DataView.
  if (position.byteInFrame === 0) frameCount++;
  const view = dataViewOf(bytes);
  const frameStart = bytes.byteOffset;
  const end = frameStart + bytes.byteLength;
  const capacity = batch.capacity;
  const words = batch.words;
  // A slot in the frame table, kept only if the frame yields a row; the callers checked that one is
  // free (batch.full).
  const slot = batch.frameCount;
  batch.frameOrdinals[slot] = position.frame;
  batch.frameReceivedAtMicros[slot] = micros;
  let at = frameStart + position.byteInFrame;
  const firstRow = batch.length;
  let row = firstRow;
  let frameDone = false;
  while (row < capacity) {
    // Fast path, the same test as PacketCursor.next()'s: a known code whose length covers its
    // fields and fits the frame. Walking these here rather than through the cursor halves the cost
    // per packet (the cursor's per-packet field stores stay out of the loop). Everything else - zero
    // length, fallback sizes, unknown codes, malformed tails - is one step of the cursor, the single
    // implementation of those rules.
    const remaining = end - at;
    if (remaining === 0) {
      frameDone = true;
      break;
    }
    if (remaining >= HEADER_SIZE) {
      const length = view.getUint8(at + Offset.length);
      const code = view.getUint8(at + Offset.code);
      const fixed = FIXED_SIZE_BY_CODE[code] as number;
      if (fixed !== 0 && length >= fixed && length <= remaining) {
        fastCounts[code] = (fastCounts[code] as number) + 1;
        // The table load first: trades and OHLC (nearly every packet) skip the id read.
        if (REFERENCE_CODE[code] === 1 && view.getInt32(at + Offset.securityId, true) === 0) {
          noDataYetCount++;
        } else {
          writeRow(words, row * ROW_WORDS, view, at, code, slot);
          row++;
        }
        at += length;
        continue;
      }
    }
    if (!slowStep(cursor, bytes, at - frameStart)) {
      frameDone = true;
      break;
    }
    at = frameStart + cursor.nextOffset;
    if (isNoDataYet(cursor.code, cursor.securityId)) {
      noDataYetCount++;
      continue;
    }
    writeRow(words, row * ROW_WORDS, view, cursor.packetStart, cursor.code, slot);
    row++;
  }
  batch.length = row;
  if (row > firstRow) batch.frameCount = slot + 1;
  if (!frameDone) {
    // Full, maybe mid-frame (or exactly at its end): resume after the last packet taken.
    position.byteInFrame = at - frameStart;
    return false;
  }
  position.byteInFrame = 0;
  return true;
}

/** One step of the cursor from `offset`: every frame rule, for whatever the fast path declined. */
function slowStep(cursor: PacketCursor, bytes: Uint8Array, offset: number): boolean {
  cursor.resume(bytes, offset);
  return cursor.next();
}

let cachedBuffer: ArrayBufferLike | undefined;
let cachedView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

/** A DataView over the frame's whole backing buffer, reused while frames share one (ws slices). */
function dataViewOf(bytes: Uint8Array): DataView<ArrayBufferLike> {
  if (bytes.buffer !== cachedBuffer) {
    cachedBuffer = bytes.buffer;
    cachedView = new DataView(bytes.buffer);
  }
  return cachedView;
}

/** Frames begun since decodeFramesToColumns started (the cursor never sees most of them). */
let frameCount = 0;

/** "No data yet" packets skipped since decodeFramesToColumns started (fast and slow path). */
let noDataYetCount = 0;

/**
 * Packets the fast path decoded, by code, since decodeFramesToColumns began; merged into the
 * caller's counters with the cursor's (which counts frames, malformed, unknown and the packets of
 * its own steps).
 */
const fastCounts = new Float64Array(256);

/**
 * One row from the packet at absolute offset `at` of `view`; the caller has established that the
 * code's whole fixed layout lies inside the frame, so every read here stays inside it.
 */
function writeRow(
  words: Int32Array,
  base: number,
  view: DataView<ArrayBufferLike>,
  at: number,
  code: number,
  slot: number,
): void {
  words[base] = code | (view.getUint8(at + Offset.segment) << 8) | (slot << 16);
  words[base + RowWord.securityId] = view.getInt32(at + Offset.securityId, true);
  const value0 = base + RowWord.value0;
  if (code === MsgCode.Trade || code === MsgCode.Ohlc) {
    // Both carry four 32-bit fields at 11..26: copied as raw words, floats bit for bit.
    words[value0] = view.getInt32(at + Offset.field0, true);
    words[value0 + 1] = view.getInt32(at + Offset.field1, true);
    words[value0 + 2] = view.getInt32(at + Offset.field2, true);
    words[value0 + 3] = view.getInt32(at + Offset.field3, true);
  } else {
    writeRareValues(words, value0, view, at, code);
  }
}

/** Reference, status and error payloads: rare, so kept out of the hot loop's body. */
function writeRareValues(
  words: Int32Array,
  value0: number,
  view: DataView<ArrayBufferLike>,
  at: number,
  code: number,
): void {
  let w0 = 0;
  let w1 = 0;
  switch (code) {
    case MsgCode.PrevClose:
      w0 = view.getInt32(at + Offset.field0, true);
      break;
    case MsgCode.CircuitLimit:
    case MsgCode.Week52:
      w0 = view.getInt32(at + Offset.field0, true);
      w1 = view.getInt32(at + Offset.field1, true);
      break;
    case MsgCode.MarketStatus:
      w0 =
        view.getUint8(at + Offset.marketType) |
        (view.getUint8(at + Offset.marketType + 1) << 8) |
        (view.getUint8(at + Offset.marketType + 2) << 16);
      w1 = view.getInt32(at + Offset.marketStatus, true);
      break;
    case MsgCode.Error:
      w0 = view.getInt16(at + Offset.errorCode, true);
      break;
  }
  words[value0] = w0;
  words[value0 + 1] = w1;
  words[value0 + 2] = 0;
  words[value0 + 3] = 0;
}
