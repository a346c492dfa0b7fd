import { BrokerApiError } from '../core/errors.js';

/**
 * Counts modifications per order id against the spec's limit of 25, so the 26th is refused
 * locally instead of costing an order-rate slot and an error from the service.
 *
 * Every modification the client sends counts, answered or not: the service may have applied one
 * whose answer was lost, and counting it keeps the client on the safe side. Order ids are unique
 * per day; the oldest entries are dropped beyond `capacity` so the map stays bounded.
 */
export class ModificationCounter {
  readonly #max: number;
  readonly #capacity: number;
  readonly #counts = new Map<string, number>();

  constructor(maxPerOrder: number, capacity = 100_000) {
    this.#max = maxPerOrder;
    this.#capacity = capacity;
  }

  count(orderId: string): number {
    return this.#counts.get(orderId) ?? 0;
  }

  /** Throws MODIFICATION_LIMIT when no modification is left for `orderId`. */
  check(orderId: string, route: string): void {
    const used = this.#counts.get(orderId) ?? 0;
    if (used >= this.#max) {
      throw new BrokerApiError({
        code: 'MODIFICATION_LIMIT',
        message: `order ${orderId} was already modified ${used} times (limit ${this.#max})`,
        route,
      });
    }
  }

  /** Takes one modification for `orderId`, or throws MODIFICATION_LIMIT when none is left. */
  take(orderId: string, route: string): void {
    this.check(orderId, route);
    const used = this.#counts.get(orderId) ?? 0;
    this.#counts.delete(orderId);
    this.#counts.set(orderId, used + 1);
    if (this.#counts.size > this.#capacity) {
      const oldest = this.#counts.keys().next();
      if (!oldest.done) this.#counts.delete(oldest.value);
    }
  }
}
