import { describe, expect, it } from 'vitest';
import {
  decodeFrameToRecords,
  encodeFrame,
  encodeRecord,
  FEED_ERROR_CODES,
  type FeedRecord,
  FrameBuilder,
  MsgCode,
  newDecodeCounters,
  PACKET_SIZE,
  PacketCursor,
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
  ZERO_CIRCUIT_LIMIT,
} from './fixtures.js';

const f = Math.fround;

const EXPECTED: ReadonlyArray<[string, Uint8Array, FeedRecord]> = [
  [
    'trade',
    TRADE,
    {
      type: 'trade',
      segment: 14,
      securityId: 12345,
      ltp: f(123.45),
      volume: 1000,
      ltt: 1700000000,
      lut: 1700000001,
    },
  ],
  [
    'ohlc',
    OHLC,
    { type: 'ohlc', segment: 14, securityId: 12345, open: 100.5, close: 101.25, high: 102.75, low: 99.5 },
  ],
  [
    'market_status',
    MARKET_STATUS,
    { type: 'market_status', segment: 14, securityId: 0, marketType: [1, 2, 3], status: 5 },
  ],
  ['prev_close', PREV_CLOSE, { type: 'prev_close', segment: 14, securityId: 12345, prevClose: f(120.1) }],
  [
    'circuit_limit',
    CIRCUIT_LIMIT,
    { type: 'circuit_limit', segment: 14, securityId: 12345, upper: f(132.11), lower: f(108.09) },
  ],
  ['week52', WEEK52, { type: 'week52', segment: 14, securityId: 12345, high: 150, low: 80.25 }],
  ['error', ERROR_807, { type: 'error', segment: 0, securityId: 0, code: 807 }],
  [
    'zero-filled circuit limit',
    ZERO_CIRCUIT_LIMIT,
    { type: 'circuit_limit', segment: 0, securityId: 0, upper: 0, lower: 0 },
  ],
];

describe('hand-written packet fixtures', () => {
  for (const [name, bytes, record] of EXPECTED) {
    it(`decodes ${name}`, () => {
      const counters = newDecodeCounters();
      // Every fixture as sent on the wire, the "no data yet" one included (frame-rules tests drop it).
      expect(decodeFrameToRecords(bytes, counters, { keepNoDataYet: true })).toEqual([record]);
      expect(counters).toMatchObject({ frames: 1, packets: 1, malformed: 0, unknown: 0 });
    });

    it(`encodes ${name} to the same bytes`, () => {
      expect(encodeFrame([record])).toEqual(bytes);
      const target = new Uint8Array(bytes.length + 5);
      expect(encodeRecord(target, 5, record)).toBe(bytes.length + 5);
      expect(target.subarray(5)).toEqual(bytes);
    });
  }

  it('has the spec sizes', () => {
    expect(PACKET_SIZE).toEqual({ 1: 27, 3: 27, 29: 18, 32: 15, 33: 19, 36: 19, 50: 13 });
    expect(FEED_ERROR_CODES[805]).toBe('connection limit exceeded');
    expect(FEED_ERROR_CODES[809]).toBe('invalid token');
  });
});

describe('multi-packet frames', () => {
  it('decodes every packet of a concatenated frame in order, with counters by code', () => {
    const frame = concat(TRADE, PREV_CLOSE, CIRCUIT_LIMIT, WEEK52, TRADE, OHLC, MARKET_STATUS);
    const counters = newDecodeCounters();
    const records = decodeFrameToRecords(frame, counters);
    expect(records.map((r) => r.type)).toEqual([
      'trade',
      'prev_close',
      'circuit_limit',
      'week52',
      'trade',
      'ohlc',
      'market_status',
    ]);
    expect(counters).toEqual({
      frames: 1,
      packets: 7,
      malformed: 0,
      unknown: 0,
      noDataYet: 0,
      byCode: { 1: 2, 3: 1, 29: 1, 32: 1, 33: 1, 36: 1 },
    });
  });

  it('exposes every field through the cursor getters without records', () => {
    const cursor = new PacketCursor();
    cursor.reset(concat(TRADE, OHLC, MARKET_STATUS, PREV_CLOSE, CIRCUIT_LIMIT, WEEK52, ERROR_807));
    const seen: number[] = [];
    while (cursor.next()) {
      seen.push(cursor.code);
      switch (cursor.code) {
        case MsgCode.Trade:
          expect([cursor.segment, cursor.securityId, cursor.securityIdCopy]).toEqual([14, 12345, 12345]);
          expect([cursor.ltp, cursor.volume, cursor.ltt, cursor.lut]).toEqual([
            f(123.45),
            1000,
            1700000000,
            1700000001,
          ]);
          expect([cursor.offset, cursor.size, cursor.length]).toEqual([0, 27, 27]);
          // Fields of other packet types read as 0 rather than reinterpreting these bytes.
          expect([cursor.open, cursor.prevClose, cursor.errorCode, cursor.marketStatus]).toEqual([
            0, 0, 0, 0,
          ]);
          break;
        case MsgCode.Ohlc:
          expect([cursor.open, cursor.close, cursor.high, cursor.low]).toEqual([100.5, 101.25, 102.75, 99.5]);
          expect(cursor.ltp).toBe(0);
          break;
        case MsgCode.MarketStatus:
          expect([
            cursor.marketType(0),
            cursor.marketType(1),
            cursor.marketType(2),
            cursor.marketStatus,
          ]).toEqual([1, 2, 3, 5]);
          break;
        case MsgCode.PrevClose:
          expect(cursor.prevClose).toBe(f(120.1));
          break;
        case MsgCode.CircuitLimit:
          expect([cursor.upper, cursor.lower]).toEqual([f(132.11), f(108.09)]);
          break;
        case MsgCode.Week52:
          expect([cursor.week52High, cursor.week52Low]).toEqual([150, 80.25]);
          break;
        case MsgCode.Error:
          expect(cursor.errorCode).toBe(807);
          expect(cursor.ltp).toBe(0);
          break;
      }
    }
    expect(seen).toEqual([1, 3, 29, 32, 33, 36, 50]);
    expect(cursor.code).toBe(0);
    expect(cursor.securityId).toBe(0);
    expect(cursor.counters).toMatchObject({ frames: 1, packets: 7 });
    expect(cursor.countOf(MsgCode.Trade)).toBe(1);
  });

  it('decodes a frame that is a view into a larger buffer, reading nothing around it', () => {
    const big = new Uint8Array(200).fill(0xee);
    big.set(TRADE, 50);
    big.set(OHLC, 77);
    const records = decodeFrameToRecords(big.subarray(50, 104));
    expect(records.map((r) => r.type)).toEqual(['trade', 'ohlc']);
  });
});

