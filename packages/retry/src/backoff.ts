/**
 * Capped exponential backoff with jitter, the one retry pacing of the project (feed reconnects,
 * Kafka admin steps, the Kafka client's produce, fetch and group retries, the sink's insert
 * retries and consumer restarts).
 */
export interface BackoffOptions {
  /** First delay's ceiling. Default 250 ms. */
  initialMs?: number;
  /** Cap on any delay. Default 30 s. */
  maxMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /**
   * Share of the ceiling every delay keeps at least, 0..1. Default 0.25 (a retry is never immediate);
   * 0 is "full jitter", uniform in [0, ceiling].
   */
  floor?: number;
  /** Random source in [0, 1), injectable for tests. */
  random?: () => number;
}

/**
 * Capped exponential backoff with jitter: the ceiling is min(cap, initial * factor^n) and the delay
 * is uniform in [floor * ceiling, ceiling]. Jitter spreads the retries of many clients (or of many
 * connections of one client) instead of having them retry in lockstep; full jitter (floor 0)
 * spreads best, a floor keeps a single retrier from hammering.
 */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly floor: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 250;
    this.maxMs = options.maxMs ?? 30_000;
    this.factor = options.factor ?? 2;
    this.floor = Math.min(1, Math.max(0, options.floor ?? 0.25));
    this.random = options.random ?? Math.random;
  }

  get attempts(): number {
    return this.attempt;
  }

  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt += 1;
    return Math.round(ceiling * this.floor + this.random() * ceiling * (1 - this.floor));
  }

  reset(): void {
    this.attempt = 0;
  }
}
