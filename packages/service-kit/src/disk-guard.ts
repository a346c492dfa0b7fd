/**
 * The disk guard of a process that writes to the store: it reads the store's free space on an
 * interval and says "pause" below a threshold (bytes and/or percent), "resume" once space is back
 * above it with a margin. Writers ask `paused` (or wait in `whenWritable`) instead of letting the
 * engine fail on a full disk, which ClickHouse does in ways that cost more than a pause: broken
 * parts, a failed merge retried forever, a server that stops answering.
 *
 *   writable --(free < threshold)--> paused --(free >= threshold + margin)--> writable
 *
 * The margin (RESUME_MARGIN of the threshold) keeps the guard from flapping while merges and
 * inserts move the free space around the threshold. A probe that fails keeps the last state (an
 * unreachable server is the sink's insert retries' business, not a reason to pause or resume) and
 * is counted.
 */
import { ServiceKitError } from './errors.js';

/** What a probe reports (packages/store's DiskSpace has this shape). */
export interface DiskReading {
  freeBytes: number;
  totalBytes: number;
  where: string;
}

/** A gauge as prom-client's: taken structurally, so the caller names its metrics. */
export interface GaugeLike {
  set(value: number): void;
}

export interface DiskGuardOptions {
  probe: () => Promise<DiskReading>;
  /** Pause below this many free bytes. 0: no byte threshold. */
  minFreeBytes: number;
  /** Pause below this percentage of the disk free (0-99). 0: no percent threshold. */
  minFreePercent: number;
  /** Time between checks (ms). */
  intervalMs: number;
  /** Free bytes, and 1 while paused / 0 while writable. */
  gauges?: { freeBytes?: GaugeLike; freeRatio?: GaugeLike; paused?: GaugeLike };
  /** Told of every pause and resume (the process logs them). */
  onChange?: (paused: boolean, reading: DiskReading) => void;
  log?: (message: string) => void;
}

/** Resume only once free space is this fraction above the threshold that paused. */
export const RESUME_MARGIN = 0.1;

export class DiskGuard {
  readonly #o: DiskGuardOptions;
  #paused = false;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #last: DiskReading | undefined;
  #probeErrors = 0;
  readonly #waiters = new Set<() => void>();

  constructor(options: DiskGuardOptions) {
    validate(options);
    this.#o = options;
    options.gauges?.paused?.set(0);
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** The last reading, undefined before the first. */
  get last(): DiskReading | undefined {
    return this.#last;
  }

  get probeErrors(): number {
    return this.#probeErrors;
  }

  /** Checks once now (so a process starting on a full disk starts paused), then every interval. */
  async start(): Promise<void> {
    await this.check();
    this.#timer ??= setInterval(() => void this.check(), this.#o.intervalMs);
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    // Whoever waits for space is let go: it checks why it woke (stopping) itself.
    this.#wakeAll();
  }

  /** One check; concurrent calls share it. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  /**
   * Resolves at once while writable, else when space returns, `stop()` is called or `signal`
   * aborts: the caller looks at `paused` again after it resolves.
   */
  whenWritable(signal?: AbortSignal): Promise<void> {
    if (!this.#paused || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  async #check(): Promise<void> {
    let reading: DiskReading;
    try {
      reading = await this.#o.probe();
    } catch (error) {
      this.#probeErrors += 1;
      // Once per streak of failures, not every interval.
      if (this.#probeErrors === 1)
        this.#o.log?.(`disk guard: reading free space failed (${(error as Error).message}); state kept`);
      return;
    }
    this.#probeErrors = 0;
    this.#last = reading;
    const g = this.#o.gauges;
    g?.freeBytes?.set(reading.freeBytes);
    if (reading.totalBytes > 0) g?.freeRatio?.set(reading.freeBytes / reading.totalBytes);
    const next = this.#paused
      ? !this.#aboveThreshold(reading, 1 + RESUME_MARGIN)
      : !this.#aboveThreshold(reading, 1);
    if (next === this.#paused) return;
    this.#paused = next;
    g?.paused?.set(next ? 1 : 0);
    this.#o.log?.(
      `disk guard: ${next ? 'pausing writes' : 'resuming writes'}: ${formatBytes(reading.freeBytes)} free of ${formatBytes(reading.totalBytes)} (${reading.where}); ${this.describeThreshold()}`,
    );
    this.#o.onChange?.(next, reading);
    if (!next) this.#wakeAll();
  }

  /** Whether free space is at or above every configured threshold times `factor`. */
  #aboveThreshold(r: DiskReading, factor: number): boolean {
    const { minFreeBytes, minFreePercent } = this.#o;
    if (minFreeBytes > 0 && r.freeBytes < minFreeBytes * factor) return false;
    if (
      minFreePercent > 0 &&
      r.totalBytes > 0 &&
      (100 * r.freeBytes) / r.totalBytes < minFreePercent * factor
    )
      return false;
    return true;
  }

  describeThreshold(): string {
    const parts: string[] = [];
    if (this.#o.minFreeBytes > 0) parts.push(formatBytes(this.#o.minFreeBytes));
    if (this.#o.minFreePercent > 0) parts.push(`${this.#o.minFreePercent}%`);
    return parts.length === 0 ? 'no threshold' : `pauses below ${parts.join(' or ')} free`;
  }

  #wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

function validate(o: DiskGuardOptions): void {
  const bad = (message: string): never => {
    throw new ServiceKitError('CONFIG_INVALID', `disk guard: ${message}`);
  };
  if (typeof o.probe !== 'function') bad('probe must be a function');
  if (!Number.isSafeInteger(o.minFreeBytes) || o.minFreeBytes < 0)
    bad(`minFreeBytes must be a non-negative integer, got ${o.minFreeBytes}`);
  if (!Number.isInteger(o.minFreePercent) || o.minFreePercent < 0 || o.minFreePercent > 99)
    bad(`minFreePercent must be an integer from 0 to 99, got ${o.minFreePercent}`);
  if (!Number.isInteger(o.intervalMs) || o.intervalMs < 10)
    bad(`intervalMs must be an integer of at least 10, got ${o.intervalMs}`);
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.round(n / 1024)} KiB`;
}
