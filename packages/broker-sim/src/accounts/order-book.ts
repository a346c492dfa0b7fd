/**
 * The regular order book of one account and its matching against simulated prices.
 *
 * Life of an order: placed as TRANSIT; the next matching pass checks it like an exchange gateway
 * would (circuit band, funds, holdings, eDIS) and moves it to PENDING (exchange order id assigned)
 * or REJECTED; a PENDING order fills when the market crosses it: MARKET at the last price, LIMIT
 * at the last price when that is at least as good as the limit, STOP_LOSS / STOP_LOSS_MARKET once
 * the trigger is touched. IOC orders cancel whatever did not fill in their first pass.
 *
 * Liquidity: at most `liquidityPerTick` units fill per clock tick (`tickMs`), so a large order
 * fills in parts over successive ticks. Ticks are counted on the injected clock, so matching is
 * deterministic however often passes run (the server runs one on a timer and one before each
 * read).
 */

import { formatIstDateTime } from '../history/calendar.js';
import type { MarketSource, SimInstrument } from '../rest/market-source.js';
import { MARGIN_RATES, type Portfolio } from './portfolio.js';
import {
  type LegName,
  type OrderRecord,
  type OrderSegment,
  type OrderType,
  type ProductType,
  round2,
  type TradeRecord,
  type TransactionType,
  type Validity,
} from './types.js';

export interface MatchingOptions {
  /** Length of one liquidity tick on the injected clock. Default 1000 ms. */
  readonly tickMs: number;
  /** Units that can fill per order per tick. Default 1000. */
  readonly liquidityPerTick: number;
  /** Largest quantity of one order; /orders/slicing splits above it. Default 10,000. */
  readonly freezeQuantity: number;
}

export const DEFAULT_MATCHING: MatchingOptions = {
  tickMs: 1000,
  liquidityPerTick: 1000,
  freezeQuantity: 10_000,
};

/** Spec: at most 25 modifications per order. */
export const MAX_MODIFICATIONS = 25;
/** Bound on one day's order book; placement beyond it is refused. */
export const MAX_ORDERS_PER_DAY = 20_000;

export interface PlaceOrder {
  readonly correlationId: string;
  readonly transactionType: TransactionType;
  readonly exchangeSegment: OrderSegment;
  readonly productType: ProductType;
  readonly orderType: OrderType;
  readonly validity: Validity;
  readonly securityId: number;
  readonly quantity: number;
  readonly disclosedQuantity: number;
  readonly price: number;
  readonly triggerPrice: number;
  readonly afterMarketOrder: boolean;
  readonly legName?: LegName;
}

export interface ModifyOrder {
  readonly orderType?: OrderType;
  readonly quantity?: number;
  readonly price?: number;
  readonly disclosedQuantity?: number;
  readonly triggerPrice?: number;
  readonly validity?: Validity;
}

/** Why a modification or cancel was refused (the route maps these to DH-906). */
export type BookRefusal = 'unknown-order' | 'not-open' | 'modification-limit' | 'bad-quantity';

interface OrderState {
  readonly record: OrderRecord;
  readonly instrument: SimInstrument;
  modifications: number;
  triggered: boolean;
  lastTick: number | undefined;
  tradedValue: number;
}

/** Checks a gateway makes when an order leaves TRANSIT; answers a rejection reason or undefined. */
export type GatewayCheck = (
  order: OrderRecord,
  instrument: SimInstrument,
  blockedElsewhere: number,
) => string | undefined;

export class OrderBook {
  private readonly orders = new Map<string, OrderState>();
  private readonly open = new Set<OrderState>();
  private seq = 0;

  constructor(
    private readonly clientId: string,
    private readonly idPrefix: string,
    private readonly market: MarketSource,
    private readonly portfolio: Portfolio,
    private readonly now: () => number,
    private readonly options: MatchingOptions,
    private readonly gateway: GatewayCheck,
    private readonly emit: (order: OrderRecord) => void,
    private readonly onFill: (order: OrderRecord, trade: TradeRecord) => void,
  ) {}

  get freezeQuantity(): number {
    return this.options.freezeQuantity;
  }

  size(): number {
    return this.orders.size;
  }

