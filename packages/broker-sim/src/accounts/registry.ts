/** All accounts of one simulator, the order-event emitter, and the matching timer's pass. */
import { EventEmitter } from 'node:events';
import type { MarketSource } from '../rest/market-source.js';
import { Account } from './account.js';
import type { AlertRecord } from './alerts.js';
import type { ForeverRecord } from './forever-orders.js';
import type { UsOrderRecord } from './global-stocks.js';
import type { MatchingOptions } from './order-book.js';
import type { SimAccountSeed } from './seeds.js';
import type { OrderRecord } from './types.js';

/**
 * Order-side events of every account, each a copy of the record at that moment: 'order' for the
 * regular book (super-order legs and orders placed by forever/alert triggers included), 'usOrder'
 * for US stocks, 'forever' for forever-order records, 'alert' when a conditional order triggers.
 */
export interface OrderEvents {
  on(event: 'order', listener: (clientId: string, order: OrderRecord) => void): this;
  on(event: 'usOrder', listener: (clientId: string, order: UsOrderRecord) => void): this;
  on(event: 'forever', listener: (clientId: string, order: ForeverRecord) => void): this;
  on(event: 'alert', listener: (clientId: string, alert: AlertRecord) => void): this;
  off(event: 'order', listener: (clientId: string, order: OrderRecord) => void): this;
  off(event: 'usOrder', listener: (clientId: string, order: UsOrderRecord) => void): this;
  off(event: 'forever', listener: (clientId: string, order: ForeverRecord) => void): this;
  off(event: 'alert', listener: (clientId: string, alert: AlertRecord) => void): this;
}

/** Where an account sends its order-side events (see OrderEvents). */
export interface AccountEventSink {
  order(clientId: string, order: OrderRecord): void;
  usOrder(clientId: string, order: UsOrderRecord): void;
  forever(clientId: string, order: ForeverRecord): void;
  alert(clientId: string, alert: AlertRecord): void;
}

export class AccountRegistry {
  private readonly accounts = new Map<string, Account>();
  /** Every order status change and fill, as a copy of the order record (postbacks build on it). */
  readonly orderEvents: OrderEvents & EventEmitter = new EventEmitter();

  constructor(
    seeds: readonly SimAccountSeed[],
    market: MarketSource,
    now: () => number,
    matching: MatchingOptions,
  ) {
    // Postback listeners come and go with subscriptions; no fixed small cap applies.
    this.orderEvents.setMaxListeners(0);
    for (const seed of seeds) {
      this.accounts.set(
        seed.clientId,
        new Account(seed, market, now, matching, {
          order: (clientId, order) => this.orderEvents.emit('order', clientId, order),
          usOrder: (clientId, order) => this.orderEvents.emit('usOrder', clientId, order),
          forever: (clientId, order) => this.orderEvents.emit('forever', clientId, order),
          alert: (clientId, alert) => this.orderEvents.emit('alert', clientId, alert),
        }),
      );
    }
  }

  get(clientId: string): Account | undefined {
    return this.accounts.get(clientId);
  }

  byAppId(appId: string): Account | undefined {
    for (const a of this.accounts.values()) if (a.seed.appId === appId) return a;
    return undefined;
  }

  partnerSecret(partnerId: string): string | undefined {
    for (const a of this.accounts.values()) if (a.seed.partnerId === partnerId) return a.seed.partnerSecret;
    return undefined;
  }

  partnerRedirect(partnerId: string): string | undefined {
    for (const a of this.accounts.values()) if (a.seed.partnerId === partnerId) return a.seed.redirectUrl;
    return undefined;
  }

  all(): Account[] {
    return [...this.accounts.values()];
  }

  /** One matching pass for every account. */
  step(): void {
    for (const a of this.accounts.values()) a.step();
  }
}
