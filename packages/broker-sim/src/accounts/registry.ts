/** All accounts of one simulator, the order-event emitter, and the matching timer's pass. */
import { EventEmitter } from 'node:events';
import type { MarketSource } from '../rest/market-source.js';
import { Account } from './account.js';
import type { MatchingOptions } from './order-book.js';
import type { SimAccountSeed } from './seeds.js';
import type { OrderRecord } from './types.js';

export interface OrderEvents {
  on(event: 'order', listener: (clientId: string, order: OrderRecord) => void): this;
  off(event: 'order', listener: (clientId: string, order: OrderRecord) => void): this;
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
        new Account(seed, market, now, matching, (clientId, order) =>
          this.orderEvents.emit('order', clientId, order),
        ),
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