  place(input: PlaceOrder, instrument: SimInstrument): OrderRecord {
    this.seq += 1;
    const time = formatIstDateTime(this.now());
    const record: OrderRecord = {
      svcClientId: this.clientId,
      orderId: `${this.idPrefix}${String(this.seq).padStart(6, '0')}`,
      exchangeOrderId: '',
      correlationId: input.correlationId,
      orderStatus: 'TRANSIT',
      transactionType: input.transactionType,
      exchangeSegment: input.exchangeSegment,
      productType: input.productType,
      orderType: input.orderType,
      validity: input.validity,
      tradingSymbol: instrument.symbol,
      securityId: String(instrument.securityId),
      quantity: input.quantity,
      disclosedQuantity: input.disclosedQuantity,
      price: input.orderType === 'MARKET' || input.orderType === 'STOP_LOSS_MARKET' ? 0 : input.price,
      triggerPrice: input.triggerPrice,
      afterMarketOrder: input.afterMarketOrder,
      boProfitValue: 0,
      boStopLossValue: 0,
      legName: input.legName ?? '',
      createTime: time,
      updateTime: time,
      exchangeTime: '',
      drvExpiryDate: '',
      drvOptionType: '',
      drvStrikePrice: 0,
      omsErrorCode: '',
      omsErrorDescription: '',
      algoId: '',
      remainingQuantity: input.quantity,
      averageTradedPrice: 0,
      filledQty: 0,
    };
    const state: OrderState = {
      record,
      instrument,
      modifications: 0,
      triggered: false,
      lastTick: undefined,
      tradedValue: 0,
    };
    this.orders.set(record.orderId, state);
    this.open.add(state);
    this.emit(record);
    return record;
  }

