/**
 * Which orders' updates a request may see. The gateway keeps each key's orders its own
 * (orders/ownership.ts); the receiver, a plugin that stands alone, takes that knowledge through
 * this port, and without it (a receiver mounted on its own) every caller sees every update.
 */
import type { FastifyRequest } from 'fastify';
import type { OrderEvent } from './order-event.js';

export interface OrderVisibility {
  /** The key whose orders the request may see, or undefined when it may see every order. */
  restrictTo(request: FastifyRequest): string | undefined;
  /** The owner when it is known in memory; undefined means "ask ownersOf". */
  cachedOwner(orderId: string): string | undefined;
  /** The owners of these orders (ids without one are absent). */
  ownersOf(orderIds: readonly string[]): Promise<Map<string, string>>;
}

/**
 * Lookups of unknown owners one stream may have waiting; past it the stream is dropped like a
 * client that cannot keep up, rather than queue without end.
 */
const MAX_PENDING_LOOKUPS = 1_000;

/**
 * A stream's `send` that writes only the updates of `keyId`'s orders, in the order they arrive:
 * an owner known in memory is decided at once; otherwise the update waits for its owner to be
 * read, and every later update waits behind it so the stream never reorders an order's
 * transitions. Answers false (drop the stream) when too many lookups wait.
 */
export function ownOrdersOnly(
  keyId: string,
  visibility: OrderVisibility,
  write: (event: OrderEvent, seq: number) => void,
  fail: (error: unknown) => void,
): (event: OrderEvent, seq: number) => boolean {
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();
  return (event, seq) => {
    const known = pending === 0 ? visibility.cachedOwner(event.orderId) : undefined;
    if (known !== undefined) {
      if (known === keyId) write(event, seq);
      return true;
    }
    if (pending >= MAX_PENDING_LOOKUPS) return false;
    pending += 1;
    chain = chain
      .then(async () => {
        const owner = (await visibility.ownersOf([event.orderId])).get(event.orderId);
        if (owner === keyId) write(event, seq);
      })
      .catch(fail)
      .finally(() => {
        pending -= 1;
      });
    return true;
  };
}

/** The events of a history the request may see. */
export async function visibleEvents<T extends { orderId: string }>(
  keyId: string | undefined,
  visibility: OrderVisibility | undefined,
  events: readonly T[],
): Promise<T[]> {
  if (keyId === undefined || visibility === undefined) return [...events];
  const owners = await visibility.ownersOf(events.map((e) => e.orderId));
  return events.filter((e) => owners.get(e.orderId) === keyId);
}
