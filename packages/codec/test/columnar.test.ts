import { describe, expect, it } from 'vitest';
import {
  ColumnarBatch,
  decodeFramesToColumns,
  decodeFrameToRecords,
  type FeedRecord,
  FramePackBuilder,
  MAX_BATCH_FRAMES,
  newDecodeCounters,
  newDecodePosition,
  recordToJson,
} from '../src/index.js';
import {
  CIRCUIT_LIMIT,
  concat,
  ERROR_807,
  MARKET_STATUS,
  OHLC,
  PREV_CLOSE,
  TRADE,
  WEEK52,
  withLength,
  ZERO_CIRCUIT_LIMIT,
} from './fixtures.js';

const FRAMES = [
  concat(TRADE, OHLC, MARKET_STATUS),
  concat(PREV_CLOSE, CIRCUIT_LIMIT, WEEK52, TRADE.subarray(0, 12)),
  ERROR_807,
  concat(TRADE, withLength(OHLC, 0), TRADE),
  new Uint8Array(0),
  concat(OHLC, TRADE),
];

function rows(batch: ColumnarBatch): FeedRecord[] {
  return Array.from({ length: batch.length }, (_, i) => batch.recordAt(i));
}

describe('decodeFramesToColumns', () => {
  it('gives the same records and counters as the record decoder', () => {
    const expectedCounters = newDecodeCounters();
    const expected = FRAMES.flatMap((f) => decodeFrameToRecords(f, expectedCounters));
    const batch = new ColumnarBatch(64);
    const counters = newDecodeCounters();
    expect(decodeFramesToColumns(FRAMES, batch, counters)).toBe(expected.length);
    expect(rows(batch)).toEqual(expected);
    expect(counters).toEqual(expectedCounters);
    expect(Array.from({ length: batch.length }, (_, i) => batch.frameIndexAt(i))).toEqual([
      0, 0, 0, 1, 1, 1, 2, 3, 5, 5,
    ]);
    expect(batch.receivedAtMicrosAt(0)).toBe(0);
    for (let i = 0; i < batch.length; i++)
      expect(batch.jsonAt(i, { n: i })).toBe(recordToJson(expected[i]!, { n: i }));
  });

  it('fills batch after batch from one position, splitting frames mid-way, without double counting', () => {
    const expectedCounters = newDecodeCounters();
    const expected = FRAMES.flatMap((f) => decodeFrameToRecords(f, expectedCounters));
    for (const capacity of [1, 2, 3, 4, 7]) {
      const batch = new ColumnarBatch(capacity);
      const position = newDecodePosition();
      const counters = newDecodeCounters();
      const seen: FeedRecord[] = [];
      for (let round = 0; round < 50 && !position.done; round++) {
        batch.clear();
        decodeFramesToColumns(FRAMES, batch, counters, position);
        seen.push(...rows(batch));
      }
      expect(position.done).toBe(true);
      expect(seen).toEqual(expected);
      expect(counters).toEqual(expectedCounters);
    }
  });

  it('yields no row for "no data yet" packets, counts them, and resumes across them mid-frame', () => {
    // Fast path and slow path (a length byte under 11 falls back to the fixed size): both skip.
    const frames = [
      concat(TRADE, ZERO_CIRCUIT_LIMIT, withLength(ZERO_CIRCUIT_LIMIT, 4), PREV_CLOSE),
      concat(ZERO_CIRCUIT_LIMIT, ZERO_CIRCUIT_LIMIT),
      concat(ZERO_CIRCUIT_LIMIT, OHLC),
    ];
    const expectedCounters = newDecodeCounters();
    const expected = frames.flatMap((f) => decodeFrameToRecords(f, expectedCounters));
    expect(expected.map((r) => r.type)).toEqual(['trade', 'prev_close', 'ohlc']);
    expect(expectedCounters).toMatchObject({ packets: 8, noDataYet: 5, malformed: 0 });
    for (const capacity of [1, 2, 64]) {
      const batch = new ColumnarBatch(capacity);
      const position = newDecodePosition();
      const counters = newDecodeCounters();
      const seen: FeedRecord[] = [];
      const frameOfRow: number[] = [];
      for (let round = 0; round < 20 && !position.done; round++) {
        batch.clear();
        decodeFramesToColumns(frames, batch, counters, position);
        seen.push(...rows(batch));
        for (let i = 0; i < batch.length; i++) frameOfRow.push(batch.frameIndexAt(i));
      }
      expect(position.done).toBe(true);
      expect(seen).toEqual(expected);
      expect(counters).toEqual(expectedCounters);
      // The frame of zero-filled packets only takes no frame slot: rows point at frames 0, 0, 2.
      expect(frameOfRow).toEqual([0, 0, 2]);
    }
  });

  it('decodes a pack of capture records, carrying receive times per row', () => {
    const builder = new FramePackBuilder(16);
    FRAMES.forEach((frame, i) => {
      expect(builder.append(frame, 1_700_000_000_000_000 + i)).toBe(true);
    });
    expect(builder.frameCount).toBe(FRAMES.length);
    const pack = builder.toBytes();
    const expected = FRAMES.flatMap((f) => decodeFrameToRecords(f));
    const batch = new ColumnarBatch(3);
    const position = newDecodePosition();
    const seen: FeedRecord[] = [];
    const times: number[] = [];
    for (let round = 0; round < 50 && !position.done; round++) {
      batch.clear();
      decodeFramesToColumns(pack, batch, undefined, position);
      seen.push(...rows(batch));
      for (let i = 0; i < batch.length; i++) times.push(batch.receivedAtMicrosAt(i));
    }
    expect(seen).toEqual(expected);
    expect(times.map((t) => t - 1_700_000_000_000_000)).toEqual([0, 0, 0, 1, 1, 1, 2, 3, 5, 5]);
  });

  it('refuses an inconsistent pack with INVALID_CAPTURE', () => {
    const builder = new FramePackBuilder();
    builder.append(TRADE, 1);
    const pack = builder.toBytes();
    expect(() => decodeFramesToColumns(pack.subarray(0, pack.length - 1), new ColumnarBatch(4))).toThrow(
      expect.objectContaining({ code: 'INVALID_CAPTURE' }),
    );
    expect(() => decodeFramesToColumns(pack.subarray(0, 5), new ColumnarBatch(4))).toThrow(/truncated/);
  });

  it('a pack builder refuses frames beyond its ceiling', () => {
    const builder = new FramePackBuilder(16, 50);
    expect(builder.append(TRADE, 0)).toBe(true);
    expect(builder.append(TRADE, 0)).toBe(false);
    expect(builder.byteLength).toBe(39);
  });

  it('spans at most MAX_BATCH_FRAMES frames per batch, then resumes', () => {
    const frames = Array.from({ length: MAX_BATCH_FRAMES + 10 }, () => PREV_CLOSE);
    const batch = new ColumnarBatch(MAX_BATCH_FRAMES + 100);
    const position = newDecodePosition();
    expect(decodeFramesToColumns(frames, batch, undefined, position)).toBe(MAX_BATCH_FRAMES);
    expect(batch.full).toBe(true);
    expect(position).toMatchObject({ frame: MAX_BATCH_FRAMES, done: false });
    expect(batch.frameIndexAt(MAX_BATCH_FRAMES - 1)).toBe(MAX_BATCH_FRAMES - 1);
    expect(batch.recordAt(MAX_BATCH_FRAMES - 1)).toEqual(decodeFrameToRecords(PREV_CLOSE)[0]);
    batch.clear();
    expect(decodeFramesToColumns(frames, batch, undefined, position)).toBe(10);
    expect(position.done).toBe(true);
    expect(batch.frameIndexAt(9)).toBe(MAX_BATCH_FRAMES + 9);
  });

  it('validates capacity and rows', () => {
    expect(() => new ColumnarBatch(0)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    const batch = new ColumnarBatch(2);
    expect(() => batch.recordAt(0)).toThrow(RangeError);
  });
});
