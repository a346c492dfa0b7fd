/**
 * In-process fan-out of recorded order updates to live stream clients, each with a filter (order
 * id, security id, client id). Bounded: at most `maxClients` subscribers; a subscriber's `send`
 * answers false when it cannot keep up, and the hub drops it rather than buffer without end.
 */
import type { OrderEvent } from './order-event.js';

export interface UpdateFilter {
  readonly orderId?: string | undefined;
  readonly securityId?: string | undefined;
  readonly clientId?: string | undefined;
}

interface Subscriber {
  readonly filter: UpdateFilter;
  /** Answers false when the subscriber is too slow and must be dropped. */
  readonly send: (event: OrderEvent, seq: number) => boolean;
  readonly drop: () => void;
}

export function matches(filter: UpdateFilter, event: OrderEvent): boolean {
  if (filter.orderId !== undefined && filter.orderId !== event.orderId) return false;
  if (filter.securityId !== undefined && filter.securityId !== event.securityId) return false;
  if (filter.clientId !== undefined && filter.clientId !== event.clientId) return false;
  return true;
}

export class UpdateHub {
  private readonly subscribers = new Set<Subscriber>();
  dropped = 0;

  constructor(private readonly maxClients: number) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Answers the unsubscribe function, or undefined when the hub is full. */
  subscribe(
    filter: UpdateFilter,
    send: Subscriber['send'],
    drop: Subscriber['drop'],
  ): (() => void) | undefined {
    if (this.subscribers.size >= this.maxClients) return undefined;
    const sub: Subscriber = { filter, send, drop };
    this.subscribers.add(sub);
    return () => {
      this.subscribers.delete(sub);
    };
  }

  /** `seqs[i]` is the write-ahead log sequence of `events[i]` (the stream's event id). */
  publish(events: readonly OrderEvent[], seqs: readonly number[]): void {
    for (const sub of [...this.subscribers]) {
      for (let i = 0; i < events.length; i++) {
        const event = events[i];
        if (event === undefined || !matches(sub.filter, event)) continue;
        if (!sub.send(event, seqs[i] ?? 0)) {
          this.subscribers.delete(sub);
          this.dropped += 1;
          sub.drop();
          break;
        }
      }
    }
  }

  /** Ends every subscription (server shutdown). */
  close(): void {
    for (const sub of this.subscribers) sub.drop();
    this.subscribers.clear();
  }
}
