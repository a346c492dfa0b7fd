import { describe, expect, it } from 'vitest';
import {
  ColumnarBatch,
  type DecodeCounters,
  decodeFramesToColumns,
  decodeFrameToRecords,
  type FeedRecord,
  FrameBuilder,
  newDecodeCounters,
  PacketCursor,
  ROW_WORDS,
  recordToJson,
} from '../src/index.js';

/**
 * Feeds 1,000,000 random and mutated frames to the decoders. No exception may escape, and no read
 * may leave the frame: every frame is decoded twice, once at the very start of its ArrayBuffer with
 * garbage after it, once at the very end of another ArrayBuffer with different garbage before it. A
 * read past either edge would throw (RangeError) in one placement, and a read of the garbage would
 * make the two decodes differ, so equal digests and counters prove the reads stayed inside.
 */

const FRAMES = 1_000_000;
const MAX_FRAME = 256;

/** xorshift32: cheap and deterministic, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed | 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

function baseFrames(next: () => number): Uint8Array[] {
  const builder = new FrameBuilder();
  const frames: Uint8Array[] = [];
  for (let f = 0; f < 128; f++) {
    builder.reset();
    const packets = 1 + (next() % 9);
    for (let p = 0; p < packets; p++) {
      const id = next() | 0;
      const x = (next() % 100000) / 100;
      switch (next() % 7) {
        case 0:
          builder.trade(14, id, x, next() | 0, next() | 0, next() | 0);
          break;
        case 1:
          builder.ohlc(14, id, x, x + 1, x + 2, x - 1);
          break;
        case 2:
          builder.prevClose(14, id, x);
          break;
        case 3:
          builder.circuitLimit(0, 0, 0, 0);
          break;
        case 4:
          builder.week52(14, id, x, x / 2);
          break;
        case 5:
          builder.marketStatus(14, id, [next() & 0xff, 1, 2], next() | 0);
          break;
        default:
          builder.error(805 + (next() % 5));
      }
    }
    frames.push(builder.toBytes());
  }
  return frames;
}

/** Writes a mutated or random frame into `out`; returns its length. */
function mutate(next: () => number, bases: readonly Uint8Array[], out: Uint8Array): number {
  const base = bases[next() % bases.length] as Uint8Array;
  const kind = next() % 8;
  if (kind === 0) {
    const length = next() % 80;
    for (let i = 0; i < length; i++) out[i] = next() & 0xff;
    return length;
  }
  let length = Math.min(base.length, MAX_FRAME);
  out.set(base.subarray(0, length));
  if (kind === 7 && length + 40 <= MAX_FRAME) {
    // A second frame glued on: packets spanning the seam, lengths pointing across it.
    const other = bases[next() % bases.length] as Uint8Array;
    const extra = Math.min(other.length, MAX_FRAME - length);
    out.set(other.subarray(0, extra), length);
    length += extra;
  }
  const edits = 1 + (next() % 4);
  for (let e = 0; e < edits; e++) {
    const at = next() % Math.max(length, 1);
    switch (kind) {
      case 1:
        out[at] = next() & 0xff;
        break;
      case 2:
        // Length bytes sit at 9 of a packet; hitting byte 9 of an 11-aligned offset is likely enough.
        out[Math.min(length - 1, (at - (at % 11) + 9) | 0)] = next() % 40;
        break;
      case 3:
        out[Math.min(length - 1, (at - (at % 11) + 10) | 0)] = next() & 0xff;
        break;
      case 4:
        length = at;
        break;
      case 5:
        out[at] = 0;
        break;
      default:
        out[at] = (out[at] as number) ^ (1 << (next() % 8));
    }
  }
  return Math.max(0, length);
}

const floatBits = new Float32Array(1);
const floatWord = new Uint32Array(floatBits.buffer);

function mix(h: number, v: number): number {
  return Math.imul(h ^ (v | 0), 0x01000193) >>> 0;
}

function mixFloat(h: number, v: number): number {
  floatBits[0] = v;
  return mix(h, floatWord[0] as number);
}

