/**
 * The memory budget of results in flight: bytes of query results this process holds for
 * responses, across all requests. A query reserves before it runs and gives the bytes back when
 * its response is closed (sent, failed or cut); when the budget cannot cover a reservation the
 * request is refused with 503 OVERLOADED and Retry-After, rather than letting the process grow.
 *
 * What a query reserves: where results arrive whole (embedded chDB materialises a result before
 * the first byte), its result limit (`max_result_bytes` of its settings, else `reserveBytes`)
 * before it runs, then exactly the size of the finished result; where results stream (a server),
 * `streamBytes` for the chunks in transit, since backpressure bounds them.
 */
import { QueryApiError } from '../errors.js';

export interface ResultBudgetLimits {
  /** Total bytes of results in flight. */
  totalBytes: number;
  /** Reserved before a materialised query runs when its settings name no max_result_bytes. */
  reserveBytes: number;
  /** Reserved by a streamed result. */
  streamBytes: number;
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

  constructor(limits: ResultBudgetLimits) {
    this.limits = limits;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** A lease of `bytes`, or OVERLOADED (503, Retry-After) when the budget cannot cover it. */
  acquire(bytes: number): ResultLease {
    const wanted = Math.min(Math.max(0, Math.ceil(bytes)), this.limits.totalBytes);
    if (!this.adjust(wanted)) throw overBudget(this.#used, this.limits.totalBytes);
    return new ResultLease(this, wanted);
  }

  /** @internal Moves the used bytes by `delta`; refuses growth beyond the total. */
  adjust(delta: number): boolean {
    if (delta > 0 && this.#used + delta > this.limits.totalBytes) return false;
    this.#used = Math.max(0, this.#used + delta);
    return true;
  }
}

export function overBudget(used: number, total: number): QueryApiError {
  return new QueryApiError(
    'OVERLOADED',
    `results in flight use ${used} of the ${total} bytes this API may hold; retry shortly`,
    { retryable: true, retryAfterSec: 2 },
  );
}
