/**
 * The hot tier's pure parts: trades kept in receive order (late ones placed, repeats dropped),
 * the instrument cap and the per-day bound (answered by ClickHouse, never partly from memory),
 * the window moving at UTC midnight, which tier answers a range, the text writer equal to the
 * shared envelope, and ISO times.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { barsTextBody, barsTextBodyViaRows, isoSeconds } from '../src/hot-tier/bar-text.js';
import { tierFor } from '../src/hot-tier/hot-bars.js';
import { HotTier, windowStartOf } from '../src/hot-tier/hot-tier.js';
import { createHotTierMetrics } from '../src/hot-tier/hot-tier-metrics.js';
import { BYTES_PER_TRADE, InstrumentDay } from '../src/hot-tier/instrument-day.js';
import { BYTES_PER_BAR } from '../src/hot-tier/step-bars.js';
import type { RowTextFormat } from '../src/query/text-bodies.js';

const DAY = 86_400;
const DAY0 = Date.parse('2024-03-04T00:00:00Z') / 1000;
const NOW_MS = (DAY0 + DAY / 2) * 1000;

describe('InstrumentDay', () => {
  it('keeps trades in (receivedAt, offset) order and drops a repeat', () => {
    const day = new InstrumentDay(2);
    // The index each trade takes: the end, or its place among the earlier ones; -1 for a repeat.
    expect(day.add(DAY0 + 10, 1, 10, 5_000, 3)).toBe(0);
    expect(day.add(DAY0 + 11, 2, 20, 7_000, 4)).toBe(1);
    expect(day.add(DAY0 + 5, 3, 30, 6_000, 9)).toBe(1);
    expect(day.add(DAY0 + 6, 4, 40, 5_000, 1)).toBe(0);
    expect(day.add(DAY0 + 6, 4, 40, 5_000, 1)).toBe(-1);
    expect([...day.receivedAt.subarray(0, day.length)]).toEqual([5_000, 5_000, 6_000, 7_000]);
    expect([...day.offset.subarray(0, day.length)]).toEqual([1, 3, 9, 4]);
    day.trim();
    expect(day.bytes).toBe(4 * 28);
  });
});

describe('HotTier', () => {
  it('holds the first instruments up to the cap and refuses the others for good', () => {
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 2, maxTradesPerDay: 10, maxBytes: 1e9, maxRowTextBytes: 1e6 },
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
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 3, maxBytes: 1e9, maxRowTextBytes: 1e6 },
      NOW_MS,
    );
    for (let i = 0; i < 5; i++) tier.add(1, DAY0 + i, 1, i, i, i);
    tier.markReady();
    expect(tier.covers(1, DAY0, DAY0 + 10)).toBe(false);
    expect(tier.stats().overflowDays).toBe(1);
  });

  it('closes for good when its trades outgrow maxBytes', () => {
    // 64 trades a second apart: 64 trades, 64 one-second bars and two 1-minute bars (capacity 16).
    const full = 64 * BYTES_PER_TRADE + 64 * BYTES_PER_BAR + 16 * BYTES_PER_BAR;
    const tier = new HotTier(
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 1_000, maxBytes: full, maxRowTextBytes: 0 },
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
      { windowHours: 13, maxInstruments: 5, maxTradesPerDay: 10, maxBytes: 1e9, maxRowTextBytes: 1e6 },
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
      { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 10, maxBytes: 1e9, maxRowTextBytes: 1e6 },
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

describe('kept bars', () => {
  const options = { windowHours: 1, maxInstruments: 5, maxTradesPerDay: 100, maxBytes: 1e9 };
  const minuteRow = (tier: HotTier): string => {
    const [run] = tier.keptBars(1, 60, DAY0, DAY0 + DAY) ?? [];
    if (run === undefined) throw new Error('no kept bar');
    return run.bars.rowText(run.start, 'json');
  };

  it('let a kept row go when its bar changes, and give its bytes back', () => {
    const tier = new HotTier({ ...options, maxRowTextBytes: 1e6 }, NOW_MS);
    tier.add(1, DAY0 + 600, 10, 5, (DAY0 + 600) * 1e6, 1);
    tier.markReady();
    const first = minuteRow(tier);
    expect(first).toContain('"volume":5,"vwap":10,"trades":1');
    expect(tier.stats().rowTextBytes).toBeGreaterThan(first.length);
    expect(minuteRow(tier)).toBe(first);
    tier.add(1, DAY0 + 601, 11, 9, (DAY0 + 601) * 1e6, 2);
    expect(tier.stats().rowTextBytes).toBe(0);
    expect(minuteRow(tier)).toContain('"close":11,"volume":9,"vwap":10.444444444444445,"trades":2');
  });

  it('rebuild a day after a late trade: its successor trades less', () => {
    const tier = new HotTier({ ...options, maxRowTextBytes: 1e6 }, NOW_MS);
    tier.add(1, DAY0 + 600, 10, 10, (DAY0 + 600) * 1e6, 1);
    tier.add(1, DAY0 + 660, 20, 30, (DAY0 + 660) * 1e6, 3);
    tier.markReady();
    expect(tier.bars(1, 60, DAY0, DAY0 + DAY).volume).toEqual([10, 20]);
    // Received between the two: the second trade's quantity becomes 30 - 25.
    tier.add(1, DAY0 + 601, 12, 25, (DAY0 + 630) * 1e6, 2);
    expect(tier.bars(1, 60, DAY0, DAY0 + DAY).volume).toEqual([25, 5]);
    expect(tier.bars(1, 1, DAY0, DAY0 + DAY).time).toEqual([DAY0 + 600, DAY0 + 601, DAY0 + 660]);
  });

  it('report their columns and kept rows as gauges', async () => {
    const registry = new Registry();
    const metrics = createHotTierMetrics('query_api_', registry);
    const tier = new HotTier({ ...options, maxRowTextBytes: 1e6 }, NOW_MS);
    metrics.watch(tier);
    tier.add(1, DAY0 + 600, 10, 5, (DAY0 + 600) * 1e6, 1);
    tier.markReady();
    const row = minuteRow(tier);
    const text = await registry.metrics();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(gauge('query_api_hot_tier_memory_bytes')).toBe(tier.stats().bytes);
    expect(gauge('query_api_hot_tier_row_text_bytes')).toBeGreaterThanOrEqual(row.length);
  });

  it('keep no row beyond the budget, and answer the same', () => {
    const tier = new HotTier({ ...options, maxRowTextBytes: 0 }, NOW_MS);
    tier.add(1, DAY0 + 600, 10, 5, (DAY0 + 600) * 1e6, 1);
    tier.markReady();
    expect(minuteRow(tier)).toContain('"volume":5');
    expect(tier.stats().rowTextBytes).toBe(0);
  });

  it('are not used for a range that starts or ends inside a bar', () => {
    const tier = new HotTier({ ...options, maxRowTextBytes: 1e6 }, NOW_MS);
    expect(tier.keptBars(1, 60, DAY0 + 30, DAY0 + 120)).toBeUndefined();
    expect(tier.keptBars(1, 60, DAY0, DAY0 + 90)).toBeUndefined();
    expect(tier.keptBars(1, 300, DAY0, DAY0 + 600)).toBeUndefined();
    expect(tier.keptBars(1, 60, DAY0, DAY0 + 120)).toEqual([]);
  });
});
