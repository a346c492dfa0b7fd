/**
 * BARS_SQL computed over the trades held in memory, value for value:
 * - a trade's quantity is max(volume - volume of the trade received before it on the same UTC
 *   day, 0), the day's first trade counting its whole volume: the value the sink stores in
 *   market.ticks.quantity, computed again here because the trades topic's records carry only the
 *   cumulative volume (the tier holds whole days, so every trade's predecessor is at hand);
 * - a bar is toStartOfInterval(ltt, step s) = floor(ltt / step) * step (UTC, epoch-aligned);
 * - open / close are the first / last trade by (received_at, kafka_offset), high / low max / min;
 * - volume = sum(qty); vwap = sum(float64(ltp) * qty) / sum(qty), null without quantity; summed
 *   in receive order, where ClickHouse sums in the order it reads the parts: the same sum, since a
 *   float32 price times a quantity below 2^29 is exact in a Float64, and so is a sum of such
 *   products while it stays within 2^53 units of the smallest price step in it (about $69 billion
 *   a bar at a price near $100);
 * - only trades with ltt in [fromSec, toSec), every trade of the day still counted for the lag.
 */
import type { BarSet } from './bar-set.js';
import type { InstrumentDay } from './instrument-day.js';

/**
 * The bars of [fromSec, toSec) at `step` seconds from `days` (the instrument's held days that
 * the range touches, in ascending day order). `maxBars` bounds the scratch arrays (the route has
 * checked the range against it already).
 */
export function computeBars(
  days: readonly InstrumentDay[],
  step: number,
  fromSec: number,
  toSec: number,
): BarSet {
  const first = Math.floor(fromSec / step);
  const slots = Math.floor((toSec - 1) / step) - first + 1;
  const trades = new Float64Array(slots);
  const open = new Float32Array(slots);
  const high = new Float32Array(slots);
  const low = new Float32Array(slots);
  const close = new Float32Array(slots);
  const openKey = new Float64Array(slots * 2);
  const closeKey = new Float64Array(slots * 2);
  const volume = new Float64Array(slots);
  const pq = new Float64Array(slots);
  for (const day of days) {
    let previous = 0;
    for (let i = 0; i < day.length; i++) {
      const v = day.volume[i] as number;
      const qty = Math.max(v - previous, 0);
      previous = v;
      const t = day.ltt[i] as number;
      if (t < fromSec || t >= toSec) continue;
      const s = Math.floor(t / step) - first;
      const p = day.ltp[i] as number;
      const r = day.receivedAt[i] as number;
      const o = day.offset[i] as number;
      if (trades[s] === 0) {
        open[s] = p;
        high[s] = p;
        low[s] = p;
        close[s] = p;
        openKey[2 * s] = r;
        openKey[2 * s + 1] = o;
        closeKey[2 * s] = r;
        closeKey[2 * s + 1] = o;
      } else {
        if (p > (high[s] as number)) high[s] = p;
        if (p < (low[s] as number)) low[s] = p;
        // A bar across midnight holds two days' trades: compare keys rather than trust the scan order.
        const or = openKey[2 * s] as number;
        if (r < or || (r === or && o < (openKey[2 * s + 1] as number))) {
          open[s] = p;
          openKey[2 * s] = r;
          openKey[2 * s + 1] = o;
        }
        const cr = closeKey[2 * s] as number;
        if (r > cr || (r === cr && o > (closeKey[2 * s + 1] as number))) {
          close[s] = p;
          closeKey[2 * s] = r;
          closeKey[2 * s + 1] = o;
        }
      }
      trades[s] = (trades[s] as number) + 1;
      volume[s] = (volume[s] as number) + qty;
      pq[s] = (pq[s] as number) + p * qty;
    }
  }
  const out: BarSet = { time: [], open: [], high: [], low: [], close: [], volume: [], vwap: [], trades: [] };
  for (let s = 0; s < slots; s++) {
    const n = trades[s] as number;
    if (n === 0) continue;
    const v = volume[s] as number;
    out.time.push((first + s) * step);
    out.open.push(open[s] as number);
    out.high.push(high[s] as number);
    out.low.push(low[s] as number);
    out.close.push(close[s] as number);
    out.volume.push(v);
    out.vwap.push(v > 0 ? (pq[s] as number) / v : null);
    out.trades.push(n);
  }
  return out;
}
