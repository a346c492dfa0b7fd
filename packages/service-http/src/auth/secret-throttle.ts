/**
 * A throttle on wrong secrets per key id and client address: after `maxFailures` wrong secrets for
 * one key id from one address within `windowMs`, that key id is refused (429) to that address for
 * `blockMs`, whatever secret comes with it, before the secret is compared. The correct secret is
 * refused too from that address while it is blocked: answering it differently would tell a guesser
 * when a guess was right, which is what the throttle exists to stop. Secrets are 256 random bits,
 * so guessing cannot succeed anyway; the throttle makes a guessing run visible and cheap to refuse.
 *
 * Why per address and not per key id alone: a key id is the public part of a key (it is in logs
 * and on the holder's screens). Blocked per id, anyone who knew one could keep that key refused to
 * its holder from wherever they were: bench:flood's share of wrong secrets for the read and trade
 * keys' ids did exactly that, and every order of the trade key's holder got 429 for the whole run.
 * Per address, the guesser's address is the one refused; its other refusals are bounded anyway by
 * the address gate (address-gate.ts), which also limits how fast a new address can start guessing.
 *
 * The map is bounded by `maxTracked` (key id and address pairs); when full, pairs that are neither
 * blocked nor inside a window are dropped, and if it is still full it is emptied (the address gate
 * still bounds each address).
 */
export interface SecretThrottleOptions {
  /** Wrong secrets for one key id from one address within `windowMs` that block it there. */
  maxFailures: number;
  windowMs: number;
  /** How long a blocked key id stays refused. */
  blockMs: number;
  /** Key id and address pairs tracked at once. Default 100,000. */
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

  /** Seconds the key id stays refused to `address`, or 0 when it is not blocked there. */
  blockedFor(keyId: string, address: string): number {
    const entry = this.#failures.get(pairOf(keyId, address));
    if (!entry) return 0;
    const left = entry.blockedUntil - this.#options.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts a wrong secret for the key id from `address`; true when that blocks it there. */
  failed(keyId: string, address: string): boolean {
    const now = this.#options.now();
    const pair = pairOf(keyId, address);
    let entry = this.#failures.get(pair);
    if (!entry || now - entry.since > this.#options.windowMs) {
      if (!entry && this.#failures.size >= this.#options.maxTracked) this.#evict(now);
      entry = { count: 0, since: now, blockedUntil: entry?.blockedUntil ?? 0 };
      this.#failures.set(pair, entry);
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
    for (const [pair, entry] of this.#failures) {
      if (entry.blockedUntil <= now && now - entry.since > this.#options.windowMs)
        this.#failures.delete(pair);
    }
    if (this.#failures.size >= this.#options.maxTracked) this.#failures.clear();
  }
}

/** A key id is 16 hex digits, so a space cannot occur in it: the pair's key is unambiguous. */
function pairOf(keyId: string, address: string): string {
  return `${keyId} ${address}`;
}
