import { describe, expect, it } from 'vitest';
import { type DecodeCounters, decodeFrameToRecords, newDecodeCounters, PacketCursor } from '../src/index.js';
import {
  CIRCUIT_LIMIT,
  concat,
  ERROR_807,
  hex,
  MARKET_STATUS,
  OHLC,
  PREV_CLOSE,
  TRADE,
  WEEK52,
  withCode,
  withLength,
  ZERO_CIRCUIT_LIMIT,
} from './fixtures.js';

function decode(frame: Uint8Array): { types: string[]; counters: DecodeCounters } {
  const counters = newDecodeCounters();
  const types = decodeFrameToRecords(frame, counters).map((r) => r.type);
  return { types, counters };
}

describe('frame rules (ARCHITECTURE.md)', () => {
  it('an empty frame decodes to nothing and is not malformed', () => {
    expect(decode(new Uint8Array(0))).toEqual({
      types: [],
      counters: { frames: 1, packets: 0, malformed: 0, unknown: 0, noDataYet: 0, byCode: {} },
    });
  });

  it('a length of 0 stops the frame; zero padding after it is nothing, data after it is malformed', () => {
    const padded = decode(concat(TRADE, new Uint8Array(40)));
    expect(padded.types).toEqual(['trade']);
    expect(padded.counters).toMatchObject({ packets: 1, malformed: 0, unknown: 0 });
    // The data after the stop is lost to every reader: it is counted, never dropped unseen.
    const { types, counters } = decode(concat(TRADE, withLength(OHLC, 0), PREV_CLOSE));
    expect(types).toEqual(['trade']);
    expect(counters).toMatchObject({ packets: 1, malformed: 1, unknown: 0 });
  });

  it('a reference packet zero-filled down to its length byte is a "no data yet" packet, and the frame goes on', () => {
    // Rule 4: treat a zero-filled Circuit Limit or 52-Week packet (security id 0) as valid.
    for (const zeroed of [
      withLength(ZERO_CIRCUIT_LIMIT, 0),
      hex('00 00 00 00 00 00 00 00 00 00 24 00 00 00 00 00 00 00 00'),
    ]) {
      const { types, counters } = decode(concat(TRADE, zeroed, PREV_CLOSE, TRADE));
      expect(types).toEqual(['trade', 'prev_close', 'trade']);
      expect(counters).toMatchObject({ packets: 4, noDataYet: 1, malformed: 0, unknown: 0 });
    }
    // Not for an instrument's own packet: a zero length there is still the end of the data.
    const own = decode(concat(TRADE, withLength(CIRCUIT_LIMIT, 0), PREV_CLOSE));
    expect(own.types).toEqual(['trade']);
    expect(own.counters).toMatchObject({ packets: 1, malformed: 1 });
  });

  it('a length under 11 falls back to the fixed size of a known code', () => {
    const frame = concat(withLength(TRADE, 5), withLength(PREV_CLOSE, 10), OHLC);
    const { types, counters } = decode(frame);
    expect(types).toEqual(['trade', 'prev_close', 'ohlc']);
    expect(counters.malformed).toBe(0);
    const cursor = new PacketCursor();
    cursor.reset(frame);
    cursor.next();
    expect([cursor.length, cursor.size, cursor.nextOffset]).toEqual([5, 27, 27]);
    cursor.next();
    expect([cursor.length, cursor.size, cursor.offset]).toEqual([10, 15, 27]);
  });

  it('a length under 11 with an unknown code stops the frame and counts it as unknown', () => {
    const unknownShort = withLength(withCode(TRADE, 99), 7);
    const { types, counters } = decode(concat(TRADE, unknownShort, OHLC));
    expect(types).toEqual(['trade']);
    expect(counters).toMatchObject({ packets: 1, unknown: 1, malformed: 0 });
  });

  it('a length larger than the fixed size decodes the known fields and skips the rest', () => {
    // A Previous Close packet grown by 6 bytes of a future field, then a normal trade.
    const longer = concat(withLength(PREV_CLOSE, 21), hex('aa bb cc dd ee ff'));
    const frame = concat(longer, TRADE);
    const records = decodeFrameToRecords(frame);
    expect(records).toEqual([
      { type: 'prev_close', segment: 14, securityId: 12345, prevClose: Math.fround(120.1) },
      expect.objectContaining({ type: 'trade', ltp: Math.fround(123.45) }),
    ]);
    const cursor = new PacketCursor();
    cursor.reset(frame);
    cursor.next();
    expect([cursor.length, cursor.size, cursor.nextOffset]).toEqual([21, 21, 21]);
  });

  it('a packet shorter than its code fields is malformed and stops the frame', () => {
    // Length 20 declared for a 27-byte trade.
    const { types, counters } = decode(concat(PREV_CLOSE, withLength(TRADE, 20), OHLC));
    expect(types).toEqual(['prev_close']);
    expect(counters).toMatchObject({ packets: 1, malformed: 1 });
  });

  it('a packet running past the end of the frame is malformed and stops the frame', () => {
    const { types, counters } = decode(concat(OHLC, TRADE.subarray(0, 26)));
    expect(types).toEqual(['ohlc']);
    expect(counters).toMatchObject({ packets: 1, malformed: 1 });
    // Also when the length byte claims more than remains.
    expect(decode(concat(withLength(WEEK52, 40), TRADE.subarray(0, 10))).counters.malformed).toBe(1);
  });

  it('a length-under-11 fallback that runs past the end is malformed', () => {
    const { types, counters } = decode(withLength(TRADE, 3).subarray(0, 20));
    expect(types).toEqual([]);
    expect(counters.malformed).toBe(1);
  });

  it('fewer than 11 bytes remaining is a truncated header: malformed', () => {
    const { types, counters } = decode(concat(TRADE, hex('0e 39 30 00 00 39 30 00 00 1b')));
    expect(types).toEqual(['trade']);
    expect(counters).toMatchObject({ packets: 1, malformed: 1 });
  });

  it('unknown codes with a length of at least 11 are counted and skipped by their length', () => {
    const unknown = concat(withLength(withCode(TRADE, 2), 30), hex('01 02 03'));
    const { types, counters } = decode(concat(unknown, withCode(ERROR_807, 77), OHLC));
    expect(types).toEqual(['ohlc']);
    expect(counters).toMatchObject({ packets: 1, unknown: 2, malformed: 0, byCode: { 3: 1 } });
  });

  it('an unknown code whose length runs past the end is malformed', () => {
    const { counters } = decode(concat(withLength(withCode(TRADE, 2), 200), OHLC));
    expect(counters).toMatchObject({ packets: 0, unknown: 1, malformed: 1 });
  });

  it('zero-filled "no data yet" reference packets (security id 0) yield no record and are counted', () => {
    const zeroWeek52 = hex('00 00 00 00 00 00 00 00 00 13 24 00 00 00 00 00 00 00 00');
    const zeroPrevClose = hex('0e 00 00 00 00 00 00 00 00 0f 20 00 00 00 00');
    const counters = newDecodeCounters();
    const records = decodeFrameToRecords(
      concat(TRADE, ZERO_CIRCUIT_LIMIT, zeroWeek52, MARKET_STATUS, zeroPrevClose, WEEK52),
      counters,
    );
    // Market status also has security id 0, and is about the market: it stays.
    expect(records.map((r) => r.type)).toEqual(['trade', 'market_status', 'week52']);
    expect(counters).toMatchObject({
      packets: 6,
      noDataYet: 3,
      byCode: { 1: 1, 29: 1, 32: 1, 33: 1, 36: 2 },
    });
    expect(decodeFrameToRecords(zeroWeek52, undefined, { keepNoDataYet: true })).toEqual([
      { type: 'week52', segment: 0, securityId: 0, high: 0, low: 0 },
    ]);
  });

  it('an error packet (security id 0 too) is a record, not "no data yet"', () => {
    const counters = newDecodeCounters();
    expect(decodeFrameToRecords(ERROR_807, counters).map((r) => r.type)).toEqual(['error']);
    expect(counters.noDataYet).toBe(0);
  });

  it('counters accumulate across frames', () => {
    const counters = newDecodeCounters();
    decodeFrameToRecords(concat(TRADE, TRADE), counters);
    decodeFrameToRecords(concat(OHLC, TRADE.subarray(0, 5)), counters);
    expect(counters).toEqual({
      frames: 2,
      packets: 3,
      malformed: 1,
      unknown: 0,
      noDataYet: 0,
      byCode: { 1: 2, 3: 1 },
    });
  });

  it('the cursor resumes mid-frame at a packet boundary without counting a new frame', () => {
    const frame = concat(TRADE, OHLC, PREV_CLOSE);
    const cursor = new PacketCursor();
    cursor.resume(frame, 27);
    const codes: number[] = [];
    while (cursor.next()) codes.push(cursor.code);
    expect(codes).toEqual([3, 32]);
    expect(cursor.frames).toBe(0);
  });

  it('reuses its DataView for frames in the same buffer and switches for a new buffer', () => {
    const shared = concat(TRADE, OHLC);
    const cursor = new PacketCursor();
    cursor.reset(shared.subarray(0, 27));
    expect(cursor.next() && cursor.ltp).toBe(Math.fround(123.45));
    cursor.reset(shared.subarray(27));
    expect(cursor.next() && cursor.open).toBe(100.5);
    cursor.reset(PREV_CLOSE);
    expect(cursor.next() && cursor.prevClose).toBe(Math.fround(120.1));
  });
});