  get(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId)?.record;
  }

  byCorrelation(correlationId: string): OrderRecord | undefined {
    for (const s of this.orders.values()) if (s.record.correlationId === correlationId) return s.record;
    return undefined;
  }

  list(): OrderRecord[] {
    return [...this.orders.values()].map((s) => s.record);
  }

  openOrders(): OrderRecord[] {
    return [...this.open].map((s) => s.record);
  }

  modify(orderId: string, change: ModifyOrder): OrderRecord | BookRefusal {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (!this.open.has(s)) return 'not-open';
    if (s.modifications >= MAX_MODIFICATIONS) return 'modification-limit';
    const r = s.record;
    if (change.quantity !== undefined && change.quantity <= r.filledQty) return 'bad-quantity';
    s.modifications += 1;
    if (change.orderType !== undefined) r.orderType = change.orderType;
    if (change.quantity !== undefined) {
      r.quantity = change.quantity;
      r.remainingQuantity = change.quantity - r.filledQty;
    }
    if (change.price !== undefined) r.price = change.price;
    if (r.orderType === 'MARKET' || r.orderType === 'STOP_LOSS_MARKET') r.price = 0;
    if (change.disclosedQuantity !== undefined) r.disclosedQuantity = change.disclosedQuantity;
    if (change.triggerPrice !== undefined) {
      r.triggerPrice = change.triggerPrice;
      s.triggered = false;
    }
    if (change.validity !== undefined) r.validity = change.validity;
    r.updateTime = formatIstDateTime(this.now());
    this.emit(r);
    return r;
  }

  /** Moves a stop-loss trigger without counting a modification (super-order trailing). */
  adjustTrigger(orderId: string, triggerPrice: number): void {
    const s = this.orders.get(orderId);
    if (!s || !this.open.has(s)) return;
    s.record.triggerPrice = triggerPrice;
    s.record.updateTime = formatIstDateTime(this.now());
    this.emit(s.record);
  }

  isOpen(orderId: string): boolean {
    const s = this.orders.get(orderId);
    return s !== undefined && this.open.has(s);
  }

  modificationsOf(orderId: string): number {
    return this.orders.get(orderId)?.modifications ?? 0;
  }

  cancel(orderId: string, reason = ''): OrderRecord | BookRefusal {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (!this.open.has(s)) return 'not-open';
    this.close(s, 'CANCELLED', '', reason);
    return s.record;
  }

  /** Margin held by open orders (BUY orders, and SELL orders that would open a short). */
  blockedMargin(except?: OrderRecord): number {
    let total = 0;
    for (const s of this.open) {
      if (s.record === except) continue;
      total += this.orderMargin(s.record);
    }
    return round2(total);
  }

  orderMargin(r: OrderRecord): number {
    const ltp = this.market.quote(Number(r.securityId))?.ltp ?? 0;
    const px = r.price > 0 ? r.price : r.triggerPrice > 0 ? r.triggerPrice : ltp;
    const opensShort =
      r.transactionType === 'SELL' &&
      r.productType !== 'CNC' &&
      this.portfolio.netQty(r.exchangeSegment, Number(r.securityId), r.productType) <= 0;
    if (r.transactionType === 'BUY' || opensShort)
      return r.remainingQuantity * px * MARGIN_RATES[r.productType];
    return 0;
  }

  /** One matching pass over the open orders, in placement order. */
  step(): void {
    const nowMs = this.now();
    const tick = Math.floor(nowMs / this.options.tickMs);
    for (const s of [...this.open]) {
      const r = s.record;
      if (r.orderStatus === 'TRANSIT') {
        const reason = this.gateway(r, s.instrument, this.blockedMargin(r));
        if (reason !== undefined) {
          this.close(s, 'REJECTED', 'RMS', reason);
          continue;
        }
        r.orderStatus = 'PENDING';
        r.exchangeOrderId = `${this.idPrefix.replace(/\D/g, '')}${r.orderId.slice(-6)}${String(tick % 1e6)}`;
        r.exchangeTime = formatIstDateTime(nowMs);
        r.updateTime = r.exchangeTime;
        this.emit(r);
      }
      this.match(s, tick, nowMs);
    }
  }

  private match(s: OrderState, tick: number, nowMs: number): void {
    const r = s.record;
    const ltp = this.market.quote(s.instrument.securityId)?.ltp;
    const slices = s.lastTick === undefined ? 1 : tick - s.lastTick;
    if (ltp === undefined || slices <= 0) return;
    s.lastTick = tick;
    const buy = r.transactionType === 'BUY';
    if ((r.orderType === 'STOP_LOSS' || r.orderType === 'STOP_LOSS_MARKET') && !s.triggered) {
      s.triggered = buy ? ltp >= r.triggerPrice : ltp <= r.triggerPrice;
    }
    const stop = r.orderType === 'STOP_LOSS' || r.orderType === 'STOP_LOSS_MARKET';
    let fillPrice: number | undefined;
    if (!stop || s.triggered) {
      const atMarket = r.orderType === 'MARKET' || r.orderType === 'STOP_LOSS_MARKET';
      if (atMarket || (buy ? ltp <= r.price : ltp >= r.price)) fillPrice = ltp;
    }
    if (fillPrice !== undefined) {
      const qty = Math.min(r.remainingQuantity, slices * this.options.liquidityPerTick);
      const trade = this.portfolio.applyFill(r, s.instrument, qty, fillPrice, nowMs);
      s.tradedValue += qty * fillPrice;
      r.filledQty += qty;
      r.remainingQuantity -= qty;
      r.averageTradedPrice = round2(s.tradedValue / r.filledQty);
      r.updateTime = formatIstDateTime(nowMs);
      if (r.remainingQuantity === 0) this.close(s, 'TRADED', '', '');
      else this.emit(r);
      this.onFill(r, trade);
    }
    if (r.validity === 'IOC' && this.open.has(s))
      this.close(s, 'CANCELLED', '', 'IOC order: unfilled quantity cancelled');
  }

  private close(
    s: OrderState,
    status: 'TRADED' | 'REJECTED' | 'CANCELLED',
    code: string,
    reason: string,
  ): void {
    s.record.orderStatus = status;
    s.record.omsErrorCode = code;
    s.record.omsErrorDescription = reason;
    s.record.updateTime = formatIstDateTime(this.now());
    this.open.delete(s);
    this.emit(s.record);
  }

  /** Day end: open DAY orders expire as CANCELLED and the book starts empty. */
  rollDay(): void {
    for (const s of [...this.open]) this.close(s, 'CANCELLED', '', 'Order expired at end of day');
    this.orders.clear();
  }
}
