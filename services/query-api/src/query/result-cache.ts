/**
 * A bounded LRU of finished responses plus single-flight: concurrent identical requests share one
 * ClickHouse query, and a repeat within the TTL costs no query. Embedded chDB runs one query at a
 * time per process (~10 ms for a day of bars), so without this 50 notebooks asking for the same
 * bars would queue behind each other. TTLs are chosen per response by the caller: short while the
 * range can still receive ticks, long once it is final.
 */
export interface CachedResponse {
  body: Buffer;
  contentType: string;
}

interface Entry extends CachedResponse {
  expires: number;
}

export type CacheResult = 'hit' | 'miss' | 'shared';

export class ResultCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<CachedResponse>>();
  #bytes = 0;

  constructor(maxEntries: number, maxBytes: number, now: () => number = Date.now) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  async get(
    key: string,
    ttlMs: number,
    produce: () => Promise<CachedResponse>,
  ): Promise<{ response: CachedResponse; result: CacheResult }> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && hit.expires > now) {
      // Re-insert to mark it most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return { response: hit, result: 'hit' };
    }
    if (hit) this.#remove(key, hit);
    const pending = this.#inflight.get(key);
    if (pending) return { response: await pending, result: 'shared' };
    const promise = produce();
    this.#inflight.set(key, promise);
    try {
      const response = await promise;
      if (ttlMs > 0 && this.#maxEntries > 0) this.#store(key, response, this.#now() + ttlMs);
      return { response, result: 'miss' };
    } finally {
      this.#inflight.delete(key);
    }
  }

  #store(key: string, response: CachedResponse, expires: number): void {
    const size = response.body.length;
    if (size > this.#maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    this.#entries.set(key, { ...response, expires });
    this.#bytes += size;
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#remove(k, e);
    }
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.body.length;
  }
}
