/**
 * Per-key token buckets: `burst` requests at once, refilled at `perSecond`. The map is bounded by
 * the number of valid keys (only authenticated requests reach it), and idle full buckets are dropped.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until one request is allowed again (0 when allowed). */
  retryAfterSec: number;
  remaining: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 100_000;

export class KeyRateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(perSecond: number, burst: number, now: () => number = Date.now) {
    this.#perMs = perSecond / 1000;
    this.#burst = burst;
    this.#now = now;
  }

  take(keyId: string): RateDecision {
    const now = this.#now();
    let bucket = this.#buckets.get(keyId);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#evictFull(now);
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(keyId, bucket);
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSec: 0, remaining: Math.floor(bucket.tokens) };
    }
    return {
      allowed: false,
      retryAfterSec: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)),
      remaining: 0,
    };
  }

  #evictFull(now: number): void {
    for (const [id, b] of this.#buckets) {
      if (b.tokens + (now - b.at) * this.#perMs >= this.#burst) this.#buckets.delete(id);
    }
    if (this.#buckets.size >= MAX_BUCKETS) this.#buckets.clear();
  }
}

/**
 * Per-key count of requests in flight. A slot is taken when a request starts and given back when
 * its response is closed (so a slow reader keeps its slot: the result it holds counts). The map
 * holds only keys with requests in flight, so it is bounded by the requests the server accepts.
 */
export class KeyConcurrency {
  readonly #max: number;
  readonly #inFlight = new Map<string, number>();

  constructor(maxPerKey: number) {
    this.#max = maxPerKey;
  }

  get maxPerKey(): number {
    return this.#max;
  }

  inFlight(keyId: string): number {
    return this.#inFlight.get(keyId) ?? 0;
  }

  /** A release function (idempotent), or undefined when the key is at its limit. */
  tryAcquire(keyId: string): (() => void) | undefined {
    const n = this.#inFlight.get(keyId) ?? 0;
    if (n >= this.#max) return undefined;
    this.#inFlight.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(keyId) ?? 1) - 1;
      if (left <= 0) this.#inFlight.delete(keyId);
      else this.#inFlight.set(keyId, left);
    };
  }
}
