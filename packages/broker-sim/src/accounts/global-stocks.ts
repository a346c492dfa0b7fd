/**
 * The US-stocks (global stocks, INX_EQ) book of one account: USD cash, fractional quantities and
 * AMOUNT orders (a USD amount bought at the market; quantity = amount / last price, kept to 6
 * decimals). Orders fill whole on the first pass that crosses them (no partial liquidity model on
 * this side); fills move USD cash and the US holdings.
 */
import type { GlobalOrder, GlobalTrade } from '@feedpipe/broker-api';
import { formatDay, formatIstDateTime, istDay } from '../history/calendar.js';
import type { SimInstrument } from '../rest/market-source.js';
import { round2, type SentRecord } from './types.js';

export const US_ORDER_TYPES = ['MARKET', 'LIMIT', 'STOP_LOSS', 'STOP_LOSS_MARKET', 'AMOUNT'] as const;
export type UsOrderType = (typeof US_ORDER_TYPES)[number];
export type UsOrderStatus = 'TRANSIT' | 'PENDING' | 'REJECTED' | 'CANCELLED' | 'TRADED' | 'TRIGGERED';

/** Brokerage per US order in USD: a flat fee capped at a share of the value. */
export const US_BROKERAGE_USD = 0.5;
export const US_OTHER_CHARGE_RATE = 0.0001;
export const MAX_MODIFICATIONS_US = 25;

export interface UsPlace {
  readonly correlationId: string;
  readonly transactionType: 'BUY' | 'SELL';
  readonly orderType: UsOrderType;
  readonly securityId: number;
  readonly quantity: number;
  readonly price: number;
  readonly triggerPrice: number;
  readonly amount: number;
  readonly afterMarketOrder: boolean;
}

/** How every US record the simulator sends spells the order: cash delivery on the one US segment. */
interface UsOrderFields {
  transactionType: 'BUY' | 'SELL';
  exchangeSegment: 'INX_EQ';
  productType: 'CNC';
  orderType: UsOrderType;
}

/** A US order as the simulator sends it: a single order, so no legs and no child orders. */
export type UsOrderRecord = SentRecord<
  GlobalOrder,
  UsOrderFields & {
    validity: 'DAY';
    orderStatus: UsOrderStatus;
    legName: 'NA';
    childOrders: never[];
  }
>;

/** Every US fill is of a whole order (no partial liquidity on this side). */
export type UsTrade = SentRecord<GlobalTrade, UsOrderFields & { orderStatus: 'TRADED' }>;

interface UsState {
  readonly record: UsOrderRecord;
  readonly instrument: SimInstrument;
  modifications: number;
  triggered: boolean;
}

const q6 = (x: number): number => Math.round(x * 1e6) / 1e6;

export function usCharges(value: number): { brokerage: number; other: number } {
  return {
    brokerage: round2(Math.min(US_BROKERAGE_USD, value * 0.01)),
    other: round2(value * US_OTHER_CHARGE_RATE),
  };
}

export class GlobalStocksBook {
  private readonly orders = new Map<string, UsState>();
  readonly trades: UsTrade[] = [];
  private readonly holdings = new Map<number, { qty: number; avg: number; inst: SimInstrument }>();
  private cash: number;
  private seq = 0;

  constructor(
    private readonly clientId: string,
    readonly openingCash: number,
    private readonly now: () => number,
    /** Told of every status change, modification and fill of a US order (postbacks build on it). */
    private readonly onChange: (order: UsOrderRecord) => void = () => {},
  ) {
    this.cash = openingCash;
  }

