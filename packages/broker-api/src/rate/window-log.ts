import type { WindowLimit } from './categories.js';

/**
 * The send times of one category's recent requests, enough to answer "when may the next request
 * go?" for every sliding window at once in O(windows).
 *
 * A ring of the last C send times, C = the largest `max` of the windows: for a window (w, n) the
 * next request may go once the n-th most recent send is at least w old. The data category's
 * 100,000/day budget makes this an 800 kB Float64Array, the price of an exact day window.
 */
export class WindowLog {
  readonly #limits: readonly WindowLimit[];
  readonly #times: Float64Array;
  #size = 0;
  #head = 0; // index of the next write

  constructor(limits: readonly WindowLimit[]) {
    this.#limits = limits;
    const capacity = limits.reduce((m, l) => Math.max(m, l.max), 0);
    this.#times = new Float64Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.#size;
  }

  /** The k-th most recent send time (k = 1 is the latest), if there were k sends. */
  #recent(k: number): number | undefined {
    if (k > this.#size || k < 1) return undefined;
    const cap = this.#times.length;
    return this.#times[(this.#head - k + cap * 2) % cap];
  }

  /**
   * Earliest time at or after `now` at which one more request fits every window, with `marginMs`
   * added after a full window so a server that counts from arrival never sees one too many.
   * Windows longer than `onlyLongerThanMs` only, when given (to test long budgets alone).
   */
  nextSlot(now: number, marginMs: number, onlyLongerThanMs = -1): number {
    let at = now;
    for (const limit of this.#limits) {
      if (limit.windowMs <= onlyLongerThanMs) continue;
      const nth = this.#recent(limit.max);
      if (nth === undefined) continue;
      const free = nth + limit.windowMs + marginMs;
      if (free > at) at = free;
    }
    return at;
  }

  /** How many sends fall in the last `windowMs` before `now` (for stats and tests). */
  countWithin(now: number, windowMs: number): number {
    let count = 0;
    for (let k = 1; k <= this.#size; k++) {
      const t = this.#recent(k);
      if (t === undefined || t <= now - windowMs) break;
      count++;
    }
    return count;
  }

  record(time: number): void {
    this.#times[this.#head] = time;
    this.#head = (this.#head + 1) % this.#times.length;
    if (this.#size < this.#times.length) this.#size++;
  }
}
