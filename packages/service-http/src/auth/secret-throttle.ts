/**
 * A throttle on wrong secrets per key id: after `maxFailures` wrong secrets for one key id within
 * `windowMs`, that key id is refused (429) for `blockMs`, whatever secret comes with it, before
 * the secret is compared. The correct secret is refused too while the id is blocked: answering it
 * differently would tell a guesser when a guess was right, which is what the throttle exists to
 * stop. Secrets are 256 random bits, so guessing cannot succeed anyway; the throttle makes a
 * guessing run visible and cheap to refuse. Its cost: whoever knows a key id (it is the public
 * part of a key) can keep that key refused from wherever they are; the block is short, and the key
 * holder can be given a new key.
 *
 * Only key ids of the table are tracked (a wrong secret needs an existing id), so the map is
 * bounded by the table; `maxTracked` bounds it anyway.
 */
export interface SecretThrottleOptions {
  /** Wrong secrets for one key id within `windowMs` that block it. */
  maxFailures: number;
  windowMs: number;
  /** How long a blocked key id stays refused. */
  blockMs: number;
  /** Key ids tracked at once. Default 100,000. */
  maxTracked?: number;
  now?: () => number;
}

interface Failures {
  /** Wrong secrets since `since`. */
  count: number;
  since: number;
  /** Refused until this time (0: not blocked). */
  blockedUntil: number;
}

export class SecretThrottle {
  readonly #options: Required<SecretThrottleOptions>;
  readonly #failures = new Map<string, Failures>();

  constructor(options: SecretThrottleOptions) {
    this.#options = { maxTracked: 100_000, now: Date.now, ...options };
  }

  /** Seconds the key id stays refused, or 0 when it is not blocked. */
  blockedFor(keyId: string): number {
    const entry = this.#failures.get(keyId);
    if (!entry) return 0;
    const left = entry.blockedUntil - this.#options.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts a wrong secret for the key id; true when that blocks it. */
  failed(keyId: string): boolean {
    const now = this.#options.now();
    let entry = this.#failures.get(keyId);
    if (!entry || now - entry.since > this.#options.windowMs) {
      if (!entry && this.#failures.size >= this.#options.maxTracked) this.#evict(now);
      entry = { count: 0, since: now, blockedUntil: entry?.blockedUntil ?? 0 };
      this.#failures.set(keyId, entry);
    }
    entry.count += 1;
    if (entry.count >= this.#options.maxFailures) {
      entry.blockedUntil = now + this.#options.blockMs;
      entry.count = 0;
      entry.since = now;
      return true;
    }
    return false;
  }

  #evict(now: number): void {
    for (const [keyId, entry] of this.#failures) {
      if (entry.blockedUntil <= now && now - entry.since > this.#options.windowMs)
        this.#failures.delete(keyId);
    }
    if (this.#failures.size >= this.#options.maxTracked) this.#failures.clear();
  }
}
