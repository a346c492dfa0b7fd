/**
 * The bars of one instrument-day at one interval (1 s or 1 min), kept up to date trade by trade,
 * with each bar's row text kept once written (json/ndjson and csv), so an answer copies rows
 * instead of scanning the day's trades and spelling numbers.
 *
 * Exact against BARS_SQL (compute-bars.ts says how it computes), because a trade is added here
 * only when it is the day's last in (received_at, kafka_offset) order (held-day.ts rebuilds the
 * bars from the trades otherwise):
 * - its quantity is its volume minus its predecessor's, and no later trade exists whose quantity
 *   it changes;
 * - a bar's trades arrive in receive order, so its first trade is its open, the newest its close,
 *   and price x quantity is summed in the order computeBars sums it (the per-bar sequential sum;
 *   1-second sums are never merged into minutes: each interval sums its own trades);
 * - an interval that divides a day keeps each bar inside one UTC day, the held day's.
 * A bar whose values change lets its text go; the bar being built therefore has its row written
 * per answer until it stops changing, a closed one is written once: when the next bar opens (for
 * 1-minute bars, whose rows are few enough to keep them all) or at its first answer (1-second
 * bars, about one a trade: only the rows asked for are kept).
 *
 * Memory: BYTES_PER_BAR a bar (capacity, doubling as bars are added) plus the kept text, which
 * RowTextBudget caps over the whole tier.
 */
import type { RowTextFormat } from '../query/text-bodies.js';
import type { BarSet } from './bar-set.js';
import { barRowText } from './bar-text.js';
import type { RowTextBudget } from './row-text-budget.js';
import { resized } from './typed-columns.js';

/** time (4) + open, high, low, close (4 x 4) + volume (8) + price x quantity (8) + trades (4). */
export const BYTES_PER_BAR = 40;
const INITIAL_CAPACITY = 16;

export class StepBars {
  readonly step: number;
  readonly #budget: RowTextBudget;
  time = new Uint32Array(INITIAL_CAPACITY);
  open = new Float32Array(INITIAL_CAPACITY);
  high = new Float32Array(INITIAL_CAPACITY);
  low = new Float32Array(INITIAL_CAPACITY);
  close = new Float32Array(INITIAL_CAPACITY);
  volume = new Float64Array(INITIAL_CAPACITY);
  /** Sum of float64(price) x quantity, in receive order: the VWAP's numerator. */
  priceQuantity = new Float64Array(INITIAL_CAPACITY);
  trades = new Uint32Array(INITIAL_CAPACITY);
  length = 0;
  /** Kept rows by bar index (undefined: not written yet, changed since, or over the budget). */
  readonly #json: (string | undefined)[] = [];
  readonly #csv: (string | undefined)[] = [];

  /** Whether a bar's rows are written as soon as a later bar opens (else at its first answer). */
  readonly #writeClosed: boolean;

  constructor(step: number, budget: RowTextBudget, writeClosed: boolean) {
    this.step = step;
    this.#budget = budget;
    this.#writeClosed = writeClosed;
  }

  get bytes(): number {
    return this.time.length * BYTES_PER_BAR;
  }

