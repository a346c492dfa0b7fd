/**
 * Price history of an instrument: daily closes from inception to the last finished trading day,
 * then minute bars for any day on demand (day-bars.ts), and candles at every interval built by
 * aggregating those minutes.
 *
 * Daily closes are anchored at the live model: the last finished trading day closes at the live
 * quote's prevClose, and earlier closes follow backwards by daily log returns keyed by (seed,
 * securityId, day). Returns do not depend on the anchor, so when the clock enters a new day the
 * whole past only rescales. The current day's minutes run from the live open to the live last
 * price (their high/low can lie inside the live day's extremes; open and close agree).
 */
import type { MarketSource, SimInstrument } from '../rest/market-source.js';
import {
  DAY_S,
  isTradingDay,
  istDay,
  parseDay,
  SESSION_MINUTES,
  sessionOpen,
  tradingDayAtOrBefore,
} from './calendar.js';
import { aggregate, type BarColumns, emptyBars, generateDay } from './day-bars.js';
import { Lru } from './lru.js';
import { hashKeys, Rng, uniformOf } from './random.js';

/** Upward drift per day of the generated past (about 8% a year), so older prices are lower. */
const DAILY_DRIFT = 0.0003;
const DAY_CACHE = 512;
const SERIES_CACHE = 32;

interface DailySeries {
  /** Trading days from inception to the anchor day, ascending. */
  readonly days: Int32Array;
  readonly closes: Float64Array;
  /** Daily bars aggregated from minutes, filled lazily (NaN = not yet). */
  readonly dOpen: Float64Array;
  readonly dHigh: Float64Array;
  readonly dLow: Float64Array;
  readonly dClose: Float64Array;
  readonly dVolume: Float64Array;
}

export class PriceHistory {
  private readonly dayCache = new Lru<string, BarColumns>(DAY_CACHE);
  private readonly seriesCache = new Lru<string, DailySeries>(SERIES_CACHE);

  constructor(
    private readonly market: MarketSource,
    private readonly now: () => number,
  ) {}

  today(): number {
    return istDay(this.now() / 1000);
  }

  /** Daily volatility of an instrument (indices calmer than stocks). */
  sigma(inst: SimInstrument): number {
    const u = uniformOf(this.market.seed, inst.securityId, 0x51);
    return inst.instrumentType === 'INDEX' ? 0.008 + u * 0.005 : 0.014 + u * 0.012;
  }

  private dayVolume(inst: SimInstrument, day: number): number {
    if (inst.instrumentType === 'INDEX') return 0;
    const base = Math.exp(Math.log(1e5) + uniformOf(this.market.seed, inst.securityId, 0x52) * Math.log(50));
    return Math.round(base * (0.6 + uniformOf(this.market.seed, inst.securityId, day, 0x53)));
  }

  private dailyReturn(inst: SimInstrument, day: number): number {
    const rng = new Rng(hashKeys(this.market.seed, inst.securityId, day, 0x54));
    return DAILY_DRIFT + this.sigma(inst) * rng.normal();
  }

  /** Anchor: the last finished trading day and its close (the live prevClose). */
  private anchor(inst: SimInstrument): { day: number; close: number } {
    const day = tradingDayAtOrBefore(this.today() - 1);
    const q = this.market.quote(inst.securityId);
    const fallback = 50 + uniformOf(this.market.seed, inst.securityId, 0x55) * 2000;
    return { day, close: q && q.prevClose > 0 ? q.prevClose : fallback };
  }

  private series(inst: SimInstrument): DailySeries | undefined {
    const a = this.anchor(inst);
    const key = `${inst.securityId}|${a.day}|${a.close}`;
    const hit = this.seriesCache.get(key);
    if (hit) return hit;
    const first = parseDay(inst.inceptionDate);
    if (first === undefined || first > a.day) return undefined;
    const list: number[] = [];
    for (let d = first; d <= a.day; d++) if (isTradingDay(d)) list.push(d);
    const n = list.length;
    const closes = new Float64Array(n);
    closes[n - 1] = a.close;
    const floor = inst.tickSize * 20;
    for (let i = n - 1; i > 0; i--) {
      closes[i - 1] = Math.max(floor, closes[i]! / Math.exp(this.dailyReturn(inst, list[i]!)));
    }
    const nan = () => new Float64Array(n).fill(Number.NaN);
    const s: DailySeries = {
      days: Int32Array.from(list),
      closes,
      dOpen: nan(),
      dHigh: nan(),
      dLow: nan(),
      dClose: nan(),
      dVolume: nan(),
    };
    this.seriesCache.set(key, s);
    return s;
  }

