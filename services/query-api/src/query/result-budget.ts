/**
 * The memory budget of results in flight: bytes of query results this process holds for
 * responses, across all requests. A query reserves before it runs and gives the bytes back when
 * its response is closed (sent, failed or cut); when the budget cannot cover a reservation, the
 * reservation waits in line for up to `waitMs` for results to be sent and their bytes given back,
 * then is refused with 503 OVERLOADED and Retry-After, rather than letting the process grow. The
 * line is served first fit in arrival order: a waiter that fits goes on even when an earlier, larger
 * one (a /v1/sql query reserves its 512 MiB result limit) does not fit yet, since strictly in order
 * that one would hold every small query behind it (bench:api's mixed workload: p99 7.6 s). Until,
 * that is, the oldest waiter has waited half of `waitMs`: from then on nobody passes it, so the
 * bytes given back add up for it instead of being taken by newcomers (first fit alone starved
 * /v1/sql under that load until its wait ran out: 9.3 s on average). Waiting holds no memory.
 * Where results arrive whole, the query runner takes a turn on the engine before it reserves
 * (QueryRunnerOptions.turns), so what is reserved here is the statements running plus finished results
 * being sent, not queries still queued for the engine; the line here then rarely forms at all.
 *
 * What a query reserves: where results arrive whole (embedded chDB materialises a result before
 * the first byte), its result limit (`max_result_bytes` of its settings, else `reserveBytes`)
 * before it runs, then exactly the size of the finished result; where results stream (a server),
 * `streamBytes` for the chunks in transit, since backpressure bounds them.
 */
import { QueryApiError } from '../errors.js';

/** Reservations that may wait at once unless the limits say otherwise. */
export const DEFAULT_MAX_WAITING = 1_000;

export interface ResultBudgetLimits {
  /** Total bytes of results in flight. */
  totalBytes: number;
  /** Reserved before a materialised query runs when its settings name no max_result_bytes. */
  reserveBytes: number;
  /** Reserved by a streamed result. */
  streamBytes: number;
  /** How long a reservation may wait for room, ms. Default 0: refused at once. */
  waitMs?: number;
  /** Reservations that may wait at once; one more is refused at once. Default 1,000. */
  maxWaiting?: number;
}

interface Waiter {
  bytes: number;
  since: number;
  grant: (lease: ResultLease) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ResultLease {
  readonly #budget: ResultBudget;
  #bytes: number;
  #released = false;

  constructor(budget: ResultBudget, bytes: number) {
    this.#budget = budget;
    this.#bytes = bytes;
  }

  get bytes(): number {
    return this.#released ? 0 : this.#bytes;
  }

  /** Moves the reservation to `bytes`; false (and nothing changed) when the budget cannot cover it. */
  resize(bytes: number): boolean {
    if (this.#released) return false;
    if (!this.#budget.adjust(bytes - this.#bytes)) return false;
    this.#bytes = bytes;
    return true;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.adjust(-this.#bytes);
  }
}

export class ResultBudget {
  readonly limits: Readonly<ResultBudgetLimits>;
  #used = 0;
  readonly #waiters: Waiter[] = [];
  readonly #now: () => number;

  constructor(limits: ResultBudgetLimits, now: () => number = Date.now) {
    this.limits = limits;
    this.#now = now;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** Reservations waiting for room. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * A lease of `bytes`: at once when the budget covers it (whoever waits does not fit: see
   * #grantWaiters), else after a wait of at most `waitMs`; OVERLOADED (503, Retry-After) when
   * that passes or the line is full.
   */
  acquire(bytes: number): Promise<ResultLease> {
    const wanted = Math.min(Math.max(0, Math.ceil(bytes)), this.limits.totalBytes);
    if (!this.#oldestDue() && this.adjust(wanted)) return Promise.resolve(new ResultLease(this, wanted));
    const waitMs = this.limits.waitMs ?? 0;
    if (waitMs <= 0 || this.#waiters.length >= (this.limits.maxWaiting ?? DEFAULT_MAX_WAITING)) {
      return Promise.reject(overBudget(this.#used, this.limits.totalBytes));
    }
    return new Promise((grant, refuse) => {
      const waiter: Waiter = {
        bytes: wanted,
        since: this.#now(),
        grant,
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          refuse(overBudget(this.#used, this.limits.totalBytes));
          // The head may have been the one blocking those behind it.
          this.#grantWaiters();
        }, waitMs),
      };
      this.#waiters.push(waiter);
    });
  }

  /** @internal Moves the used bytes by `delta`; refuses growth beyond the total. */
  adjust(delta: number): boolean {
    if (delta > 0 && this.#used + delta > this.limits.totalBytes) return false;
    this.#used = Math.max(0, this.#used + delta);
    if (delta < 0) this.#grantWaiters();
    return true;
  }

  /** Whether the oldest waiter has waited long enough that nobody may pass it any more. */
  #oldestDue(): boolean {
    const oldest = this.#waiters[0];
    return oldest !== undefined && this.#now() - oldest.since >= (this.limits.waitMs ?? 0) / 2;
  }

  /** Leases for waiters, in arrival order, each that the budget now covers (first fit; see above). */
  #grantWaiters(): void {
    for (let i = 0; i < this.#waiters.length; ) {
      const waiter = this.#waiters[i] as Waiter;
      if (this.#used + waiter.bytes > this.limits.totalBytes) {
        if (i === 0 && this.#oldestDue()) return;
        i += 1;
        continue;
      }
      this.#waiters.splice(i, 1);
      clearTimeout(waiter.timer);
      this.#used += waiter.bytes;
      waiter.grant(new ResultLease(this, waiter.bytes));
    }
  }
}

export function overBudget(used: number, total: number): QueryApiError {
  return new QueryApiError(
    'OVERLOADED',
    `results in flight use ${used} of the ${total} bytes this API may hold; retry shortly`,
    { retryable: true, retryAfterSec: 2 },
  );
}