  /** A trade that is the latest of its day in receive order, with its traded quantity. */
  add(ltt: number, ltp: number, quantity: number): void {
    const t = ltt - (ltt % this.step);
    const last = this.length - 1;
    let i: number;
    if (last >= 0 && this.time[last] === t) i = last;
    else if (last < 0 || (this.time[last] as number) < t) {
      i = this.#insert(this.length, t, ltp);
      // The bar before is closed in the usual course (a late trade may still change it, which
      // lets its rows go): written now, off the answers' path.
      if (last >= 0 && this.#writeClosed) this.#writeRows(last);
    } else {
      // A trade time before the newest bar's (trades are in receive order, not trade-time order).
      i = this.#lowerBound(t);
      if (this.time[i] !== t) i = this.#insert(i, t, ltp);
    }
    if (ltp > (this.high[i] as number)) this.high[i] = ltp;
    if (ltp < (this.low[i] as number)) this.low[i] = ltp;
    this.close[i] = ltp;
    this.volume[i] = (this.volume[i] as number) + quantity;
    this.priceQuantity[i] = (this.priceQuantity[i] as number) + ltp * quantity;
    this.trades[i] = (this.trades[i] as number) + 1;
    this.#forget(i);
  }

  /** Drops every bar and kept row (before a rebuild, or when the day goes). */
  clear(): void {
    for (let i = 0; i < this.length; i++) this.#forget(i);
    this.#json.length = 0;
    this.#csv.length = 0;
    this.length = 0;
  }

  /** Bars [start, end) whose time lies in [fromSec, toSec). */
  indexRange(fromSec: number, toSec: number): [number, number] {
    return [this.#lowerBound(fromSec), this.#lowerBound(toSec)];
  }

  /** Bar `i`'s row in `format`, kept while the bar does not change (and the budget allows). */
  rowText(i: number, format: RowTextFormat): string {
    const kept = format === 'csv' ? this.#csv : this.#json;
    const held = kept[i];
    if (held !== undefined) return held;
    const text = barRowText(format, this, i, this.#vwap(i));
    if (!this.#budget.take(text)) return text;
    const flat = flatString(text);
    kept[i] = flat;
    return flat;
  }

  #writeRows(i: number): void {
    this.rowText(i, 'json');
    this.rowText(i, 'csv');
  }

  /** Bar `i`'s VWAP as BARS_SQL gives it: null without quantity. */
  #vwap(i: number): number | null {
    const volume = this.volume[i] as number;
    return volume > 0 ? (this.priceQuantity[i] as number) / volume : null;
  }

  /** Appends bars [start, end) to `out`. */
  copyTo(out: BarSet, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      out.time.push(this.time[i] as number);
      out.open.push(this.open[i] as number);
      out.high.push(this.high[i] as number);
      out.low.push(this.low[i] as number);
      out.close.push(this.close[i] as number);
      out.volume.push(this.volume[i] as number);
      out.vwap.push(this.#vwap(i));
      out.trades.push(this.trades[i] as number);
    }
  }

  /** Drops the spare capacity (after the load). */
  trim(): void {
    if (this.length === this.time.length) return;
    this.#resize(this.length);
  }

  /** The first bar index whose time is >= t. */
  #lowerBound(t: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.time[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A new bar of one trade's price at index `at` (its open; the caller adds the trade). */
  #insert(at: number, t: number, ltp: number): number {
    if (this.length === this.time.length) this.#resize(Math.max(INITIAL_CAPACITY, this.length * 2));
    if (at < this.length) {
      for (const column of this.#columns()) column.copyWithin(at + 1, at, this.length);
      if (this.#json.length > at) this.#json.splice(at, 0, undefined);
      if (this.#csv.length > at) this.#csv.splice(at, 0, undefined);
    }
    this.time[at] = t;
    this.open[at] = ltp;
    this.high[at] = ltp;
    this.low[at] = ltp;
    this.close[at] = ltp;
    this.volume[at] = 0;
    this.priceQuantity[at] = 0;
    this.trades[at] = 0;
    this.length++;
    return at;
  }

  #forget(i: number): void {
    const json = this.#json[i];
    if (json !== undefined) {
      this.#budget.give(json);
      this.#json[i] = undefined;
    }
    const csv = this.#csv[i];
    if (csv !== undefined) {
      this.#budget.give(csv);
      this.#csv[i] = undefined;
    }
  }

  #columns(): (Uint32Array | Float32Array | Float64Array)[] {
    return [
      this.time,
      this.open,
      this.high,
      this.low,
      this.close,
      this.volume,
      this.priceQuantity,
      this.trades,
    ];
  }

  #resize(capacity: number): void {
    this.time = resized(this.time, capacity, this.length);
    this.open = resized(this.open, capacity, this.length);
    this.high = resized(this.high, capacity, this.length);
    this.low = resized(this.low, capacity, this.length);
    this.close = resized(this.close, capacity, this.length);
    this.volume = resized(this.volume, capacity, this.length);
    this.priceQuantity = resized(this.priceQuantity, capacity, this.length);
    this.trades = resized(this.trades, capacity, this.length);
  }
}

/**
 * `text` as one sequential string. A template literal's result is a tree of its parts (a cons
 * string, one heap object per part): kept as it is, a row cost ~350 bytes and a GC's trace of ~17
 * objects (the first measure: 707 KB of JavaScript memory an instrument-day and a load ten times
 * slower). The rows are ASCII, so latin1 there and back is exact and leaves a flat string.
 */
function flatString(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}
