/**
 * Pre-trade checks a desk expects before anything reaches the service: the instrument is known,
 * quantity and notional are within the configured limits, and the account's kill switch is off.
 * The kill-switch state is read from the service and trusted for `killSwitchCacheMs`; when it
 * cannot be read, orders are refused (fail closed).
 *
 * Past `killSwitchCacheMs` and up to `killSwitchRefreshBehindMs` an order is checked against the
 * state last read while the state is read again behind it, instead of waiting for that read (a call
 * to the service, which under `npm start` waits on the simulator's busy process). The order loses
 * no protection by it: the service refuses every order itself while its switch is on (the spec:
 * trading disabled for the day), and the desk answers that refusal with 409 KILL_SWITCH_ACTIVE
 * after a fresh read (order-desk.ts, refusalOf); a switch set through the gateway is noted at once.
 * A read behind an order that fails forgets the state, so the next order waits for a read and is
 * refused when there is none (fail closed, as before).
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
  #killSwitch: { active: boolean; until: number; readAt: number } | undefined;
  #refreshing = false;

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

  /**
   * The kill-switch state: cached for `killSwitchCacheMs`, then (an order's check, not `fresh`)
   * answered from the last read while it is read again behind it, up to `killSwitchRefreshBehindMs`
   * after that read; read now with `fresh` or past that.
   */
  async killSwitchActive(options: { fresh?: boolean } = {}): Promise<boolean> {
    const now = this.#now();
    const known = this.#killSwitch;
    if (!options.fresh && known) {
      if (known.until > now) return known.active;
      if (known.readAt + this.#limits.killSwitchRefreshBehindMs > now) {
        this.#refreshBehind();
        return known.active;
      }
    }
    return this.#read();
  }

  noteKillSwitch(active: boolean): void {
    const now = this.#now();
    this.#killSwitch = { active, until: now + this.#limits.killSwitchCacheMs, readAt: now };
  }

  async #read(): Promise<boolean> {
    const state = await this.#broker.funds.killSwitch();
    this.noteKillSwitch(state.killSwitchStatus === 'ACTIVATE');
    return state.killSwitchStatus === 'ACTIVATE';
  }

  /** One read at a time behind the orders; a failed one forgets the state (fail closed next). */
  #refreshBehind(): void {
    if (this.#refreshing) return;
    this.#refreshing = true;
    this.#read()
      .catch(() => {
        this.#killSwitch = undefined;
      })
      .finally(() => {
        this.#refreshing = false;
      });
  }
}
