/**
 * The status page's chart data shaping (the browser module, run here in Node): one slot per
 * interval so time gaps stay gaps, live trades folded into bars with the day's cumulative volume,
 * gap-ledger rows to bands, and times in IST or UTC.
 */
import { describe, expect, it } from 'vitest';
import {
  applyTrade,
  type Bar,
  bandsFromGaps,
  barsFromRows,
  chartSeries,
  epochSeconds,
  formatSlot,
  MAX_SLOTS,
  tickLabel,
  ZONES,
} from '../src/status-page/assets/chart-data.js';

const COLOURS = { upVolume: 'up', downVolume: 'down' };
/** 2024-03-04 09:02:00 UTC. */
const T0 = Date.UTC(2024, 2, 4, 9, 2) / 1000;
const bar = (time: number, open: number, close: number, volume = 10): Bar => ({
  time,
  open,
  high: Math.max(open, close) + 1,
  low: Math.min(open, close) - 1,
  close,
  volume,
});

describe('epochSeconds', () => {
  it('reads ClickHouse and ISO date-times as UTC, and epoch seconds or milliseconds', () => {
    expect(epochSeconds('2024-03-04 09:02:00')).toBe(T0);
    expect(epochSeconds('2024-03-04 09:02:00.000')).toBe(T0);
    expect(epochSeconds('2024-03-04T09:02:00Z')).toBe(T0);
    expect(epochSeconds('2024-03-04T14:32:00+05:30')).toBe(T0);
    expect(epochSeconds(T0)).toBe(T0);
    expect(epochSeconds(T0 * 1000)).toBe(T0);
    expect(epochSeconds(String(T0))).toBe(T0);
    expect(epochSeconds('not a time')).toBeNaN();
    expect(epochSeconds(undefined)).toBeNaN();
  });
});

describe('barsFromRows', () => {
  it('turns the bars endpoint rows into numeric bars in time order, leaving out unreadable rows', () => {
    const bars = barsFromRows({
      data: [
        { time: '2024-03-04 09:06:00', open: 3, high: 4, low: 2, close: 3.5, volume: '70' },
        { time: '2024-03-04 09:02:00', open: 1, high: 2, low: 0.5, close: 1.5, volume: '20' },
        { time: 'garbage', open: 1, high: 1, low: 1, close: 1, volume: 1 },
      ],
    });
    expect(bars).toEqual([
      { time: T0, open: 1, high: 2, low: 0.5, close: 1.5, volume: 20 },
      { time: T0 + 240, open: 3, high: 4, low: 2, close: 3.5, volume: 70 },
    ]);
  });
});

describe('chartSeries', () => {
  it('gives every slot a point, so 09:02, 09:06 and 09:09 sit at their own distances', () => {
    const bars = [bar(T0, 10, 11), bar(T0 + 240, 11, 10.5), bar(T0 + 420, 10.5, 12)];
    const { candles, volumes } = chartSeries(bars, { step: 60, toSec: T0 + 420, offsetSec: 0 }, COLOURS);
    expect(candles.map((c) => c.time - T0)).toEqual([0, 60, 120, 180, 240, 300, 360, 420]);
    expect(candles.map((c) => 'open' in c)).toEqual([true, false, false, false, true, false, false, true]);
    expect(volumes.filter((v) => 'value' in v).map((v) => ('color' in v ? v.color : ''))).toEqual([
      'up',
      'down',
      'up',
    ]);
  });

  it('shifts every time by the zone offset and runs whitespace up to now', () => {
    const { candles } = chartSeries(
      [bar(T0, 1, 2)],
      { step: 60, toSec: T0 + 150, offsetSec: ZONES.IST.offsetSec },
      COLOURS,
    );
    expect(candles.map((c) => c.time)).toEqual([T0, T0 + 60, T0 + 120].map((t) => t + 19_800));
  });

  it('starts at the first gap band when it is older than the first bar', () => {
    const { candles } = chartSeries(
      [bar(T0, 1, 2)],
      { step: 60, toSec: T0, offsetSec: 0, bandsFromSec: T0 - 130 },
      COLOURS,
    );
    expect(candles[0]?.time).toBe(T0 - 180);
  });

  it('holds at most MAX_SLOTS slots, the latest ones', () => {
    const { candles } = chartSeries(
      [bar(T0, 1, 2)],
      { step: 1, toSec: T0 + 3 * MAX_SLOTS, offsetSec: 0 },
      COLOURS,
    );
    expect(candles).toHaveLength(MAX_SLOTS);
    expect(candles.at(-1)?.time).toBe(T0 + 3 * MAX_SLOTS);
  });

  it('is empty-handed but bounded without bars', () => {
    const { candles } = chartSeries([], { step: 60, toSec: T0, offsetSec: 0 }, COLOURS);
    expect(candles).toEqual([{ time: T0 }]);
  });
});

