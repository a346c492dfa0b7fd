/**
 * The hot tier's state: the trades of the last whole UTC days (the window) of up to
 * `maxInstruments` instruments, with their 1-second and 1-minute bars kept as trades arrive
 * (held-day.ts); bars of other intervals are computed from the trades on request (compute-bars.ts).
 *
 * The window starts at the UTC midnight `windowHours` before now, so every held day is whole and
 * each trade's quantity (its day volume minus its predecessor's) is computed exactly as BARS_SQL
 * does. Trades with a trade time before the window are not held (ClickHouse answers for them).
 *
 * An instrument is held from the start or not at all: once the cap refuses one, it is never
 * admitted later (its earlier trades were not kept), and an instrument-day that outgrows
 * `maxTradesPerDay` is dropped and marked, so ranges touching it go to ClickHouse. What the tier
 * answers is therefore always complete.
 */
import { type BarSet, emptyBars } from './bar-set.js';
import { computeBars } from './compute-bars.js';
import { HeldDay, KEPT_STEPS } from './held-day.js';
import type { InstrumentDay } from './instrument-day.js';
import { RowTextBudget } from './row-text-budget.js';
import type { StepBars } from './step-bars.js';

const DAY_SEC = 86_400;
/** Instruments refused by the cap that are remembered; beyond this no new instrument is admitted. */
const MAX_REFUSED = 1_000_000;

export interface HotTierOptions {
  /** Hours of history before now that the window reaches back to (then down to UTC midnight). */
  windowHours: number;
  maxInstruments: number;
  /** Trades of one instrument on one day held at most; beyond, the day is left to ClickHouse. */
  maxTradesPerDay: number;
  /**
   * Bytes of trade and kept bar columns held at most, over everything. Beyond it the tier closes for good (it
   * can no longer hold every trade, and a partial answer is never given): ClickHouse answers.
   */
  maxBytes: number;
  /**
   * Bytes of kept bar rows (text) at most, over everything; beyond it rows are written per
   * answer (row-text-budget.ts).
   */
  maxRowTextBytes: number;
}

/** A run of kept bars: indices [start, end) of one day's bars at the asked interval. */
export interface KeptBarsRun {
  bars: StepBars;
  start: number;
  end: number;
}

/** An instrument-day that outgrew maxTradesPerDay. */
const OVERFLOW = 'overflow';
type DayEntry = HeldDay | typeof OVERFLOW;

export interface HotTierStats {
  windowStartSec: number;
  instruments: number;
  trades: number;
  bytes: number;
  refused: number;
  overflowDays: number;
  /** Bytes of kept bar rows (text), apart from `bytes`. */
  rowTextBytes: number;
}

export class HotTier {
  readonly #options: HotTierOptions;
  readonly #held = new Map<number, Map<number, DayEntry>>();
  readonly #refused = new Set<number>();
  readonly #rowText: RowTextBudget;
  #closed = false;
  /** Bytes of the columns held (their capacity), kept as days grow, shrink and go. */
  #bytes = 0;
  /** The refused set is full: no instrument is admitted any more. */
  #closedToNew = false;
  /** The trades outgrew maxBytes: closed for good. */
  #overLimit = false;
  #windowStartSec: number;
  #ready = false;

  constructor(options: HotTierOptions, nowMs: number) {
    this.#options = options;
    this.#rowText = new RowTextBudget(options.maxRowTextBytes);
    this.#windowStartSec = windowStartOf(nowMs, options.windowHours);
  }

  get windowStartSec(): number {
    return this.#windowStartSec;
  }

  /** Whether answers may come from memory (the load finished and the feed caught up). */
  get ready(): boolean {
    return this.#ready;
  }

