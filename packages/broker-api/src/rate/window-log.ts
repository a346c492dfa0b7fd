import type { WindowLimit } from './categories.js';

/**
 * The recent requests of one category, enough to answer "when may the next request go?" for every
 * sliding window at once.
 *
 * A request occupies its slot from the moment it is sent until `windowMs` after its answer came
 * back (or it failed). The service counts a request when it arrives, which is somewhere between
 * the two; counting from the answer is the only point the client knows to be no earlier than the
 * arrival, so a client paced this way is never refused, whatever the network and server delays.
 * Requests still in flight count as the most recent ones.
 *
 * Finished requests sit in a ring of end times, sorted, holding the last C of them where C is the
 * largest `max` of the windows: for a window (w, n) with f requests in flight, the next request may
 * go once the (n - f)-th most recent end time is at least w old. The data category's 100,000/day
 * budget makes this an 800 kB Float64Array, the price of an exact day window.
 */
export class WindowLog {
  readonly #limits: readonly WindowLimit[];
  readonly #times: Float64Array;
  #size = 0;
  #head = 0; // index of the next write
  #inFlight = 0;

  constructor(limits: readonly WindowLimit[]) {
    this.#limits = limits;
    const capacity = limits.reduce((m, l) => Math.max(m, l.max), 0);
    this.#times = new Float64Array(Math.max(1, capacity));
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The k-th most recent end time (k = 1 is the latest), if there were k. */
  #recent(k: number): number | undefined {
    if (k > this.#size || k < 1) return undefined;
    const cap = this.#times.length;
    return this.#times[(this.#head - k + cap * 2) % cap];
  }

  #set(k: number, value: number): void {
    const cap = this.#times.length;
    this.#times[(this.#head - k + cap * 2) % cap] = value;
  }

  /**
   * Earliest time at or after `now` at which one more request fits every window, plus `marginMs`
   * after a full window (clock granularity at the service). Infinity when requests in flight alone
   * fill a window: the slot then depends on when they finish. Only windows longer than
   * `onlyLongerThanMs` count, when given (to test long budgets alone).
   */
  nextSlot(now: number, marginMs: number, onlyLongerThanMs = -1): number {
    let at = now;
    for (const limit of this.#limits) {
      if (limit.windowMs <= onlyLongerThanMs) continue;
      const k = limit.max - this.#inFlight;
      if (k <= 0) return Number.POSITIVE_INFINITY;
      const kth = this.#recent(k);
      if (kth === undefined) continue;
      const free = kth + limit.windowMs + marginMs;
      if (free > at) at = free;
    }
    return at;
  }

  /** How many requests are in flight or ended within the last `windowMs` before `now`. */
  countWithin(now: number, windowMs: number): number {
    let count = this.#inFlight;
    for (let k = 1; k <= this.#size; k++) {
      const t = this.#recent(k);
      if (t === undefined || t <= now - windowMs) break;
      count++;
    }
    return count;
  }

  /**
   * The latest entry is no earlier than `time`: a slot recorded when it was granted moves to when
   * its request actually left (later, if the process was busy in between). Moving an entry later
   * only ever delays the next slot, so it is safe whichever request the entry belongs to.
   */
  delayLatest(time: number): void {
    if (this.#size === 0) return;
    if ((this.#recent(1) as number) < time) this.#set(1, time);
  }

  /** A request is sent. */
  begin(): void {
    this.#inFlight++;
  }

  /** A request sent with `begin` has ended (answered or failed) at `time`. */
  end(time: number): void {
    if (this.#inFlight > 0) this.#inFlight--;
    const cap = this.#times.length;
    if (this.#size === cap) {
      const oldest = this.#recent(cap) as number;
      // Older than everything kept: it can no longer decide any window.
      if (time <= oldest) return;
    }
    this.#times[this.#head] = time;
    this.#head = (this.#head + 1) % cap;
    if (this.#size < cap) this.#size++;
    // Answers mostly come back in order; move a late one back to its place (bounded by size).
    for (let k = 1; k < this.#size; k++) {
      const newer = this.#recent(k) as number;
      const older = this.#recent(k + 1) as number;
      if (older <= newer) break;
      this.#set(k, older);
      this.#set(k + 1, newer);
    }
  }
}
