/**
 * A rate limit per client address, asked before a presented key is looked at, so what an address
 * can make the service do with keys it does not hold is bounded before any work is spent on them.
 * Two token buckets per address:
 * - requests: every request that needs a key (generous: a host of notebooks shares one address);
 * - failures: every presented key that was refused (malformed, unknown, revoked, wrong secret). An
 *   address whose failures are spent is refused outright, whatever it presents, until they refill:
 *   a flood of guessed keys turns into 429s after `failureBurst` tries.
 *
 * The map is bounded (`maxAddresses`): when full, addresses whose buckets are both full again are
 * dropped (they lose nothing), and if it is still full, new addresses share one overflow entry, so
 * a flood from many addresses throttles itself instead of growing memory or resetting the limits.
 * The sweep runs at most once a second: a sweep per new address would make that flood quadratic.
 */
import type { RateDecision } from './rate-limiter.js';

export interface AddressGateOptions {
  /** Sustained requests per second per address. */
  perSecond: number;
  /** Requests allowed at once per address. */
  burst: number;
  /** Refused keys per second per address, sustained. */
  failuresPerSecond: number;
  /** Refused keys allowed in a row before the address is refused. */
  failureBurst: number;
  /** Addresses tracked at once. Default 10,000. */
  maxAddresses?: number;
  now?: () => number;
}

interface Entry {
  requests: number;
  failures: number;
  at: number;
}

/** Where addresses go while the map is full of active ones. */
const OVERFLOW = '(overflow)';
const SWEEP_EVERY_MS = 1_000;

export class AddressGate {
  readonly #options: Required<AddressGateOptions>;
  readonly #entries = new Map<string, Entry>();
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: AddressGateOptions) {
    this.#options = { maxAddresses: 10_000, now: Date.now, ...options };
  }

  /** Addresses tracked now (bounded by `maxAddresses` + the overflow entry). */
  get size(): number {
    return this.#entries.size;
  }

  /** Takes one request of `address`; refused when its requests or its failures are spent. */
  admit(address: string): RateDecision {
    const entry = this.#entry(address);
    const o = this.#options;
    if (entry.failures < 1) {
      return { allowed: false, retryAfterSec: retryAfter(entry.failures, o.failuresPerSecond), remaining: 0 };
    }
    if (entry.requests < 1) {
      return { allowed: false, retryAfterSec: retryAfter(entry.requests, o.perSecond), remaining: 0 };
    }
    entry.requests -= 1;
    return { allowed: true, retryAfterSec: 0, remaining: Math.floor(entry.requests) };
  }

  /** Counts a refused key of `address` (after admit() let the request in). */
  failed(address: string): void {
    const entry = this.#entry(address);
    entry.failures = Math.max(0, entry.failures - 1);
  }

  #entry(address: string): Entry {
    const now = this.#options.now();
    let entry = this.#entries.get(address);
    if (!entry) {
      if (this.#entries.size >= this.#options.maxAddresses && now - this.#sweptAt >= SWEEP_EVERY_MS) {
        this.#sweptAt = now;
        this.#evictFull(now);
      }
      const key = this.#entries.size >= this.#options.maxAddresses ? OVERFLOW : address;
      entry = this.#entries.get(key);
      if (!entry) {
        entry = { requests: this.#options.burst, failures: this.#options.failureBurst, at: now };
        this.#entries.set(key, entry);
      }
    }
    this.#refill(entry, now);
    return entry;
  }

  #refill(entry: Entry, now: number): void {
    const seconds = Math.max(0, now - entry.at) / 1000;
    const o = this.#options;
    entry.requests = Math.min(o.burst, entry.requests + seconds * o.perSecond);
    entry.failures = Math.min(o.failureBurst, entry.failures + seconds * o.failuresPerSecond);
    entry.at = now;
  }

  #evictFull(now: number): void {
    for (const [address, entry] of this.#entries) {
      this.#refill(entry, now);
      if (entry.requests >= this.#options.burst && entry.failures >= this.#options.failureBurst) {
        this.#entries.delete(address);
      }
    }
  }
}

function retryAfter(tokens: number, perSecond: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perSecond));
}
