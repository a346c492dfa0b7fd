/**
 * Rate limits per client id and category, as sliding windows: a request is allowed when fewer than
 * N requests were allowed in the last window length, for every window of its category. A request
 * counts from when it arrived (its head was read), as a service's edge counts it, not from when
 * this process got round to its handler after parsing its body and checking its token: under load
 * that delay varies by more than a client's margin, and a client would be refused for the
 * simulator's own slowness. Refused
 * requests are not counted, so a client that keeps itself within the same sliding windows is never
 * refused. One timestamp log per (client, category) holds at most the largest limit of the
 * category (7000 or 100,000 entries), which bounds memory and answers every window by binary search.
 */
export type RateCategory = 'order' | 'data' | 'quote' | 'nonTrading';

export interface RateWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly label: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The spec's Limits table; "not shown" windows are simply absent. */
export const RATE_LIMITS: Readonly<Record<RateCategory, readonly RateWindow[]>> = {
  order: [
    { limit: 10, windowMs: SECOND, label: 'second' },
    { limit: 250, windowMs: MINUTE, label: 'minute' },
    { limit: 1000, windowMs: HOUR, label: 'hour' },
    { limit: 7000, windowMs: DAY, label: 'day' },
  ],
  data: [
    { limit: 5, windowMs: SECOND, label: 'second' },
    { limit: 100_000, windowMs: DAY, label: 'day' },
  ],
  quote: [{ limit: 1, windowMs: SECOND, label: 'second' }],
  nonTrading: [{ limit: 20, windowMs: SECOND, label: 'second' }],
};

/** One identical option-chain request per 3 s (beyond-the-spec.md). */
export const OPTION_CHAIN_REPEAT_MS = 3 * SECOND;

const ORDER_PATHS = [
  '/v2/orders',
  '/v2/super/orders',
  '/v2/forever/orders',
  '/v2/alerts/orders',
  '/v2/alerts/multi/orders',
  '/v2/globalstocks/orders',
];
const DATA_PATHS = new Set([
  '/v2/charts/historical',
  '/v2/charts/intraday',
  '/v2/charts/rollingoption',
  '/v2/optionchain',
  '/v2/optionchain/expirylist',
]);

/** Category of a route, from its method and its registered URL pattern (e.g. `/v2/orders/:orderId`). */
export function categoryOf(method: string, routeUrl: string): RateCategory {
  if (DATA_PATHS.has(routeUrl)) return 'data';
  if (routeUrl.startsWith('/v2/marketfeed/')) return 'quote';
  if (method !== 'GET' && ORDER_PATHS.some((p) => routeUrl === p || routeUrl.startsWith(`${p}/`)))
    return 'order';
  return 'nonTrading';
}

/** A sorted ring of allowed-request timestamps. */
class SlidingLog {
  private readonly times: Float64Array;
  private start = 0;
  private size = 0;
  constructor(capacity: number) {
    this.times = new Float64Array(capacity);
  }
  private at(i: number): number {
    return this.times[(this.start + i) % this.times.length]!;
  }
  /** Entries strictly after `since` (binary search; the log is in time order). */
  countAfter(since: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) > since) hi = mid;
      else lo = mid + 1;
    }
    return this.size - lo;
  }
  /** Time of the k-th most recent entry (k = 1 is the newest). */
  recent(k: number): number {
    return this.at(this.size - k);
  }
  dropUpTo(until: number): void {
    while (this.size > 0 && this.at(0) <= until) {
      this.start = (this.start + 1) % this.times.length;
      this.size -= 1;
    }
  }
  /** Adds `t` in time order: requests reach their handlers in a different order than they arrived. */
  insert(t: number): void {
    const cap = this.times.length;
    if (this.size === cap) {
      this.start = (this.start + 1) % cap;
      this.size -= 1;
    }
    let i = this.size;
    // Bounded by the log's size; a request overtaken by later ones moves back a few places.
    while (i > 0 && this.at(i - 1) > t) {
      this.times[(this.start + i) % cap] = this.at(i - 1);
      i -= 1;
    }
    this.times[(this.start + i) % cap] = t;
    this.size += 1;
  }
}

export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly window: RateWindow; readonly retryAfterMs: number };

/** Bounded number of distinct clients tracked; the least recently seen is dropped beyond it. */
const MAX_CLIENTS = 10_000;

export class RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private readonly chainSeen = new Map<string, number>();
  constructor(private readonly now: () => number) {}

  /**
   * Counts the request that arrived at `t` (default now) if every window of the category has room.
   * Exact for requests judged in arrival order; one judged after a later arrival also counts that
   * later one in its window (strict by at most the few requests in flight together).
   */
  take(clientId: string, category: RateCategory, t: number = this.now()): RateDecision {
    const windows = RATE_LIMITS[category];
    const key = `${category}|${clientId}`;
    let log = this.logs.get(key);
    if (!log) {
      if (this.logs.size >= MAX_CLIENTS) {
        const oldest = this.logs.keys().next();
        if (!oldest.done) this.logs.delete(oldest.value);
      }
      log = new SlidingLog(Math.max(...windows.map((w) => w.limit)));
    } else {
      this.logs.delete(key);
    }
    this.logs.set(key, log);
    log.dropUpTo(t - Math.max(...windows.map((w) => w.windowMs)));
    for (const w of windows) {
      if (log.countAfter(t - w.windowMs) >= w.limit) {
        // The request fits once the limit-th most recent request leaves the window.
        const retryAfterMs = Math.max(1, log.recent(w.limit) + w.windowMs - t);
        return { allowed: false, window: w, retryAfterMs };
      }
    }
    log.insert(t);
    return { allowed: true };
  }

  /** The option chain's extra rule: the same request again within 3 s is refused. */
  takeOptionChain(clientId: string, requestKey: string): RateDecision {
    const t = this.now();
    const key = `${clientId}|${requestKey}`;
    const last = this.chainSeen.get(key);
    if (last !== undefined && t - last < OPTION_CHAIN_REPEAT_MS) {
      return {
        allowed: false,
        window: { limit: 1, windowMs: OPTION_CHAIN_REPEAT_MS, label: '3 seconds for the same option chain' },
        retryAfterMs: last + OPTION_CHAIN_REPEAT_MS - t,
      };
    }
    if (this.chainSeen.size >= MAX_CLIENTS) {
      for (const [k, v] of this.chainSeen) if (t - v >= OPTION_CHAIN_REPEAT_MS) this.chainSeen.delete(k);
      if (this.chainSeen.size >= MAX_CLIENTS) this.chainSeen.clear();
    }
    this.chainSeen.set(key, t);
    return { allowed: true };
  }
}