  private indexOfDay(s: DailySeries, day: number): number {
    let lo = 0;
    let hi = s.days.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = s.days[mid]!;
      if (v === day) return mid;
      if (v < day) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** One-minute bars of a day: undefined when the instrument did not trade that day. */
  minuteBars(inst: SimInstrument, day: number): BarColumns | undefined {
    if (!isTradingDay(day)) return undefined;
    if (day === this.today()) return this.todayBars(inst, day);
    const s = this.series(inst);
    if (!s) return undefined;
    const i = this.indexOfDay(s, day);
    if (i < 0) return undefined;
    const key = `${inst.securityId}|${day}|${s.closes[s.closes.length - 1]}`;
    const hit = this.dayCache.get(key);
    if (hit) return hit;
    const sigma = this.sigma(inst);
    const gap = new Rng(hashKeys(this.market.seed, inst.securityId, day, 0x56)).normal() * sigma * 0.3;
    const prev = i > 0 ? s.closes[i - 1]! : s.closes[i]! / Math.exp(this.dailyReturn(inst, day));
    const bars = generateDay({
      seed: this.market.seed,
      securityId: inst.securityId,
      day,
      openPrice: prev * Math.exp(gap),
      closePrice: s.closes[i]!,
      sigma,
      tickSize: inst.tickSize,
      dayVolume: this.dayVolume(inst, day),
      minutes: SESSION_MINUTES,
    });
    this.dayCache.set(key, bars);
    return bars;
  }

  private todayBars(inst: SimInstrument, day: number): BarColumns | undefined {
    const q = this.market.quote(inst.securityId);
    const nowS = this.now() / 1000;
    const elapsed = Math.floor((nowS - sessionOpen(day)) / 60) + 1;
    if (!q || elapsed <= 0 || q.open <= 0) return undefined;
    const minutes = Math.min(SESSION_MINUTES, elapsed);
    return generateDay({
      seed: this.market.seed,
      securityId: inst.securityId,
      day,
      openPrice: q.open,
      closePrice: q.ltp,
      sigma: this.sigma(inst) * Math.sqrt(minutes / SESSION_MINUTES),
      tickSize: inst.tickSize,
      dayVolume: Math.round((this.dayVolume(inst, day) * minutes) / SESSION_MINUTES),
      minutes,
    });
  }

  /** Bars of one day at an interval in minutes (1, 5, 15, 30, 60). */
  intradayBars(inst: SimInstrument, day: number, interval: number): BarColumns | undefined {
    const m = this.minuteBars(inst, day);
    if (!m) return undefined;
    return interval === 1 ? m : aggregate(m, interval);
  }

  /** The daily bar of a day, aggregated from its minutes. */
  dailyBar(inst: SimInstrument, day: number): BarColumns | undefined {
    if (day === this.today()) {
      const m = this.minuteBars(inst, day);
      return m ? this.withMidnight(aggregate(m, SESSION_MINUTES), day) : undefined;
    }
    const s = this.series(inst);
    if (!s) return undefined;
    const i = this.indexOfDay(s, day);
    if (i < 0) return undefined;
    if (Number.isNaN(s.dOpen[i]!)) {
      const d = aggregate(this.minuteBars(inst, day)!, SESSION_MINUTES);
      s.dOpen[i] = d.open[0]!;
      s.dHigh[i] = d.high[0]!;
      s.dLow[i] = d.low[0]!;
      s.dClose[i] = d.close[0]!;
      s.dVolume[i] = d.volume[0]!;
    }
    const out = emptyBars(1);
    out.open[0] = s.dOpen[i]!;
    out.high[0] = s.dHigh[i]!;
    out.low[0] = s.dLow[i]!;
    out.close[0] = s.dClose[i]!;
    out.volume[0] = s.dVolume[i]!;
    out.timestamp[0] = day * DAY_S - 19_800;
    return out;
  }

  private withMidnight(bars: BarColumns, day: number): BarColumns {
    bars.timestamp[0] = day * DAY_S - 19_800;
    return bars;
  }
}
