/**
 * The loader as a long-running service: it runs the plan once at start (catching up on whatever
 * earlier runs left), then after each trading day's close of the segments it loads (schedule.ts),
 * each time loading only what is new: the checkpoints say what earlier runs stored, and with the
 * calendar a closed day is final, so its windows are recorded 'done' and never asked for again.
 *
 *   idle --(due)--> running --(run ends)--> idle (next run computed) ... --(stop)--> stopped
 *
 * A run that spent the day's budget goes on when the budget allows (its resumeAt) if that is before
 * the next close; a failed run is tried again after RETRY_FAILED_MS (or at the next close, if
 * sooner). One HistoryLoader per run (a loader runs once), sharing one registry and its metrics.
 */
import { sleep } from '@feedpipe/retry';
import { Registry } from 'prom-client';
import { checkLoaderDeps, createHistoryLoader, type HistoryLoaderDeps, type RunResult } from './loader.js';
import { createLoaderMetrics, type LoaderMetrics } from './metrics.js';
import { type HistoryLoaderOptions, resolveOptions } from './options.js';
import { idleStatus, type LoaderStatus } from './run-state.js';
import { loadedSegments, nextRunAt } from './schedule.js';
import type { TradingCalendar } from './trading-calendar.js';

/** After a failed run, try again this much later (unless the next close comes first). */
export const RETRY_FAILED_MS = 10 * 60_000;
/** The waiting loop looks at the clock at least this often, so a clock that jumps is noticed. */
const MAX_WAIT_MS = 60_000;

export interface ScheduledLoaderOptions {
  /** What each run loads (the universe, the plan, the bounds of one run). */
  loader: HistoryLoaderOptions;
  calendar: TradingCalendar;
  /** How long after the last close a run starts. Default 15 minutes. */
  delayMs?: number;
}

export interface ScheduledLoaderDeps extends Omit<HistoryLoaderDeps, 'calendar'> {
  /** The schedule's clock (epoch ms), also each run's planning clock. Default Date.now. */
  now?: () => number;
}

export type ScheduleState = 'idle' | 'running' | 'stopped';

/** A run's status plus the schedule's: what the status page and /healthz show. */
export interface ScheduledStatus extends LoaderStatus {
  schedule: ScheduleState;
  /** Epoch ms of the next run; undefined while one runs. */
  nextRunAt: number | undefined;
  /** How the last finished run ended, and when (epoch ms of the schedule's clock). */
  lastRun: { state: string; finishedAt: number; units: number; rows: number } | undefined;
  calendar: string;
}

export class ScheduledLoader {
  readonly registry: Registry;
  readonly metrics: LoaderMetrics;
  readonly #o: ScheduledLoaderOptions;
  readonly #deps: ScheduledLoaderDeps;
  readonly #now: () => number;
  readonly #segments: string[];
  readonly #delayMs: number;
  readonly #stop = new AbortController();
  #state: ScheduleState = 'idle';
  #nextRunAt: number | undefined;
  #current: ReturnType<typeof createHistoryLoader> | undefined;
  #lastStatus: LoaderStatus | undefined;
  #lastRun: ScheduledStatus['lastRun'];
  #loop: Promise<void> | undefined;

  constructor(options: ScheduledLoaderOptions, deps: ScheduledLoaderDeps) {
    // Validated once here (a bad universe or plan fails at start, not at the first close).
    const resolved = resolveOptions(options.loader);
    checkLoaderDeps(deps);
    this.#o = options;
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#segments = loadedSegments(resolved.universe);
    this.#delayMs = options.delayMs ?? 15 * 60_000;
    this.registry = deps.registry ?? new Registry();
    this.metrics = deps.metrics ?? createLoaderMetrics(this.registry);
    // The first run is due at once: it catches up on what earlier runs (or none) left.
    this.#nextRunAt = this.#now();
  }

  get nextRunAt(): number | undefined {
    return this.#nextRunAt;
  }

  /** Runs whatever is due now (the first call always runs); returns the run's result, or undefined. */
  async tick(): Promise<RunResult | undefined> {
    if (this.#state !== 'idle' || this.#nextRunAt === undefined || this.#now() < this.#nextRunAt)
      return undefined;
    this.#state = 'running';
    this.#nextRunAt = undefined;
    this.metrics.nextRun.set(0);
    let result: RunResult | undefined;
    try {
      const loader = createHistoryLoader(this.#o.loader, {
        ...this.#deps,
        registry: this.registry,
        metrics: this.metrics,
        now: this.#now,
        calendar: this.#o.calendar,
      });
      this.#current = loader;
      result = await loader.run();
      this.#lastStatus = loader.status();
      this.metrics.scheduledRuns.inc({ state: result.state });
      this.#lastRun = {
        state: result.state,
        finishedAt: this.#now(),
        units: result.unitsFinished,
        rows: result.rowsWritten,
      };
    } finally {
      this.#current = undefined;
      if (this.#state === 'running') this.#state = 'idle';
      this.#schedule(result);
    }
    return result;
  }

  /** Runs on schedule until `stop()`: the CLI's `--schedule`. */
  start(): Promise<void> {
    this.#loop ??= this.#run();
    return this.#loop;
  }

  /** Stops the running load (it flushes what it has) and the schedule. */
  async stop(): Promise<void> {
    this.#stop.abort();
    const running = this.#current;
    this.#state = 'stopped';
    await running?.stop();
    await this.#loop?.catch(() => undefined);
    this.metrics.nextRun.set(0);
  }

  status(): ScheduledStatus {
    const run = this.#current?.status() ?? this.#lastStatus ?? idleStatus('');
    return {
      ...run,
      schedule: this.#state,
      nextRunAt: this.#nextRunAt,
      lastRun: this.#lastRun,
      calendar: this.#o.calendar.source,
    };
  }

  async #run(): Promise<void> {
    // Bounded by stop(): every pass either runs or sleeps up to a minute.
    while (!this.#stop.signal.aborted) {
      await this.tick();
      if (this.#stop.signal.aborted) break;
      const wait = Math.min(MAX_WAIT_MS, Math.max(0, (this.#nextRunAt ?? this.#now()) - this.#now()));
      await sleep(wait, this.#stop.signal).catch(() => undefined);
    }
  }

  #schedule(result: RunResult | undefined): void {
    if (this.#state === 'stopped') return;
    const now = this.#now();
    let next = nextRunAt(this.#o.calendar, this.#segments, now, this.#delayMs);
    if (result?.state === 'budget_exhausted' && result.resumeAt !== undefined)
      next = Math.min(next, Math.max(now, result.resumeAt));
    if (result === undefined || result.state === 'failed') next = Math.min(next, now + RETRY_FAILED_MS);
    this.#nextRunAt = next;
    this.metrics.nextRun.set(next / 1000);
    this.#deps.log?.('scheduled', {
      nextRunAt: new Date(next).toISOString(),
      ...(result === undefined ? {} : { lastState: result.state }),
    });
  }
}
