/**
 * Pre-trade checks a desk expects before anything reaches the service: the instrument is known,
 * quantity and notional are within the configured limits, and the account's kill switch is off.
 * The kill-switch state is read from the service and trusted for `killSwitchCacheMs`; when it
 * cannot be read, orders are refused (fail closed).
 */
import type { BrokerClient } from '@feedpipe/broker-api';
import type { ResolvedGatewayConfig } from '../config.js';
import { TradingGatewayError } from '../errors.js';
import type { InstrumentReference } from './instrument-reference.js';

export interface OrderFacts {
  securityId?: string | undefined;
  quantity?: number | undefined;
  /** Limit price; 0 or undefined for market orders (the last price is used for the notional). */
  price?: number | undefined;
  /** A cash amount (US AMOUNT orders) used as the notional directly. */
  amount?: number | undefined;
  /** Field name prefix in messages, e.g. `orders[1].` for a conditional order's legs. */
  path?: string;
  /** The field named when the notional is over the limit. Default `quantity`. */
  notionalField?: string;
}

function refuse(field: string, message: string): never {
  throw new TradingGatewayError('PRE_TRADE_REJECTED', `${field}: ${message}`, { field });
}

export class PreTradeChecks {
  readonly #limits: ResolvedGatewayConfig['trading'];
  readonly #catalog: InstrumentReference;
  readonly #broker: BrokerClient;
  readonly #now: () => number;
  #killSwitch: { active: boolean; until: number } | undefined;

  constructor(
    limits: ResolvedGatewayConfig['trading'],
    catalog: InstrumentReference,
    broker: BrokerClient,
    now: () => number,
  ) {
    this.#limits = limits;
    this.#catalog = catalog;
    this.#broker = broker;
    this.#now = now;
  }

  async check(order: OrderFacts): Promise<void> {
    const p = order.path ?? '';
    let securityId: number | undefined;
    if (order.securityId !== undefined) {
      securityId = /^[0-9]{1,10}$/.test(order.securityId) ? Number(order.securityId) : undefined;
      if (
        this.#limits.requireKnownInstrument &&
        (securityId === undefined || !(await this.#catalog.has(securityId)))
      ) {
        refuse(`${p}securityId`, `instrument ${order.securityId} is not known to this desk`);
      }
    }
    if (order.quantity !== undefined && order.quantity > this.#limits.maxQuantity) {
      refuse(`${p}quantity`, `${order.quantity} is above the limit of ${this.#limits.maxQuantity} per order`);
    }
    let notional: number | undefined;
    if (order.amount !== undefined) notional = order.amount;
    else if (order.quantity !== undefined) {
      let price = order.price ?? 0;
      if (price <= 0 && securityId !== undefined) price = (await this.#catalog.lastPrice(securityId)) ?? 0;
      if (price <= 0) refuse(`${p}price`, 'no price and no last traded price to check the notional against');
      notional = price * order.quantity;
    }
    if (notional !== undefined && notional > this.#limits.maxNotional) {
      refuse(
        `${p}${order.notionalField ?? 'quantity'}`,
        `notional ${notional.toFixed(2)} is above the limit of ${this.#limits.maxNotional} per order`,
      );
    }
  }

  async assertKillSwitchOff(): Promise<void> {
    if (await this.killSwitchActive()) {
      throw new TradingGatewayError(
        'KILL_SWITCH_ACTIVE',
        'the kill switch is active: trading is disabled until it is deactivated',
      );
    }
  }

  /** The kill-switch state: cached for `killSwitchCacheMs`, or read now with `fresh`. */
  async killSwitchActive(options: { fresh?: boolean } = {}): Promise<boolean> {
    const now = this.#now();
    if (!options.fresh && this.#killSwitch && this.#killSwitch.until > now) return this.#killSwitch.active;
    const state = await this.#broker.funds.killSwitch();
    this.noteKillSwitch(state.killSwitchStatus === 'ACTIVATE');
    return state.killSwitchStatus === 'ACTIVATE';
  }

  noteKillSwitch(active: boolean): void {
    this.#killSwitch = { active, until: this.#now() + this.#limits.killSwitchCacheMs };
  }
}