describe('FrameBuilder', () => {
  it('builds the same bytes as encodeFrame and is reusable after reset', () => {
    const builder = new FrameBuilder(32);
    builder
      .trade(14, 12345, 123.45, 1000, 1700000000, 1700000001)
      .ohlc(14, 12345, 100.5, 101.25, 102.75, 99.5)
      .marketStatus(14, 0, [1, 2, 3], 5)
      .prevClose(14, 12345, 120.1)
      .circuitLimit(14, 12345, 132.11, 108.09)
      .week52(14, 12345, 150, 80.25)
      .error(807);
    expect(builder.packetCount).toBe(7);
    expect(builder.byteLength).toBe(27 + 27 + 18 + 15 + 19 + 19 + 13);
    const bytes = builder.toBytes();
    expect(bytes).toEqual(concat(TRADE, OHLC, MARKET_STATUS, PREV_CLOSE, CIRCUIT_LIMIT, WEEK52, ERROR_807));
    builder.reset();
    expect(builder.byteLength).toBe(0);
    builder.record({ type: 'prev_close', segment: 14, securityId: 12345, prevClose: 120.1 });
    expect(builder.toBytes()).toEqual(PREV_CLOSE);
    // The copy handed out earlier is not affected by later writes.
    expect(bytes.subarray(0, 27)).toEqual(TRADE);
  });

  it('refuses values the wire cannot carry, writing nothing', () => {
    const builder = new FrameBuilder();
    expect(() => builder.trade(256, 1, 1, 1, 1, 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_RECORD' }),
    );
    expect(() => builder.trade(14, 2 ** 31, 1, 1, 1, 1)).toThrow(/securityId/);
    expect(() => builder.trade(14, 1, 1, 1.5, 1, 1)).toThrow(/volume/);
    expect(() => builder.error(40000)).toThrow(/code/);
    expect(() => builder.marketStatus(14, 1, [1, 2, 300], 0)).toThrow(/marketType\[2\]/);
    expect(builder.byteLength).toBe(0);
    expect(() => new FrameBuilder(0)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});

describe('encodeRecord', () => {
  it('throws BUFFER_TOO_SMALL when the packet does not fit, leaving the target untouched', () => {
    const target = new Uint8Array(30);
    const record: FeedRecord = {
      type: 'trade',
      segment: 14,
      securityId: 1,
      ltp: 1,
      volume: 1,
      ltt: 1,
      lut: 1,
    };
    expect(() => encodeRecord(target, 4, record)).toThrow(
      expect.objectContaining({ code: 'BUFFER_TOO_SMALL' }),
    );
    expect(target.every((b) => b === 0)).toBe(true);
    expect(encodeRecord(target, 3, record)).toBe(30);
  });

  it('throws INVALID_RECORD for an unknown type', () => {
    const bogus = { type: 'quote', segment: 14, securityId: 1 } as unknown as FeedRecord;
    expect(() => encodeRecord(new Uint8Array(64), 0, bogus)).toThrow(
      expect.objectContaining({ code: 'INVALID_RECORD' }),
    );
    expect(() => encodeFrame([bogus])).toThrow(/unknown record type "quote"/);
  });
});
