/**
 * The one switch every producing part of the ingestor consults before it sends anything to Kafka:
 * the moment the leader's lease ends, on the process-wide monotonic clock, in memory shared with
 * the decode workers (which send from their own threads, `pipeline/chunk-sender.ts`).
 *
 * The main thread writes the end whenever leadership renews it; a producer compares it with the
 * clock right before each send. A process frozen past its lease wakes with the old end in place, so
 * every thread sees it closed before any of them acts, whichever thread runs first. Without
 * leadership configured the fence is never created and sending is not gated.
 */

/** Nanoseconds of the monotonic clock every thread of the process shares. */
export function monotonicNanos(): bigint {
  return process.hrtime.bigint();
}

export class LeaseFence {
  readonly #end: BigInt64Array;

  /** A new fence (closed), or one shared by another thread (`fence.buffer`). */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.#end = new BigInt64Array(buffer);
  }

  /** What to pass to another thread. */
  get buffer(): SharedArrayBuffer {
    return this.#end.buffer as SharedArrayBuffer;
  }

  /** Sending is allowed for `remainingMs` more (0 closes it now). */
  extend(remainingMs: number): void {
    const end = remainingMs > 0 ? monotonicNanos() + BigInt(Math.floor(remainingMs * 1e6)) : 0n;
    Atomics.store(this.#end, 0, end);
  }

  close(): void {
    Atomics.store(this.#end, 0, 0n);
  }

  open(): boolean {
    return monotonicNanos() < Atomics.load(this.#end, 0);
  }

  /** Resolves once the fence is open; polls, as a closed fence only opens when leadership returns. */
  async whenOpen(pollMs = 50): Promise<void> {
    while (!this.open()) await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