  place(input: UsPlace, inst: SimInstrument): UsOrderRecord {
    this.seq += 1;
    const time = formatIstDateTime(this.now());
    const record: UsOrderRecord = {
      svcClientId: this.clientId,
      orderId: `US${String(this.seq).padStart(8, '0')}`,
      exchangeOrderId: '',
      correlationId: input.correlationId,
      transactionType: input.transactionType,
      exchangeSegment: 'INX_EQ',
      productType: 'CNC',
      orderType: input.orderType,
      validity: 'DAY',
      tradingSymbol: inst.symbol,
      displayName: inst.symbol,
      securityId: String(inst.securityId),
      quantity: input.quantity,
      remainingQuantity: input.quantity,
      tradedQty: 0,
      price: input.orderType === 'MARKET' || input.orderType === 'AMOUNT' ? 0 : input.price,
      triggerPrice: input.triggerPrice,
      avgTradedPrice: 0,
      orderStatus: 'TRANSIT',
      createTime: time,
      exchangeTime: '',
      updateTime: time,
      omsErrorCode: '',
      omsErrorDescription: '',
      afterMarketOrder: input.afterMarketOrder,
      amount: input.amount,
      lotSize: 1,
      fractionalFlag: !Number.isInteger(input.quantity) || input.orderType === 'AMOUNT',
      legName: 'NA',
      childOrders: [],
    };
    this.orders.set(record.orderId, { record, instrument: inst, modifications: 0, triggered: false });
    this.onChange(record);
    return record;
  }

  get(orderId: string): UsOrderRecord | undefined {
    return this.orders.get(orderId)?.record;
  }

  list(): UsOrderRecord[] {
    return [...this.orders.values()].map((s) => s.record);
  }

  private isOpen(r: UsOrderRecord): boolean {
    return r.orderStatus === 'TRANSIT' || r.orderStatus === 'PENDING' || r.orderStatus === 'TRIGGERED';
  }

  modify(
    orderId: string,
    change: { orderType?: UsOrderType; quantity?: number; price?: number },
  ): UsOrderRecord | 'unknown-order' | 'not-open' | 'modification-limit' {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (!this.isOpen(s.record)) return 'not-open';
    if (s.modifications >= MAX_MODIFICATIONS_US) return 'modification-limit';
    s.modifications += 1;
    const r = s.record;
    if (change.orderType !== undefined) r.orderType = change.orderType;
    if (change.quantity !== undefined) {
      r.quantity = change.quantity;
      r.remainingQuantity = q6(change.quantity - r.tradedQty);
    }
    if (change.price !== undefined) r.price = change.price;
    r.updateTime = formatIstDateTime(this.now());
    this.onChange(r);
    return r;
  }

  cancel(orderId: string): UsOrderRecord | 'unknown-order' | 'not-open' {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (!this.isOpen(s.record)) return 'not-open';
    s.record.orderStatus = 'CANCELLED';
    s.record.updateTime = formatIstDateTime(this.now());
    this.onChange(s.record);
    return s.record;
  }

  private blocked(except: UsOrderRecord): number {
    let total = 0;
    for (const s of this.orders.values()) {
      const r = s.record;
      if (r === except || !this.isOpen(r) || r.transactionType !== 'BUY') continue;
      total += r.orderType === 'AMOUNT' ? r.amount : r.remainingQuantity * (r.price || r.triggerPrice);
    }
    return total;
  }

  step(ltpOf: (securityId: number) => number | undefined): void {
    const nowMs = this.now();
    for (const s of this.orders.values()) {
      const r = s.record;
      if (!this.isOpen(r)) continue;
      const ltp = ltpOf(s.instrument.securityId);
      if (ltp === undefined || ltp <= 0) continue;
      if (r.orderStatus === 'TRANSIT') {
        if (r.orderType === 'AMOUNT') {
          r.quantity = q6(r.amount / ltp);
          r.remainingQuantity = r.quantity;
        }
        const need = r.transactionType === 'BUY' ? r.remainingQuantity * (r.price || ltp) : 0;
        const held = this.holdings.get(s.instrument.securityId)?.qty ?? 0;
        let reason: string | undefined;
        if (r.quantity <= 0) reason = 'Quantity rounds to zero';
        else if (need > this.cash - this.blocked(r) + 1e-9) reason = 'Insufficient funds';
        else if (r.transactionType === 'SELL' && r.quantity > held + 1e-9) reason = 'Insufficient holdings';
        if (reason) {
          r.orderStatus = 'REJECTED';
          r.omsErrorCode = 'RMS';
          r.omsErrorDescription = reason;
          r.updateTime = formatIstDateTime(nowMs);
          this.onChange(r);
          continue;
        }
        r.orderStatus = 'PENDING';
        r.exchangeOrderId = `9${r.orderId.slice(2)}`;
        r.exchangeTime = formatIstDateTime(nowMs);
        r.updateTime = r.exchangeTime;
        this.onChange(r);
      }
      const buy = r.transactionType === 'BUY';
      const stop = r.orderType === 'STOP_LOSS' || r.orderType === 'STOP_LOSS_MARKET';
      if (stop && !s.triggered) {
        s.triggered = buy ? ltp >= r.triggerPrice : ltp <= r.triggerPrice;
        if (s.triggered) {
          r.orderStatus = 'TRIGGERED';
          r.updateTime = formatIstDateTime(nowMs);
          this.onChange(r);
        }
      }
      const atMarket =
        r.orderType === 'MARKET' || r.orderType === 'AMOUNT' || r.orderType === 'STOP_LOSS_MARKET';
      const crosses = atMarket || (buy ? ltp <= r.price : ltp >= r.price);
      if ((!stop || s.triggered) && crosses) this.fill(s, ltp, nowMs);
    }
  }

