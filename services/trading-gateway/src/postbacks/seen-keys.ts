/**
 * The event keys the receiver has accepted lately, to recognise duplicated deliveries before they
 * reach Kafka. Bounded: past `capacity` the oldest key is forgotten (a Map iterates in insertion
 * order, so eviction is O(1)); the table's ReplacingMergeTree still collapses a duplicate older
 * than that.
 */
export class SeenKeys {
  private readonly keys = new Map<string, true>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.keys.size;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Remembers `key`; answers false when it was already there. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.set(key, true);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
    return true;
  }

  delete(key: string): void {
    this.keys.delete(key);
  }
}
