/**
 * Time as the client sees it. Everything that waits or compares times (rate windows, token expiry,
 * retry backoff) goes through a Clock, so tests drive time by hand instead of sleeping.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once `now()` has reached `at`, as soon after it as the clock can; rejects with the
   * signal's reason when aborted. For a wait whose lateness costs (a rate slot counted from the
   * send); without it such waits use `sleep`.
   */
  sleepUntil?(at: number, signal?: AbortSignal): Promise<void>;
}

/**
 * How early a precise wait (systemClock.sleepUntil) leaves its timer to spend the rest on the clock.
 * A timer fires on the millisecond asked at the earliest, often 1-2 ms after it (libuv compares
 * with the loop's cached time, and other callbacks of the same turn run first), and at the quote
 * category's 1 request a second each millisecond a send leaves late is rate given up for good.
 */
const SPIN_LEAD_MS = 2;

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function sleepUntilPrecisely(at: number, signal?: AbortSignal): Promise<void> {
  // Bounded: every timer ends within SPIN_LEAD_MS of `at` or later, and the spin ends at `at`.
  for (let round = 0; round < 1_000; round++) {
    const left = at - Date.now();
    if (left <= 0) return;
    if (left > SPIN_LEAD_MS) {
      await sleepFor(left - SPIN_LEAD_MS, signal);
      continue;
    }
    if (signal?.aborted) throw signal.reason;
    // The last milliseconds on the clock itself: this thread holds its core for at most the lead.
    while (Date.now() < at) {
      // spin
    }
    return;
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: sleepFor,
  sleepUntil: sleepUntilPrecisely,
};

interface Sleeper {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` wakes sleepers in time order, letting the
 * promise chains of each wake-up run before moving on, so code under test sees time pass in order.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Number of pending sleeps; lets a test see that code is waiting. */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  /** Time of the earliest pending sleep, if any. */
  get nextWakeAt(): number | undefined {
    return this.#sleepers[0]?.at;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const sleeper: Sleeper = { at: this.#now + Math.max(0, ms), seq: this.#seq++, resolve };
      this.#sleepers.push(sleeper);
      this.#sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward by `ms`, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    // Bounded: each round wakes at least one sleeper or ends; new sleepers are woken only when due.
    for (let round = 0; round < 1_000_000; round++) {
      await settle();
      const next = this.#sleepers[0];
      if (next === undefined || next.at > target) break;
      this.#sleepers.shift();
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
    }
    this.#now = target;
    await settle();
  }

  /**
   * Advances to each next wake-up until nothing sleeps or `maxMs` has passed; returns the time moved.
   * For tests that just want queued work to finish in simulated time.
   */
  async runAll(maxMs: number): Promise<number> {
    const start = this.#now;
    for (let round = 0; round < 1_000_000; round++) {
      await settle();
      const next = this.#sleepers[0];
      if (next === undefined || next.at - start > maxMs) break;
      await this.advance(next.at - this.#now);
    }
    return this.#now - start;
  }
}

/** Lets pending promise continuations (and I/O callbacks already queued) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