describe('applyTrade', () => {
  const trade = (ltt: number, ltp: number, volume: number) => ({ ltt, ltp, volume });

  it('extends the bar of its slot: high, low, close, and the rise of the cumulative volume', () => {
    const start = bar(T0, 100, 101, 50);
    const first = applyTrade(start, trade(T0 + 10, 105, 1_000), 60, {
      day: Math.floor(T0 / 86_400),
      volume: 990,
    });
    expect(first.bar).toEqual({ time: T0, open: 100, high: 105, low: start.low, close: 105, volume: 60 });
    const second = applyTrade(first.bar, trade(T0 + 20, 90, 1_004), 60, first.cumulative);
    expect(second.bar).toMatchObject({ high: 105, low: 90, close: 90, volume: 64 });
  });

  it('opens a new bar in a later slot', () => {
    const next = applyTrade(bar(T0, 1, 2), trade(T0 + 61, 3, 500), 60, {
      day: Math.floor(T0 / 86_400),
      volume: 480,
    });
    expect(next.bar).toEqual({ time: T0 + 60, open: 3, high: 3, low: 3, close: 3, volume: 20 });
  });

  it('counts no quantity for the first trade seen, or the first of a new day', () => {
    expect(applyTrade(undefined, trade(T0, 3, 500), 60, undefined).bar.volume).toBe(0);
    const yesterday = { day: Math.floor(T0 / 86_400) - 1, volume: 9_999 };
    expect(applyTrade(undefined, trade(T0, 3, 500), 60, yesterday).bar.volume).toBe(0);
  });
});

describe('bandsFromGaps', () => {
  it("keeps this instrument's ledger rows with readable times; an open gap runs to now", () => {
    const before = Date.now() / 1000;
    const bands = bandsFromGaps(
      {
        data: [
          {
            securityId: 7,
            connection: 1,
            cause: 'reconnect',
            start: '2024-03-04T09:10:00Z',
            end: '2024-03-04T09:12:00Z',
          },
          {
            securityId: 8,
            connection: 1,
            cause: 'reconnect',
            start: '2024-03-04T09:00:00Z',
            end: '2024-03-04T09:01:00Z',
          },
          { securityId: '7', connection: 3, cause: 'silence', start: '2024-03-04 09:02:00', end: null },
          { securityId: 7, cause: 'x', start: 'bad', end: 'bad' },
        ],
      },
      7,
    );
    expect(bands.map((b) => [b.fromSec, b.cause, b.connection])).toEqual([
      [T0, 'silence', 3],
      [T0 + 480, 'reconnect', 1],
    ]);
    expect(bands[0]?.toSec).toBeGreaterThanOrEqual(before);
    expect(bands[1]?.toSec).toBe(T0 + 600);
  });
});

describe('times in a zone', () => {
  it('labels the crosshair with the date, the time as fine as the interval and the zone', () => {
    const ist = T0 + ZONES.IST.offsetSec;
    expect(formatSlot(ist, 60, ZONES.IST)).toBe('2024-03-04 14:32 IST');
    expect(formatSlot(T0 + 7, 1, ZONES.UTC)).toBe('2024-03-04 09:02:07 UTC');
    expect(formatSlot(Date.UTC(2024, 2, 4) / 1000, 86_400, ZONES.UTC)).toBe('2024-03-04 (UTC day)');
  });

  it('labels axis ticks by their kind', () => {
    expect(tickLabel(T0, 0)).toBe('2024');
    expect(tickLabel(T0, 1)).toBe('Mar');
    expect(tickLabel(T0, 2)).toBe('4 Mar');
    expect(tickLabel(T0, 3)).toBe('09:02');
    expect(tickLabel(T0 + 5, 4)).toBe('09:02:05');
  });
});
