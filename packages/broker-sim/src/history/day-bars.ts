/**
 * One day of one-minute bars for one instrument, generated on demand.
 *
 * Construction: the day's log price runs as a Brownian bridge from the open to the close over the
 * 375 minutes of the 09:15-15:30 IST session, from a PRNG keyed by (seed, securityId, day), so any
 * day can be produced alone and always comes out the same. Prices are whole ticks: a minute's open
 * is the previous minute's close, high and low widen the open/close pair by a random number of
 * ticks. Coarser bars and the daily bar are aggregations of these minutes, so they agree exactly
 * (open = first open, close = last close, high = max, low = min, volume = sum).
 */
import { SESSION_MINUTES, sessionOpen } from './calendar.js';
import { hashKeys, Rng } from './random.js';

/** Column arrays of bars, timestamps in epoch seconds (bar start). */
export interface BarColumns {
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  readonly timestamp: Float64Array;
}

export interface DayPlan {
  readonly seed: number;
  readonly securityId: number;
  readonly day: number;
  readonly openPrice: number;
  readonly closePrice: number;
  /** Daily volatility (log units). */
  readonly sigma: number;
  readonly tickSize: number;
  /** Expected shares for the whole day; 0 for indices. */
  readonly dayVolume: number;
  /** Minutes to produce (375 for a full day; fewer for the current day). */
  readonly minutes: number;
}

export function emptyBars(n: number): BarColumns {
  return {
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
    timestamp: new Float64Array(n),
  };
}

/** Rounds to a whole number of ticks; never below 1 tick. */
export function toTick(price: number, tick: number): number {
  const units = Math.max(1, Math.round(price / tick));
  // Dividing by ticks-per-unit (not multiplying by tick) gives the double closest to the decimal.
  return units / Math.round(1 / tick);
}

export function generateDay(plan: DayPlan): BarColumns {
  const n = Math.max(1, Math.min(SESSION_MINUTES, plan.minutes));
  const rng = new Rng(hashKeys(plan.seed, plan.securityId, plan.day, 0x1d));
  const step = plan.sigma / Math.sqrt(SESSION_MINUTES);
  // Brownian path, then pinned to end at the close after n minutes.
  const walk = new Float64Array(n);
  let w = 0;
  for (let i = 0; i < n; i++) {
    w += rng.normal() * step;
    walk[i] = w;
  }
  const lo = Math.log(plan.openPrice);
  const lc = Math.log(plan.closePrice);
  const bars = emptyBars(n);
  const t0 = sessionOpen(plan.day);
  const tpu = Math.round(1 / plan.tickSize);
  let prevClose = toTick(plan.openPrice, plan.tickSize);
  for (let i = 0; i < n; i++) {
    const f = (i + 1) / n;
    const logP = lo + f * (lc - lo) + (walk[i]! - f * walk[n - 1]!);
    const close =
      i === n - 1 ? toTick(plan.closePrice, plan.tickSize) : toTick(Math.exp(logP), plan.tickSize);
    const open = prevClose;
    const spread = Math.max(open, close) * step * 0.6;
    const up = Math.floor(rng.next() * (spread / plan.tickSize + 1));
    const down = Math.floor(rng.next() * (spread / plan.tickSize + 1));
    bars.open[i] = open;
    bars.close[i] = close;
    bars.high[i] = (Math.round(Math.max(open, close) * tpu) + up) / tpu;
    bars.low[i] = Math.max(1, Math.round(Math.min(open, close) * tpu) - down) / tpu;
    // U-shaped intraday volume: busier at the open and the close.
    const x = i / (SESSION_MINUTES - 1);
    const shape = 0.6 + 2.4 * (x - 0.5) ** 2 * 4;
    bars.volume[i] =
      plan.dayVolume === 0
        ? 0
        : Math.round(((plan.dayVolume / SESSION_MINUTES) * shape * (0.5 + rng.next())) / 1.4);
    bars.timestamp[i] = t0 + i * 60;
    prevClose = close;
  }
  return bars;
}

/** Aggregates consecutive groups of `size` bars (the last group may be shorter). */
export function aggregate(bars: BarColumns, size: number): BarColumns {
  const n = bars.open.length;
  const groups = Math.ceil(n / size);
  const out = emptyBars(groups);
  for (let g = 0; g < groups; g++) {
    const a = g * size;
    const b = Math.min(n, a + size);
    let hi = -Infinity;
    let lo = Infinity;
    let vol = 0;
    for (let i = a; i < b; i++) {
      if (bars.high[i]! > hi) hi = bars.high[i]!;
      if (bars.low[i]! < lo) lo = bars.low[i]!;
      vol += bars.volume[i]!;
    }
    out.open[g] = bars.open[a]!;
    out.close[g] = bars.close[b - 1]!;
    out.high[g] = hi;
    out.low[g] = lo;
    out.volume[g] = vol;
    out.timestamp[g] = bars.timestamp[a]!;
  }
  return out;
}