  private fill(s: UsState, price: number, nowMs: number): void {
    const r = s.record;
    const qty = r.remainingQuantity;
    const value = round2(qty * price);
    const charges = usCharges(value);
    r.tradedQty = q6(r.tradedQty + qty);
    r.remainingQuantity = 0;
    r.avgTradedPrice = price;
    r.orderStatus = 'TRADED';
    r.updateTime = formatIstDateTime(nowMs);
    this.onChange(r);
    const id = s.instrument.securityId;
    const h = this.holdings.get(id) ?? { qty: 0, avg: 0, inst: s.instrument };
    if (r.transactionType === 'BUY') {
      h.avg = (h.qty * h.avg + qty * price) / (h.qty + qty);
      h.qty = q6(h.qty + qty);
      this.cash = round2(this.cash - value - charges.brokerage - charges.other);
    } else {
      h.qty = q6(h.qty - qty);
      this.cash = round2(this.cash + value - charges.brokerage - charges.other);
    }
    if (h.qty > 0) this.holdings.set(id, h);
    else this.holdings.delete(id);
    this.trades.push({
      svcClientId: this.clientId,
      orderId: r.orderId,
      exchangeOrderId: r.exchangeOrderId,
      transactionType: r.transactionType,
      exchangeSegment: 'INX_EQ',
      productType: 'CNC',
      orderType: r.orderType,
      tradingSymbol: r.tradingSymbol,
      securityId: r.securityId,
      tradedQuantity: qty,
      tradedPrice: price,
      tradeDate: formatDay(istDay(nowMs / 1000)),
      createTime: r.updateTime,
      exchangeTime: r.updateTime,
      orderStatus: 'TRADED',
      brokerage: charges.brokerage,
      otherCharges: charges.other,
      tradeValue: value,
    });
  }

  holdingsView(
    quote: (id: number) => { ltp: number; prevClose: number } | undefined,
  ): Array<Record<string, unknown>> {
    return [...this.holdings.entries()].map(([id, h]) => {
      const q = quote(id);
      const ltp = q?.ltp ?? h.avg;
      return {
        svcClientId: this.clientId,
        tradingSymbol: h.inst.symbol,
        displayName: h.inst.symbol,
        securityId: String(id),
        exchange: 'INX',
        quantity: h.qty,
        avgCostPrice: round2(h.avg),
        costValue: round2(h.qty * h.avg),
        currentValue: round2(h.qty * ltp),
        gainValue: round2(h.qty * (ltp - h.avg)),
        ltp,
        prevClose: q?.prevClose ?? ltp,
        longTermFlag: 'N',
        lastUpdated: formatIstDateTime(this.now()),
      };
    });
  }

  fundLimit(): Record<string, unknown> {
    const blocked = round2(this.blocked({} as UsOrderRecord));
    return {
      svcClientId: this.clientId,
      availableCash: round2(this.cash - blocked),
      cashOnAccount: this.cash,
      actualCash: this.cash,
      settledCash: this.cash,
      unsettledCash: 0,
      marginUtilized: blocked,
    };
  }

  availableCash(): number {
    return round2(this.cash - this.blocked({} as UsOrderRecord));
  }
}
