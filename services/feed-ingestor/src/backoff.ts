export interface BackoffOptions {
  /** First delay. Default 250 ms. */
  initialMs?: number;
  /** Cap on any delay. Default 30 s. */
  maxMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Random source in [0, 1), injectable for tests. */
  random?: () => number;
}

/**
 * Capped exponential backoff with "full jitter": the delay is uniform in [0, min(cap, base * f^n)],
 * which spreads reconnect storms of many clients better than a fixed or equal-jitter delay.
 */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 250;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.random = options.random ?? Math.random;
  }

  get attempts(): number {
    return this.attempt;
  }

  /** The next delay; never below a quarter of the base so a retry is never immediate. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt += 1;
    return Math.round(base / 4 + (this.random() * (base * 3)) / 4);
  }

  reset(): void {
    this.attempt = 0;
  }
}