  markReady(): void {
    if (!this.#closed) this.#ready = true;
  }

  /** The tier stops answering (its feed failed or stopped): everything goes to ClickHouse. */
  close(): void {
    this.#ready = false;
    this.#closed = true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Admits an instrument that ClickHouse has in the window (the load, in id order): false once the
   * cap is reached (it is then refused for good).
   */
  admit(securityId: number): boolean {
    if (this.#held.has(securityId)) return true;
    if (this.#refused.has(securityId)) return false;
    if (this.#held.size >= this.#options.maxInstruments) {
      if (this.#refused.size < MAX_REFUSED) this.#refused.add(securityId);
      else this.#closedToNew = true;
      return false;
    }
    if (this.#closedToNew) return false;
    this.#held.set(securityId, new Map());
    return true;
  }

  /** One trade (from the load or the feed); `receivedAt` in epoch µs. */
  add(
    securityId: number,
    ltt: number,
    ltp: number,
    volume: number,
    receivedAt: number,
    offset: number,
  ): void {
    if (ltt < this.#windowStartSec) return;
    if (!this.admit(securityId)) return;
    const days = this.#held.get(securityId) as Map<number, DayEntry>;
    const day = ltt - (ltt % DAY_SEC);
    let held = days.get(day);
    if (held === OVERFLOW) return;
    if (held === undefined) {
      held = new HeldDay(this.#rowText);
      days.set(day, held);
      this.#bytes += held.bytes;
    }
    if (held.trades.length >= this.#options.maxTradesPerDay) {
      this.#bytes -= held.bytes;
      held.release();
      days.set(day, OVERFLOW);
      return;
    }
    const before = held.bytes;
    held.add(ltt, ltp, volume, receivedAt, offset);
    if (held.bytes !== before) {
      this.#bytes += held.bytes - before;
      if (this.#bytes > this.#options.maxBytes) this.#overMemory();
    }
  }

  /** Over maxBytes: everything is dropped and the tier stays closed (see HotTierOptions.maxBytes). */
  #overMemory(): void {
    this.close();
    this.#overLimit = true;
    for (const days of this.#held.values()) {
      for (const held of days.values()) if (held !== OVERFLOW) held.release();
    }
    this.#held.clear();
    this.#bytes = 0;
  }

  /** Whether the tier closed because its trades outgrew maxBytes. */
  get overLimit(): boolean {
    return this.#overLimit;
  }

  /** Whether memory holds everything [fromSec, toSec) of the instrument needs. */
  covers(securityId: number, fromSec: number, toSec: number): boolean {
    if (!this.#ready || fromSec < this.#windowStartSec || this.#closedFor(securityId)) return false;
    const days = this.#held.get(securityId);
    if (days === undefined) return true;
    for (let day = fromSec - (fromSec % DAY_SEC); day < toSec; day += DAY_SEC) {
      if (days.get(day) === OVERFLOW) return false;
    }
    return true;
  }

  #closedFor(securityId: number): boolean {
    if (this.#held.has(securityId)) return false;
    // Not held and never refused: it had no trade in the window, so an empty answer is the truth.
    return this.#refused.has(securityId) || this.#closedToNew;
  }

  /** Bars of a range that `covers` accepted. */
  bars(securityId: number, step: number, fromSec: number, toSec: number): BarSet {
    const runs = this.keptBars(securityId, step, fromSec, toSec);
    if (runs !== undefined) {
      const out = emptyBars();
      for (const run of runs) run.bars.copyTo(out, run.start, run.end);
      return out;
    }
    const touched: InstrumentDay[] = [];
    for (const held of this.#heldDays(securityId, fromSec, toSec)) touched.push(held.trades);
    return computeBars(touched, step, fromSec, toSec);
  }

  /**
   * The kept bars of a range that `covers` accepted, day by day, when its interval is kept
   * (KEPT_STEPS) and both ends are bar boundaries; undefined otherwise (computed from the trades:
   * a range that starts or ends inside a bar holds only part of that bar's trades).
   */
  keptBars(securityId: number, step: number, fromSec: number, toSec: number): KeptBarsRun[] | undefined {
    if (!KEPT_STEPS.includes(step) || fromSec % step !== 0 || toSec % step !== 0) return undefined;
    const runs: KeptBarsRun[] = [];
    for (const held of this.#heldDays(securityId, fromSec, toSec)) {
      const before = held.bytes;
      const bars = held.barsAt(step);
      if (bars === undefined) return undefined;
      // A rebuild (after a late trade) may have grown the bars' columns.
      this.#bytes += held.bytes - before;
      const [start, end] = bars.indexRange(fromSec, toSec);
      if (end > start) runs.push({ bars, start, end });
    }
    return runs;
  }

  /** The held days of the instrument that [fromSec, toSec) touches, in day order. */
  #heldDays(securityId: number, fromSec: number, toSec: number): HeldDay[] {
    const days = this.#held.get(securityId);
    const touched: HeldDay[] = [];
    if (days === undefined) return touched;
    for (let day = fromSec - (fromSec % DAY_SEC); day < toSec; day += DAY_SEC) {
      const held = days.get(day);
      if (held !== undefined && held !== OVERFLOW) touched.push(held);
    }
    return touched;
  }

  /** Drops every held day's spare capacity (once the load is done). */
  trim(): void {
    for (const days of this.#held.values()) {
      for (const held of days.values()) if (held !== OVERFLOW) held.trim();
    }
    this.#bytes = this.stats().bytes;
  }

  /** Moves the window's start to `nowMs`'s and drops the days before it. */
  advance(nowMs: number): void {
    const start = windowStartOf(nowMs, this.#options.windowHours);
    if (start <= this.#windowStartSec) return;
    this.#windowStartSec = start;
    for (const days of this.#held.values()) {
      for (const [day, held] of [...days]) {
        if (day >= start) continue;
        if (held !== OVERFLOW) {
          this.#bytes -= held.bytes;
          held.release();
        }
        days.delete(day);
      }
    }
  }

  stats(): HotTierStats {
    let trades = 0;
    let bytes = 0;
    let overflowDays = 0;
    for (const days of this.#held.values()) {
      for (const held of days.values()) {
        if (held === OVERFLOW) overflowDays++;
        else {
          trades += held.trades.length;
          bytes += held.bytes;
        }
      }
    }
    return {
      windowStartSec: this.#windowStartSec,
      instruments: this.#held.size,
      trades,
      bytes,
      refused: this.#refused.size,
      overflowDays,
      rowTextBytes: this.#rowText.used,
    };
  }
}

/** UTC midnight of the day `windowHours` before `nowMs`, epoch seconds. */
export function windowStartOf(nowMs: number, windowHours: number): number {
  const sec = Math.floor(nowMs / 1000) - windowHours * 3600;
  return sec - (((sec % DAY_SEC) + DAY_SEC) % DAY_SEC);
}
