/**
 * In-process fan-out of recorded order updates to live stream clients, each with a filter (order
 * id, security id, client id). Bounded: at most `maxClients` subscribers, and at most
 * `maxClientsPerKey` of one API key, so one key (a leaked one, a strategy in a reconnect loop)
 * cannot take every slot and lock the other desks out; a subscriber's `send` answers false when
 * it cannot keep up, and the hub drops it rather than buffer without end.
 */
import type { OrderEvent } from './order-event.js';

export interface UpdateFilter {
  readonly orderId?: string | undefined;
  readonly securityId?: string | undefined;
  readonly clientId?: string | undefined;
}

interface Subscriber {
  readonly filter: UpdateFilter;
  /** The API key that opened the stream ('' when none: counted against the total only). */
  readonly owner: string;
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

/** Why a subscription was refused: every slot taken, or the key's share of them. */
export type SubscribeRefusal = 'full' | 'key-full';

export class UpdateHub {
  private readonly subscribers = new Set<Subscriber>();
  /** Open streams per key; a key's entry goes when its last stream does. */
  private readonly perKey = new Map<string, number>();
  dropped = 0;

  constructor(
    private readonly maxClients: number,
    private readonly maxClientsPerKey: number = maxClients,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Streams open for this key. */
  sizeOf(owner: string): number {
    return this.perKey.get(owner) ?? 0;
  }

  /** Answers the unsubscribe function, or why the subscription is refused. */
  subscribe(
    filter: UpdateFilter,
    send: Subscriber['send'],
    drop: Subscriber['drop'],
    owner = '',
  ): (() => void) | SubscribeRefusal {
    if (owner !== '' && this.sizeOf(owner) >= this.maxClientsPerKey) return 'key-full';
    if (this.subscribers.size >= this.maxClients) return 'full';
    const sub: Subscriber = { filter, owner, send, drop };
    this.subscribers.add(sub);
    if (owner !== '') this.perKey.set(owner, this.sizeOf(owner) + 1);
    return () => this.remove(sub);
  }

  /** Forgets a subscriber once, whichever of unsubscribe, a drop or close comes first. */
  private remove(sub: Subscriber): void {
    if (!this.subscribers.delete(sub) || sub.owner === '') return;
    const left = this.sizeOf(sub.owner) - 1;
    if (left > 0) this.perKey.set(sub.owner, left);
    else this.perKey.delete(sub.owner);
  }

  /** `seqs[i]` is the write-ahead log sequence of `events[i]` (the stream's event id). */
  publish(events: readonly OrderEvent[], seqs: readonly number[]): void {
    for (const sub of [...this.subscribers]) {
      for (let i = 0; i < events.length; i++) {
        const event = events[i];
        if (event === undefined || !matches(sub.filter, event)) continue;
        if (!sub.send(event, seqs[i] ?? 0)) {
          this.remove(sub);
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
    this.perKey.clear();
  }
}
