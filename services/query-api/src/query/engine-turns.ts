/**
 * Turns on the engine for queries whose results arrive whole (embedded chDB): as many at once as
 * the store's lane runs statements (`StoreLane.turns`), the rest waiting in arrival order.
 *
 * Why: such a query reserves its whole result limit in the result budget (result-budget.ts) before
 * it runs. Reserving while it still queues behind the lane's sessions let up to 16 queued bar
 * queries (64 MiB each) hold a 1 GiB budget that a `/v1/sql` query (512 MiB) then waited for,
 * although only two statements ran: in bench:api's mixed workload /v1/sql took 7 s on average.
 * Taking a turn first and reserving after means the reservations in the budget are those of the
 * statements running plus the finished results being sent, and every route waits in one FIFO line.
 */
import { QueryApiError } from '../errors.js';

export interface EngineTurnLimits {
  /** Queries on the engine at once. */
  slots: number;
  /** Longest wait for a turn, ms; then 503 OVERLOADED. */
  waitMs: number;
  /** Queries allowed to wait; one more is refused at once with 503 OVERLOADED. */
  maxWaiting: number;
}

interface Waiter {
  grant: (done: () => void) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class EngineTurns {
  readonly limits: Readonly<EngineTurnLimits>;
  #running = 0;
  readonly #line: Waiter[] = [];

  constructor(limits: EngineTurnLimits) {
    if (!Number.isInteger(limits.slots) || limits.slots < 1) {
      throw new RangeError(`engine turns need at least one slot, got ${limits.slots}`);
    }
    this.limits = limits;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#line.length;
  }

  /** A turn: resolves with the function that ends it (call it exactly once; later calls do nothing). */
  acquire(): Promise<() => void> {
    if (this.#running < this.limits.slots && this.#line.length === 0) {
      this.#running += 1;
      return Promise.resolve(this.#ender());
    }
    if (this.#line.length >= this.limits.maxWaiting) return Promise.reject(busy(this.limits));
    return new Promise((grant, refuse) => {
      const waiter: Waiter = {
        grant,
        timer: setTimeout(() => {
          this.#line.splice(this.#line.indexOf(waiter), 1);
          refuse(busy(this.limits));
        }, this.limits.waitMs),
      };
      this.#line.push(waiter);
    });
  }

  #ender(): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.#line.shift();
      if (next === undefined) {
        this.#running -= 1;
        return;
      }
      // The turn passes straight to the next in line: the running count stays the same.
      clearTimeout(next.timer);
      next.grant(this.#ender());
    };
  }
}

function busy(limits: EngineTurnLimits): QueryApiError {
  return new QueryApiError(
    'OVERLOADED',
    `the store is running ${limits.slots} queries with ${limits.maxWaiting} or more waiting, or a turn took over ${limits.waitMs} ms; retry shortly`,
    { retryable: true, retryAfterSec: 2 },
  );
}
