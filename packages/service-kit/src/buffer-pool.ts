/**
 * Reusable large Buffers. Megabytes of fresh Buffers per batch are external memory to V8, and their
 * churn alone triggered full garbage collections several times a second in a busy worker or sink.
 * Bounded in buffers and bytes; a buffer over the bound is left to the collector.
 */
export class BufferPool {
  readonly #free: Buffer[] = [];
  readonly #maxBuffers: number;
  readonly #maxBytes: number;
  #pooledBytes = 0;

  constructor(maxBuffers: number, maxBytes: number) {
    this.#maxBuffers = maxBuffers;
    this.#maxBytes = maxBytes;
  }

  /** A buffer of at least `minBytes` (contents undefined): a pooled one if any is large enough. */
  acquire(minBytes: number): Buffer {
    const free = this.#free;
    for (let i = free.length - 1; i >= 0; i--) {
      const candidate = free[i] as Buffer;
      if (candidate.length >= minBytes) {
        free[i] = free[free.length - 1] as Buffer;
        free.pop();
        this.#pooledBytes -= candidate.length;
        return candidate;
      }
    }
    return Buffer.allocUnsafeSlow(minBytes);
  }

  /** Takes a buffer back; nothing may use it afterwards. */
  recycle(buffer: Buffer): void {
    if (buffer.length === 0) return;
    if (this.#free.length >= this.#maxBuffers || this.#pooledBytes + buffer.length > this.#maxBytes) return;
    this.#free.push(buffer);
    this.#pooledBytes += buffer.length;
  }

  /**
   * A buffer of at least `needed` bytes (doubling `buffer`'s size) that starts with the first `used`
   * bytes of `buffer`, which goes back to the pool.
   */
  grow(buffer: Buffer, used: number, needed: number): Buffer {
    let capacity = Math.max(1024, buffer.length * 2);
    while (capacity < needed) capacity *= 2;
    const grown = this.acquire(capacity);
    buffer.copy(grown, 0, 0, used);
    this.recycle(buffer);
    return grown;
  }
}
