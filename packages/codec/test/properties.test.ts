import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ColumnarBatch,
  decodeFramesToColumns,
  decodeFrameToRecords,
  encodeFrame,
  type FeedRecord,
  FrameBuilder,
  formatFloat32,
  MAX_ROW_JSON_BYTES,
  newDecodeCounters,
  recordFromJson,
  recordToJson,
  writeRowJson,
} from '../src/index.js';

/** The definition, without shortcuts: first precision 1..9 whose text rounds back to the float32. */
function referenceShortest(f: number): string {
  for (let p = 1; p <= 9; p++) {
    const n = Number(f.toPrecision(p));
    if (Math.fround(n) === f) return String(n);
  }
  throw new Error('unreachable');
}

const float32Bits = fc.integer({ min: 0, max: 0xffffffff }).map((bits) => {
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, bits);
  return view.getFloat32(0);
});
const finiteFloat32 = float32Bits.filter((f) => Number.isFinite(f) && f !== 0);
const price = fc.integer({ min: -100_000_000, max: 100_000_000 }).map((cents) => Math.fround(cents / 100));

describe('formatFloat32 properties', () => {
  it('equals the shortest round-tripping decimal for any float32 bit pattern and any price', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          finiteFloat32,
          price.filter((f) => f !== 0),
        ),
        (f) => {
          const text = formatFloat32(f);
          expect(Math.fround(Number(text))).toBe(f);
          expect(text).toBe(referenceShortest(f));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

// Arbitrary records with values the wire can carry; floats are float32 and never NaN, so toEqual
// can compare them (NaN round trips are covered by the fixture tests through JSON null).
const u8 = fc.integer({ min: 0, max: 255 });
const i32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const f32 = fc.oneof(finiteFloat32, price, fc.constant(0));
const recordArb: fc.Arbitrary<FeedRecord> = fc.oneof(
  fc.record({
    type: fc.constant('trade' as const),
    segment: u8,
    securityId: i32,
    ltp: f32,
    volume: i32,
    ltt: i32,
    lut: i32,
  }),
  fc.record({
    type: fc.constant('ohlc' as const),
    segment: u8,
    securityId: i32,
    open: f32,
    close: f32,
    high: f32,
    low: f32,
  }),
  fc.record({ type: fc.constant('prev_close' as const), segment: u8, securityId: i32, prevClose: f32 }),
  fc.record({
    type: fc.constant('circuit_limit' as const),
    segment: u8,
    securityId: i32,
    upper: f32,
    lower: f32,
  }),
  fc.record({ type: fc.constant('week52' as const), segment: u8, securityId: i32, high: f32, low: f32 }),
  fc.record({
    type: fc.constant('market_status' as const),
    segment: u8,
    securityId: i32,
    marketType: fc.tuple(u8, u8, u8),
    status: i32,
  }),
  fc.record({
    type: fc.constant('error' as const),
    segment: u8,
    securityId: i32,
    code: fc.integer({ min: -0x8000, max: 0x7fff }),
  }),
);

const REFERENCE_TYPES: ReadonlySet<string> = new Set(['prev_close', 'circuit_limit', 'week52']);

describe('round trips', () => {
  it('records -> frame -> records, through every decoder', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { maxLength: 40 }), (records) => {
        const frame = encodeFrame(records);
        const counters = newDecodeCounters();
        // Reference values for security id 0 are "no data yet" packets: counted, not records.
        const kept = records.filter((r) => !(r.securityId === 0 && REFERENCE_TYPES.has(r.type)));
        expect(decodeFrameToRecords(frame, counters)).toEqual(kept);
        expect(decodeFrameToRecords(frame, undefined, { keepNoDataYet: true })).toEqual(records);
        expect(counters).toMatchObject({
          frames: 1,
          packets: records.length,
          malformed: 0,
          unknown: 0,
          noDataYet: records.length - kept.length,
        });
        const batch = new ColumnarBatch(64);
        decodeFramesToColumns([frame], batch);
        expect(Array.from({ length: batch.length }, (_, i) => batch.recordAt(i))).toEqual(kept);
        const builder = new FrameBuilder(32);
        for (const record of records) builder.record(record);
        expect(builder.toBytes()).toEqual(frame);
      }),
      { numRuns: 2_000 },
    );
  });

  it('record -> JSON -> record, and the JSON text is stable', () => {
    fc.assert(
      fc.property(recordArb, fc.integer({ min: 0, max: 2 ** 53 - 1 }), (record, receivedAt) => {
        const text = recordToJson(record, { receivedAt });
        const parsed = JSON.parse(text) as Record<string, unknown>;
        expect(parsed.receivedAt).toBe(receivedAt);
        const back = recordFromJson(parsed);
        expect(back).toEqual(record);
        expect(recordToJson(back, { receivedAt })).toBe(text);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('writeRowJson', () => {
  it('writes exactly the bytes of jsonAt with receivedAt (and a trade quantity), for any row and receive time', () => {
    const out = new Uint8Array(MAX_ROW_JSON_BYTES * 2).fill(0xee);
    fc.assert(
      fc.property(
        fc.array(recordArb, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 2 ** 53 - 1 }),
        // Unknown (NaN) or a count up to int32's largest.
        fc.oneof(fc.constant(Number.NaN), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
        (records, receivedAt, quantity) => {
          const batch = new ColumnarBatch(32);
          decodeFramesToColumns([encodeFrame(records)], batch);
          for (let row = 0; row < batch.length; row++) {
            // Written at an odd offset after garbage: nothing may depend on the buffer's contents.
            const end = writeRowJson(batch, row, out, 7, receivedAt, quantity);
            const trade = batch.recordAt(row).type === 'trade';
            const known = Number.isNaN(quantity) ? null : quantity;
            const expected = batch.jsonAt(row, trade ? { receivedAt, quantity: known } : { receivedAt });
            expect(end - 7).toBeLessThanOrEqual(MAX_ROW_JSON_BYTES);
            expect(Buffer.from(out.subarray(7, end)).toString('latin1')).toBe(expected);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('keeps float texts longer than a cache slot from spilling into the next slot', () => {
    // Fixed notation near 1e20 takes 22 characters; the value whose cache slot follows must still
    // come out right after it.
    const big = Math.fround(-1.2345678e20);
    const bits = (f: number) => new Int32Array(new Float32Array([f]).buffer)[0] as number;
    const slotOf = (b: number) => (b ^ (b >>> 15)) & 0xffff;
    const next = (slotOf(bits(big)) + 1) & 0xffff;
    let neighbourBits = 0;
    while (slotOf(neighbourBits) !== next) neighbourBits++;
    const neighbour = new Float32Array(new Int32Array([neighbourBits]).buffer)[0] as number;
    const records: FeedRecord[] = [
      { type: 'prev_close', segment: 1, securityId: 2, prevClose: neighbour },
      { type: 'prev_close', segment: 1, securityId: 2, prevClose: big },
      { type: 'prev_close', segment: 1, securityId: 2, prevClose: neighbour },
    ];
    const batch = new ColumnarBatch(8);
    decodeFramesToColumns([encodeFrame(records)], batch);
    const out = new Uint8Array(MAX_ROW_JSON_BYTES);
    for (let row = 0; row < batch.length; row++) {
      const end = writeRowJson(batch, row, out, 0, 5);
      expect(Buffer.from(out.subarray(0, end)).toString('latin1')).toBe(batch.jsonAt(row, { receivedAt: 5 }));
    }
    expect(batch.jsonAt(1)).toContain('-123456780000000000000');
  });
});
