/**
 * The hot tier's pure parts: trades kept in receive order (late ones placed, repeats dropped),
 * the instrument cap and the per-day bound (answered by ClickHouse, never partly from memory),
 * the window moving at UTC midnight, which tier answers a range, the text writer equal to the
 * shared envelope, and ISO times.
 */
import { describe, expect, it } from 'vitest';
import { barsTextBody, barsTextBodyViaRows, isoSeconds } from '../src/hot-tier/bar-text.js';
import { tierFor } from '../src/hot-tier/hot-bars.js';
import { HotTier, windowStartOf } from '../src/hot-tier/hot-tier.js';
import { InstrumentDay } from '../src/hot-tier/instrument-day.js';
import type { RowTextFormat } from '../src/query/text-bodies.js';

const DAY = 86_400;
const DAY0 = Date.parse('2024-03-04T00:00:00Z') / 1000;
const NOW_MS = (DAY0 + DAY / 2) * 1000;

describe('InstrumentDay', () => {
  it('keeps trades in (receivedAt, offset) order and drops a repeat', () => {
    const day = new InstrumentDay(2);
    expect(day.add(DAY0 + 10, 1, 10, 5_000, 3)).toBe(true);
    expect(day.add(DAY0 + 11, 2, 20, 7_000, 4)).toBe(true);
    expect(day.add(DAY0 + 5, 3, 30, 6_000, 9)).toBe(true);
    expect(day.add(DAY0 + 6, 4, 40, 5_000, 1)).toBe(true);
    expect(day.add(DAY0 + 6, 4, 40, 5_000, 1)).toBe(false);
    expect([...day.receivedAt.subarray(0, day.length)]).toEqual([5_000, 5_000, 6_000, 7_000]);
    expect([...day.offset.subarray(0, day.length)]).toEqual([1, 3, 9, 4]);
    day.trim();
    expect(day.bytes).toBe(4 * 28);
  });
});

describe('HotTier', () => {
  it('holds the first instruments up to the cap and refuses the others for good', () => {
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 2, maxTradesPerDay: 10, maxBytes: 1e9 },
      NOW_MS,
    );
    tier.add(1, DAY0 + 100, 1, 1, 1, 1);
    tier.add(2, DAY0 + 100, 1, 1, 1, 2);
    tier.add(3, DAY0 + 100, 1, 1, 1, 3);
    tier.markReady();
    expect(tier.stats()).toMatchObject({ instruments: 2, refused: 1, trades: 2 });
    expect(tier.covers(1, DAY0, DAY0 + 3_600)).toBe(true);
    expect(tier.covers(3, DAY0, DAY0 + 3_600)).toBe(false);
    // Never traded in the window: memory's empty answer is the truth.
    expect(tier.covers(4, DAY0, DAY0 + 3_600)).toBe(true);
    expect(tier.covers(1, DAY0 - 1, DAY0 + 3_600)).toBe(false);
  });

  it('leaves an instrument-day beyond maxTradesPerDay to ClickHouse', () => {
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 3, maxBytes: 1e9 },
      NOW_MS,
    );
    for (let i = 0; i < 5; i++) tier.add(1, DAY0 + i, 1, i, i, i);
    tier.markReady();
    expect(tier.covers(1, DAY0, DAY0 + 10)).toBe(false);
    expect(tier.stats().overflowDays).toBe(1);
  });

  it('closes for good when its trades outgrow maxBytes', () => {
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 1_000, maxBytes: 64 * 28 },
      NOW_MS,
    );
    for (let i = 0; i < 64; i++) tier.add(1, DAY0 + i, 1, i, i, i);
    tier.markReady();
    expect(tier.ready).toBe(true);
    tier.add(1, DAY0 + 64, 1, 64, 64, 64);
    expect(tier.overLimit).toBe(true);
    expect(tier.ready).toBe(false);
    tier.markReady();
    expect(tier.covers(1, DAY0, DAY0 + 60)).toBe(false);
    expect(tier.stats().trades).toBe(0);
  });

  it('starts its window at UTC midnight and drops days as it moves', () => {
    expect(windowStartOf(NOW_MS, 1)).toBe(DAY0);
    expect(windowStartOf(NOW_MS, 13)).toBe(DAY0 - DAY);
    const tier = new HotTier(
      { windowHours: 13, maxInstruments: 5, maxTradesPerDay: 10, maxBytes: 1e9 },
      NOW_MS,
    );
    tier.add(1, DAY0 - DAY + 5, 1, 1, 1, 1);
    tier.add(1, DAY0 + 5, 1, 1, 2, 2);
    tier.add(1, DAY0 - DAY - 5, 1, 1, 0, 0);
    expect(tier.stats().trades).toBe(2);
    tier.advance(NOW_MS + DAY * 1000);
    expect(tier.windowStartSec).toBe(DAY0);
    expect(tier.stats().trades).toBe(1);
  });

  it('answers from memory inside the window, stitched across its edge on a bar boundary', () => {
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 10, maxBytes: 1e9 },
      NOW_MS,
    );
    const q = (step: number, fromSec: number, toSec: number) => ({ securityId: 1, step, fromSec, toSec });
    expect(tierFor(tier, q(60, DAY0, DAY0 + 60))).toBeUndefined();
    tier.markReady();
    expect(tierFor(tier, q(60, DAY0, DAY0 + 60))).toBe('memory');
    expect(tierFor(tier, q(60, DAY0 - 3_600, DAY0 + 60))).toBe('stitched');
    expect(tierFor(tier, q(7, DAY0 - 3_600, DAY0 + 60))).toBeUndefined();
    expect(tierFor(tier, q(60, DAY0 - 3_600, DAY0))).toBeUndefined();
    tier.close();
    expect(tierFor(tier, q(60, DAY0, DAY0 + 60))).toBeUndefined();
  });
});

describe('bar text', () => {
  it('writes what the shared envelope around the rows writes, in every text format', () => {
    const bars = {
      time: [DAY0 - 60, DAY0, DAY0 + 3_599],
      open: [Math.fround(100.05), 1, 2],
      high: [Math.fround(100.1), 1, 2],
      low: [Math.fround(99.95), 1, 2],
      close: [Math.fround(100), 1, 2],
      volume: [10, 0, 7],
      vwap: [100.01234567890123, null, 2],
      trades: [3, 1, 1],
    };
    for (const format of ['json', 'ndjson', 'csv'] as RowTextFormat[]) {
      expect(barsTextBody(bars, format, 0.002).toString()).toBe(
        barsTextBodyViaRows(bars, format, 0.002).toString(),
      );
      const empty = { time: [], open: [], high: [], low: [], close: [], volume: [], vwap: [], trades: [] };
      expect(barsTextBody(empty, format, 0).toString()).toBe(
        barsTextBodyViaRows(empty, format, 0).toString(),
      );
    }
  });

  it('spells times as ISO 8601 with Z', () => {
    for (const sec of [0, DAY0 - 1, DAY0, DAY0 + 45_296, 4_102_444_799])
      expect(isoSeconds(sec)).toBe(`${new Date(sec * 1000).toISOString().slice(0, 19)}Z`);
  });
});
