/**
 * The one retry loop of the pipeline, built on `Backoff`: a bounded number of attempts, capped
 * jittered waits between them, a say in which errors are worth another try, and an abort signal
 * that ends the wait at once. Loops that need more than this (the history loader's per-unit
 * verdicts, the postback pipeline's batch splitting) take a `Backoff` directly for their pacing.
 */
import { Backoff, type BackoffOptions } from './backoff.js';

export interface RetryOptions extends BackoffOptions {
  /**
   * Attempts in all, the first included. `Infinity` is allowed only where something else bounds
   * the work (the ingestor's decode worker retries a send while its chunk is held, and the main
   * thread's bounded buffer pushes back on the socket meanwhile).
   */
  attempts: number;
  /** Whether trying again can help; the error is thrown at once when not. Default: always. */
  retryable?: (error: unknown, attempt: number) => boolean;
  /** Called before each wait with the failed attempt (1-based) and the wait; may do clean-up. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void | Promise<void>;
  /** Ends the wait and the loop: the last error is thrown. */
  signal?: AbortSignal;
  /** An existing pacing (e.g. one shared across calls); else one from the options above. */
  backoff?: Backoff;
}

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs `attempt` until it resolves, the attempts are spent, or an error is not retryable. */
export async function retry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  if (!(options.attempts >= 1)) throw new RangeError(`retry: attempts must be >= 1, got ${options.attempts}`);
  const backoff = options.backoff ?? new Backoff(options);
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const last = n >= options.attempts || options.signal?.aborted === true;
      if (last || !(options.retryable?.(error, n) ?? true)) throw error;
      const delay = backoff.next();
      await options.onRetry?.(error, n, delay);
      await sleep(delay, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