/**
 * Reads the fields of every packet (with `allGetters`, also every other type's getters, which must
 * read nothing); the digest depends on every byte the cursor reads.
 */
let lastSteps = 0;

/** Packets the last digest() walked, left in `lastSteps`. */
function digest(cursor: PacketCursor, frame: Uint8Array, allGetters: boolean): number {
  cursor.reset(frame);
  let h = 0x811c9dc5;
  let steps = 0;
  while (cursor.next()) {
    if (++steps > frame.length) throw new Error('cursor did not advance');
    h = mix(h, cursor.code);
    h = mix(h, cursor.segment);
    h = mix(h, cursor.securityId);
    h = mix(h, cursor.securityIdCopy);
    h = mix(h, cursor.offset);
    h = mix(h, cursor.size);
    h = mix(h, cursor.length);
    if (allGetters) {
      h = mixEverything(h, cursor);
      continue;
    }
    switch (cursor.code) {
      case 1:
        h = mix(mix(mix(mixFloat(h, cursor.ltp), cursor.volume), cursor.ltt), cursor.lut);
        break;
      case 3:
        h = mixFloat(mixFloat(mixFloat(mixFloat(h, cursor.open), cursor.close), cursor.high), cursor.low);
        break;
      case 29:
        h = mix(
          mix(mix(mix(h, cursor.marketType(0)), cursor.marketType(1)), cursor.marketType(2)),
          cursor.marketStatus,
        );
        break;
      case 32:
        h = mixFloat(h, cursor.prevClose);
        break;
      case 33:
        h = mixFloat(mixFloat(h, cursor.upper), cursor.lower);
        break;
      case 36:
        h = mixFloat(mixFloat(h, cursor.week52High), cursor.week52Low);
        break;
      default:
        h = mix(h, cursor.errorCode);
    }
  }
  lastSteps = steps;
  return h;
}

function mixEverything(start: number, cursor: PacketCursor): number {
  let h = start;
  h = mixFloat(h, cursor.ltp);
  h = mix(h, cursor.volume);
  h = mix(h, cursor.ltt);
  h = mix(h, cursor.lut);
  h = mixFloat(h, cursor.open);
  h = mixFloat(h, cursor.close);
  h = mixFloat(h, cursor.high);
  h = mixFloat(h, cursor.low);
  h = mixFloat(h, cursor.prevClose);
  h = mixFloat(h, cursor.upper);
  h = mixFloat(h, cursor.lower);
  h = mixFloat(h, cursor.week52High);
  h = mixFloat(h, cursor.week52Low);
  h = mix(h, cursor.marketType(0));
  h = mix(h, cursor.marketType(1));
  h = mix(h, cursor.marketType(2));
  h = mix(h, cursor.marketStatus);
  h = mix(h, cursor.errorCode);
  return h;
}

function sameColumns(a: ColumnarBatch, b: ColumnarBatch): boolean {
  if (a.length !== b.length) return false;
  const words = a.length * ROW_WORDS;
  for (let i = 0; i < words; i++) if (a.words[i] !== b.words[i]) return false;
  return true;
}

