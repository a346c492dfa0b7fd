/**
 * One instrument-day the hot tier holds: its trades (instrument-day.ts) and its bars at the kept
 * intervals (step-bars.ts), built as trades arrive.
 *
 * A trade that is not the day's latest in receive order (a late one, placed among the trades)
 * changes its successor's quantity and the order of a bar's sums, so instead of patching bars the
 * day is marked stale and its bars are rebuilt from the trades at the next read: one scan of the
 * day (what every answer cost before the bars were kept) however many late trades came meanwhile.
 */
import { InstrumentDay } from './instrument-day.js';
import type { RowTextBudget } from './row-text-budget.js';
import { StepBars } from './step-bars.js';

/** The intervals whose bars are kept, seconds: 1 s and 1 min (others are computed from trades). */
export const KEPT_STEPS: readonly number[] = [1, 60];
/** The kept interval whose closed bars' rows are written at once (see step-bars.ts). */
const WRITTEN_WHEN_CLOSED = 60;

export class HeldDay {
  readonly trades = new InstrumentDay();
  readonly #bars: StepBars[];
  #stale = false;

  constructor(budget: RowTextBudget) {
    this.#bars = KEPT_STEPS.map((step) => new StepBars(step, budget, step === WRITTEN_WHEN_CLOSED));
  }

  /** Bytes of the trade and bar columns (capacity). */
  get bytes(): number {
    let bytes = this.trades.bytes;
    for (const bars of this.#bars) bytes += bars.bytes;
    return bytes;
  }

  /** Adds a trade (see InstrumentDay.add); false for a repeat. */
  add(ltt: number, ltp: number, volume: number, receivedAt: number, offset: number): boolean {
    const at = this.trades.add(ltt, ltp, volume, receivedAt, offset);
    if (at < 0) return false;
    if (this.#stale) return true;
    if (at !== this.trades.length - 1) {
      this.#stale = true;
      return true;
    }
    const previous = at > 0 ? (this.trades.volume[at - 1] as number) : 0;
    const quantity = Math.max(volume - previous, 0);
    // The price as held (a float32), as the rebuild and computeBars read it.
    const price = this.trades.ltp[at] as number;
    for (const bars of this.#bars) bars.add(ltt, price, quantity);
    return true;
  }

  /** The kept bars at `step`, up to date; undefined when that interval is not kept. */
  barsAt(step: number): StepBars | undefined {
    const kept = this.#bars.find((bars) => bars.step === step);
    if (kept !== undefined && this.#stale) this.#rebuild();
    return kept;
  }

  /** Drops the spare capacity (after the load). */
  trim(): void {
    this.trades.trim();
    for (const bars of this.#bars) bars.trim();
  }

  /** Lets the kept rows go (the day leaves the tier). */
  release(): void {
    for (const bars of this.#bars) bars.clear();
  }

  #rebuild(): void {
    for (const bars of this.#bars) bars.clear();
    const { ltt, ltp, volume, length } = this.trades;
    let previous = 0;
    for (let i = 0; i < length; i++) {
      const v = volume[i] as number;
      const quantity = Math.max(v - previous, 0);
      previous = v;
      for (const bars of this.#bars) bars.add(ltt[i] as number, ltp[i] as number, quantity);
    }
    this.#stale = false;
  }
}
