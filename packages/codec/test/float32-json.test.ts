import { describe, expect, it } from 'vitest';
import { type FeedRecord, formatFloat32, recordFromJson, recordToJson } from '../src/index.js';

describe('formatFloat32', () => {
  it.each([
    [123.45, '123.45'],
    [Math.fround(123.45), '123.45'],
    [0.1, '0.1'],
    [100, '100'],
    [-2.5, '-2.5'],
    [0, '0'],
    [-0, '-0'],
    [16777217, '16777216'],
    [123456789, '123456790'],
    [3.4028234663852886e38, '3.4028235e+38'],
    [1.401298464324817e-45, '1e-45'],
    [Number.NaN, 'null'],
    [Number.POSITIVE_INFINITY, 'null'],
  ])('formats %d as %s', (value, text) => {
    expect(formatFloat32(value)).toBe(text);
  });
});

describe('recordToJson / recordFromJson', () => {
  const trade: FeedRecord = {
    type: 'trade',
    segment: 14,
    securityId: 12345,
    ltp: Math.fround(123.45),
    volume: 1000,
    ltt: 1700000000,
    lut: 1700000001,
  };

  it('writes the stable shape with shortest float32 text and appended extras', () => {
    expect(recordToJson(trade, { receivedAt: 1700000000123456 })).toBe(
      '{"type":"trade","segment":14,"securityId":12345,"ltp":123.45,"volume":1000,"ltt":1700000000,"lut":1700000001,"receivedAt":1700000000123456}',
    );
    expect(
      recordToJson({ type: 'market_status', segment: 14, securityId: 0, marketType: [1, 2, 3], status: 5 }),
    ).toBe('{"type":"market_status","segment":14,"securityId":0,"marketType":[1,2,3],"status":5}');
    expect(
      recordToJson({ type: 'ohlc', segment: 14, securityId: 1, open: 1.1, close: 2.2, high: 3.3, low: 0.5 }),
    ).toBe('{"type":"ohlc","segment":14,"securityId":1,"open":1.1,"close":2.2,"high":3.3,"low":0.5}');
  });

  it('refuses extras that would duplicate a record field', () => {
    expect(() => recordToJson(trade, { ltp: 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_RECORD' }),
    );
  });

  it('reads back what it wrote, ignoring extras; null floats read as NaN', () => {
    const back = recordFromJson(JSON.parse(recordToJson(trade, { receivedAt: 5, note: 'x' })));
    expect(back).toEqual(trade);
    const nan = recordFromJson(
      JSON.parse(recordToJson({ type: 'prev_close', segment: 14, securityId: 1, prevClose: Number.NaN })),
    );
    expect(nan).toEqual({ type: 'prev_close', segment: 14, securityId: 1, prevClose: Number.NaN });
  });

  it('refuses wrong shapes with INVALID_RECORD', () => {
    expect(() => recordFromJson({ type: 'quote' })).toThrow(/unknown record type "quote"/);
    expect(() => recordFromJson({ ...trade, volume: 1.5 })).toThrow(/volume must be an integer/);
    expect(() => recordFromJson({ ...trade, ltp: '1' })).toThrow(/ltp must be a number or null/);
    expect(() =>
      recordFromJson({ type: 'market_status', segment: 14, securityId: 0, marketType: [1], status: 0 }),
    ).toThrow(/marketType/);
    expect(() => recordFromJson(null)).toThrow(expect.objectContaining({ code: 'INVALID_RECORD' }));
  });
});