describe('fuzz: 1,000,000 random and mutated frames', () => {
  it('never throws, always ends, and reads only inside the frame', () => {
    const next = rng(0x5eed);
    const bases = baseFrames(next);
    const work = new Uint8Array(MAX_FRAME);
    // Placement A: frame at the start of a buffer, 0xC3 after it.
    const startArena = new Uint8Array(MAX_FRAME + 64);
    // Placement B: frame after 64 bytes of 0x3C, with 0x3C after it too; every 8th frame instead at
    // the very end of a buffer of exactly its length plus those 64 bytes.
    const middleArena = new Uint8Array(64 + MAX_FRAME + 64).fill(0x3c);
    const endArenas = Array.from({ length: MAX_FRAME + 1 }, (_, n) => new Uint8Array(64 + n).fill(0x3c));
    const cursorA = new PacketCursor();
    const cursorB = new PacketCursor();
    const batchA = new ColumnarBatch(MAX_FRAME);
    const batchB = new ColumnarBatch(MAX_FRAME);
    const countersA = newDecodeCounters();
    const countersB = newDecodeCounters();
    const oneA: Uint8Array[] = [new Uint8Array(0)];
    const oneB: Uint8Array[] = [new Uint8Array(0)];
    let previousLength = 0;
    const recordCounters = newDecodeCounters();
    const cursorSide = { frames: 0, packets: 0, malformed: 0, unknown: 0 };
    let mismatches = 0;
    let firstMismatch = '';

    for (let i = 0; i < FRAMES; i++) {
      const length = mutate(next, bases, work);
      startArena.fill(0xc3, 0, previousLength);
      previousLength = length;
      startArena.set(work.subarray(0, length), 0);
      const a = startArena.subarray(0, length);
      const atEnd = (i & 7) === 0;
      let b: Uint8Array;
      if (atEnd) {
        const endArena = endArenas[length] as Uint8Array;
        endArena.set(work.subarray(0, length), 64);
        b = endArena.subarray(64);
      } else {
        middleArena.fill(0x3c, 64, 64 + MAX_FRAME);
        middleArena.set(work.subarray(0, length), 64);
        b = middleArena.subarray(64, 64 + length);
      }

      const malformedBefore = cursorA.malformed;
      const unknownBefore = cursorA.unknown;
      const digestA = digest(cursorA, a, atEnd);
      const packets = lastSteps;
      const digestB = digest(cursorB, b, atEnd);
      if (
        digestA !== digestB ||
        packets !== lastSteps ||
        cursorA.malformed !== cursorB.malformed ||
        cursorA.unknown !== cursorB.unknown
      ) {
        mismatches++;
        firstMismatch ||= Buffer.from(work.subarray(0, length)).toString('hex');
      }
      // Every 16th frame also through the record decoder, which must agree on the packet count.
      if ((i & 15) === 0) {
        const before = recordCounters.packets;
        decodeFrameToRecords(b, recordCounters);
        if (recordCounters.packets - before !== packets) mismatches++;
      }
      // Every 8th frame through the columnar decoder in both placements, compared row by row.
      if ((i & 7) === 1) {
        oneA[0] = a;
        oneB[0] = b;
        batchA.clear();
        batchB.clear();
        const noDataYetBefore = countersA.noDataYet;
        decodeFramesToColumns(oneA, batchA, countersA);
        decodeFramesToColumns(oneB, batchB, countersB);
        if (!sameColumns(batchA, batchB)) mismatches++;
        // The columnar decoder walks well-formed packets itself; it must agree with the cursor.
        cursorSide.frames++;
        cursorSide.packets += packets;
        cursorSide.malformed += cursorA.malformed - malformedBefore;
        cursorSide.unknown += cursorA.unknown - unknownBefore;
        // Every packet is a row but the "no data yet" ones, which are counted instead.
        if (batchA.length !== packets - (countersA.noDataYet - noDataYetBefore)) mismatches++;
        else if ((i & 63) === 1) {
          const records = decodeFrameToRecords(a);
          for (let r = 0; r < records.length; r++) {
            if (recordToJson(records[r] as FeedRecord) !== batchA.jsonAt(r)) mismatches++;
          }
        }
      }
    }

    expect(firstMismatch).toBe('');
    expect(mismatches).toBe(0);
    expect(cursorA.frames).toBe(FRAMES);
    expect(countersA).toEqual(countersB);
    expect(countersA).toMatchObject(cursorSide);
    // The bases hold zero-filled Circuit Limits, so the skip of "no data yet" packets was exercised.
    expect(countersA.noDataYet).toBeGreaterThan(0);
    // The mutations reach every outcome, so the run exercised each frame rule.
    const seen: DecodeCounters = cursorA.counters;
    expect(seen.packets).toBeGreaterThan(FRAMES);
    expect(seen.malformed).toBeGreaterThan(FRAMES / 20);
    expect(seen.unknown).toBeGreaterThan(FRAMES / 50);
    expect(Object.keys(seen.byCode).sort()).toEqual(['1', '29', '3', '32', '33', '36', '50']);
  });
});
