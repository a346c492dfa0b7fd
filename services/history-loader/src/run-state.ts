/** Counters of one run and the derived progress figures (rate over the last 10 s, ETA). */
import type { UnitKind } from './units.js';

export type LoaderState =
  | 'idle'
  | 'planning'
  | 'running'
  | 'stopping'
  | 'done'
  | 'bounded'
  | 'budget_exhausted'
  | 'stopped'
  | 'failed';

/** What a status page shows; a plain object, safe to JSON.stringify. */
export interface LoaderStatus {
  state: LoaderState;
  runId: string;
  startedAt: number | undefined;
  /** Units of this run: planned in total (chains added as expiry lists arrive), finished, by outcome. */
  unitsTotal: number;
  unitsFinished: number;
  unitsDone: number;
  unitsPartial: number;
  unitsFailed: number;
  unitsRetry: number;
  /** Units earlier runs already loaded (or recorded as failed), left out of this run. */
  unitsSkipped: number;
  inFlight: number;
  /** HTTP requests answered this run (client retries included) and how many were 429. */
  requests: number;
  throttled: number;
  rowsWritten: number;
  /** Requests per second over the last 10 seconds. */
  rate: number;
  /** Data API requests left in the rolling day. */
  budgetLeft: number;
  /** Seconds to finish the planned units at the current rate; undefined before a rate is known. */
  etaSeconds: number | undefined;
  /** When a spent budget lets the run go on (epoch ms). */
  resumeAt: number | undefined;
  error: string | undefined;
  byKind: Record<UnitKind, { total: number; finished: number }>;
}

const WINDOW_S = 10;

export class RateMeter {
  readonly #buckets = new Float64Array(WINDOW_S + 1);
  readonly #seconds = new Float64Array(WINDOW_S + 1);
  readonly #started: number;

  constructor(nowMs: number) {
    this.#started = nowMs;
  }

  mark(nowMs: number): void {
    const s = Math.floor(nowMs / 1000);
    const i = s % this.#buckets.length;
    if (this.#seconds[i] !== s) {
      this.#seconds[i] = s;
      this.#buckets[i] = 0;
    }
    this.#buckets[i] = (this.#buckets[i] ?? 0) + 1;
  }

  /** Requests per second over the last complete seconds (up to 10). */
  rate(nowMs: number): number {
    const s = Math.floor(nowMs / 1000);
    let count = 0;
    for (let i = 0; i < this.#buckets.length; i++) {
      const at = this.#seconds[i] ?? 0;
      if (at < s && at >= s - WINDOW_S) count += this.#buckets[i] ?? 0;
    }
    const span = Math.min(WINDOW_S, Math.max(1, Math.floor((nowMs - this.#started) / 1000)));
    return count / span;
  }
}

export function emptyByKind(): Record<UnitKind, { total: number; finished: number }> {
  return {
    expiry_list: { total: 0, finished: 0 },
    option_chain: { total: 0, finished: 0 },
    daily: { total: 0, finished: 0 },
    intraday: { total: 0, finished: 0 },
    expired_options: { total: 0, finished: 0 },
  };
}

/** The status of a run that has not started. */
export function idleStatus(runId: string): LoaderStatus {
  return {
    state: 'idle',
    runId,
    startedAt: undefined,
    unitsTotal: 0,
    unitsFinished: 0,
    unitsDone: 0,
    unitsPartial: 0,
    unitsFailed: 0,
    unitsRetry: 0,
    unitsSkipped: 0,
    inFlight: 0,
    requests: 0,
    throttled: 0,
    rowsWritten: 0,
    rate: 0,
    budgetLeft: 0,
    etaSeconds: undefined,
    resumeAt: undefined,
    error: undefined,
    byKind: emptyByKind(),
  };
}
