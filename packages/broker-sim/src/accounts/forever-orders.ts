/**
 * Forever orders (good till triggered). SINGLE: one trigger price. OCO: two legs, the first at
 * price/triggerPrice/quantity and the second at price1/triggerPrice1/quantity1; the first trigger
 * touched places its order and retires the other. A trigger fires when the last price crosses it
 * from the side it was on when the forever order was placed (or last modified).
 */
import { formatIstDateTime } from '../history/calendar.js';
import type { SimInstrument } from '../rest/market-source.js';
import type { PlaceOrder } from './order-book.js';
import type { OrderRecord, OrderType, ProductType, TransactionType } from './types.js';

export type ForeverFlag = 'SINGLE' | 'OCO';
export type ForeverStatus = 'PENDING' | 'TRIGGERED' | 'CANCELLED' | 'REJECTED';

export interface PlaceForever {
  readonly orderFlag: ForeverFlag;
  readonly correlationId: string;
  readonly transactionType: TransactionType;
  readonly exchangeSegment: 'NSE_EQ' | 'BSE_EQ';
  readonly productType: ProductType;
  readonly orderType: OrderType;
  readonly validity: 'DAY' | 'IOC';
  readonly securityId: number;
  readonly quantity: number;
  readonly disclosedQuantity: number;
  readonly price: number;
  readonly triggerPrice: number;
  readonly price1: number;
  readonly triggerPrice1: number;
  readonly quantity1: number;
}

export interface ForeverRecord {
  svcClientId: string;
  orderId: string;
  orderFlag: ForeverFlag;
  orderStatus: ForeverStatus;
  transactionType: TransactionType;
  exchangeSegment: string;
  productType: ProductType;
  orderType: OrderType;
  validity: string;
  tradingSymbol: string;
  securityId: string;
  quantity: number;
  price: number;
  triggerPrice: number;
  price1: number;
  triggerPrice1: number;
  quantity1: number;
  legName: 'TARGET_LEG' | 'STOP_LOSS_LEG' | '';
  createTime: string;
  updateTime: string;
  /** Order placed when the trigger fired. */
  childOrderId: string;
}

interface ForeverState {
  readonly record: ForeverRecord;
  readonly input: PlaceForever;
  readonly instrument: SimInstrument;
  /** Last price when placed or modified: which side of each trigger the market started on. */
  refLtp: number;
}

/** Open forever orders per account. */
export const MAX_FOREVER_ORDERS = 1000;

export class ForeverOrders {
  private readonly orders = new Map<string, ForeverState>();
  private seq = 0;

  constructor(
    private readonly clientId: string,
    private readonly now: () => number,
    private readonly placeRegular: (input: PlaceOrder, inst: SimInstrument) => OrderRecord | string,
    /** Told of every status or field change of a forever-order record (postbacks build on it). */
    private readonly onChange: (order: ForeverRecord) => void = () => {},
  ) {}

  count(): number {
    return this.orders.size;
  }

  place(input: PlaceForever, instrument: SimInstrument, ltp: number): ForeverRecord {
    this.seq += 1;
    const time = formatIstDateTime(this.now());
    const record: ForeverRecord = {
      svcClientId: this.clientId,
      orderId: `F${String(this.seq).padStart(7, '0')}`,
      orderFlag: input.orderFlag,
      orderStatus: 'PENDING',
      transactionType: input.transactionType,
      exchangeSegment: input.exchangeSegment,
      productType: input.productType,
      orderType: input.orderType,
      validity: input.validity,
      tradingSymbol: instrument.symbol,
      securityId: String(instrument.securityId),
      quantity: input.quantity,
      price: input.price,
      triggerPrice: input.triggerPrice,
      price1: input.price1,
      triggerPrice1: input.triggerPrice1,
      quantity1: input.quantity1,
      legName: '',
      createTime: time,
      updateTime: time,
      childOrderId: '',
    };
    this.orders.set(record.orderId, { record, input, instrument, refLtp: ltp });
    this.onChange(record);
    return record;
  }

  get(orderId: string): ForeverRecord | undefined {
    return this.orders.get(orderId)?.record;
  }

  list(): ForeverRecord[] {
    return [...this.orders.values()].map((s) => s.record);
  }

  modify(
    orderId: string,
    change: {
      quantity?: number;
      price?: number;
      triggerPrice?: number;
      legName?: 'TARGET_LEG' | 'STOP_LOSS_LEG';
    },
    ltp: number,
  ): ForeverRecord | 'unknown-order' | 'not-open' {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (s.record.orderStatus !== 'PENDING') return 'not-open';
    const r = s.record;
    const second = r.orderFlag === 'OCO' && change.legName === 'STOP_LOSS_LEG';
    if (second) {
      if (change.quantity !== undefined) r.quantity1 = change.quantity;
      if (change.price !== undefined) r.price1 = change.price;
      if (change.triggerPrice !== undefined) r.triggerPrice1 = change.triggerPrice;
    } else {
      if (change.quantity !== undefined) r.quantity = change.quantity;
      if (change.price !== undefined) r.price = change.price;
      if (change.triggerPrice !== undefined) r.triggerPrice = change.triggerPrice;
    }
    s.refLtp = ltp;
    r.updateTime = formatIstDateTime(this.now());
    this.onChange(r);
    return r;
  }

  cancel(orderId: string): ForeverRecord | 'unknown-order' | 'not-open' {
    const s = this.orders.get(orderId);
    if (!s) return 'unknown-order';
    if (s.record.orderStatus !== 'PENDING') return 'not-open';
    s.record.orderStatus = 'CANCELLED';
    s.record.updateTime = formatIstDateTime(this.now());
    this.onChange(s.record);
    return s.record;
  }

  /** Fires every forever order whose trigger the market crossed. */
  step(ltpOf: (securityId: number) => number | undefined): void {
    for (const s of this.orders.values()) {
      const r = s.record;
      if (r.orderStatus !== 'PENDING') continue;
      const ltp = ltpOf(s.instrument.securityId);
      if (ltp === undefined) continue;
      const crossed = (trigger: number) => (s.refLtp < trigger ? ltp >= trigger : ltp <= trigger);
      let leg: 1 | 2 | undefined;
      if (crossed(r.triggerPrice)) leg = 1;
      else if (r.orderFlag === 'OCO' && crossed(r.triggerPrice1)) leg = 2;
      if (leg === undefined) continue;
      const child = this.placeRegular(
        {
          correlationId: s.input.correlationId,
          transactionType: r.transactionType,
          exchangeSegment: s.input.exchangeSegment,
          productType: r.productType,
          orderType: r.orderType,
          validity: s.input.validity,
          securityId: s.instrument.securityId,
          quantity: leg === 1 ? r.quantity : r.quantity1,
          disclosedQuantity: s.input.disclosedQuantity,
          price: leg === 1 ? r.price : r.price1,
          triggerPrice: 0,
          afterMarketOrder: false,
        },
        s.instrument,
      );
      r.legName = r.orderFlag === 'OCO' ? (leg === 1 ? 'TARGET_LEG' : 'STOP_LOSS_LEG') : '';
      if (typeof child === 'string') {
        r.orderStatus = 'REJECTED';
      } else {
        r.orderStatus = 'TRIGGERED';
        r.childOrderId = child.orderId;
      }
      r.updateTime = formatIstDateTime(this.now());
      this.onChange(r);
    }
  }
}
