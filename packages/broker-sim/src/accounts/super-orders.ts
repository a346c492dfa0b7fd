/**
 * Super orders: an entry order with a target leg and a stop-loss leg. The entry sits in the order
 * book as ENTRY_LEG; once it is fully traded the two exit legs enter the book under their own
 * order ids (TARGET_LEG as a LIMIT, STOP_LOSS_LEG as a STOP_LOSS_MARKET), and whichever trades
 * first cancels the other. With a trailing jump the stop-loss trigger follows the price: each full
 * jump in the favourable direction moves it by one jump. An exit leg cancelled while the entry is
 * still pending is never placed (the spec states no condition for a leg cancel; once cancelled, a
 * leg cannot be added again).
 */
import type { SuperOrderStatus } from '@feedpipe/broker-api';
import type { SimInstrument } from '../rest/market-source.js';
import type { BookRefusal, OrderBook, PlaceOrder } from './order-book.js';
import { type LegName, type OrderRecord, round2 } from './types.js';

export interface PlaceSuperOrder extends PlaceOrder {
  readonly targetPrice: number;
  readonly stopLossPrice: number;
  readonly trailingJump: number;
}

export interface ModifySuperOrder {
  readonly orderType?: 'LIMIT' | 'MARKET';
  readonly quantity?: number;
  readonly price?: number;
  readonly targetPrice?: number;
  readonly stopLossPrice?: number;
  readonly trailingJump?: number;
}

interface SuperState {
  readonly entryId: string;
  readonly instrument: SimInstrument;
  targetPrice: number;
  stopLossPrice: number;
  trailingJump: number;
  targetId?: string;
  stopLossId?: string;
  /** Exit legs cancelled before the entry traded: not placed when it does. */
  readonly cancelledLegs: Set<ExitLeg>;
  /** Price from which the next trailing jump is measured. */
  trailRef: number;
}

type ExitLeg = Exclude<LegName, 'ENTRY_LEG'>;

export class SuperOrders {
  private readonly supers = new Map<string, SuperState>();
  private readonly legToEntry = new Map<string, string>();

  constructor(private readonly book: OrderBook) {}

  place(input: PlaceSuperOrder, instrument: SimInstrument): OrderRecord {
    const entry = this.book.place({ ...input, legName: 'ENTRY_LEG' }, instrument);
    entry.boProfitValue = round2(Math.abs(input.targetPrice - (input.price || 0)));
    entry.boStopLossValue = round2(Math.abs((input.price || 0) - input.stopLossPrice));
    this.supers.set(entry.orderId, {
      entryId: entry.orderId,
      instrument,
      targetPrice: input.targetPrice,
      stopLossPrice: input.stopLossPrice,
      trailingJump: input.trailingJump,
      trailRef: 0,
      cancelledLegs: new Set(),
    });
    return entry;
  }

  has(orderId: string): boolean {
    return this.supers.has(orderId);
  }

  /** Called for every fill of the book. */
  onFill(order: OrderRecord): void {
    if (order.orderStatus !== 'TRADED') return;
    const sup = this.supers.get(order.orderId);
    if (sup) {
      this.placeExitLegs(sup, order);
      return;
    }
    const entryId = this.legToEntry.get(order.orderId);
    const parent = entryId === undefined ? undefined : this.supers.get(entryId);
    if (!parent) return;
    const sibling = order.orderId === parent.targetId ? parent.stopLossId : parent.targetId;
    if (sibling !== undefined) this.book.cancel(sibling, 'Other leg of the super order traded');
  }

  private placeExitLegs(sup: SuperState, entry: OrderRecord): void {
    const exit = entry.transactionType === 'BUY' ? 'SELL' : 'BUY';
    const common = {
      correlationId: entry.correlationId,
      transactionType: exit,
      exchangeSegment: entry.exchangeSegment,
      productType: entry.productType,
      validity: 'DAY',
      securityId: sup.instrument.securityId,
      quantity: entry.filledQty,
      disclosedQuantity: 0,
      afterMarketOrder: false,
    } as const;
    if (!sup.cancelledLegs.has('TARGET_LEG')) {
      const target = this.book.place(
        { ...common, orderType: 'LIMIT', price: sup.targetPrice, triggerPrice: 0, legName: 'TARGET_LEG' },
        sup.instrument,
      );
      sup.targetId = target.orderId;
      this.legToEntry.set(target.orderId, sup.entryId);
    }
    if (!sup.cancelledLegs.has('STOP_LOSS_LEG')) {
      const stop = this.book.place(
        {
          ...common,
          orderType: 'STOP_LOSS_MARKET',
          price: 0,
          triggerPrice: sup.stopLossPrice,
          legName: 'STOP_LOSS_LEG',
        },
        sup.instrument,
      );
      sup.stopLossId = stop.orderId;
      this.legToEntry.set(stop.orderId, sup.entryId);
    }
    sup.trailRef = entry.averageTradedPrice;
  }

  /** Trailing of stop-loss legs; run on each matching pass before the book matches. */
  trail(ltpOf: (securityId: number) => number | undefined): void {
    for (const sup of this.supers.values()) {
      if (sup.trailingJump <= 0 || sup.stopLossId === undefined || !this.book.isOpen(sup.stopLossId))
        continue;
      const ltp = ltpOf(sup.instrument.securityId);
      const entry = this.book.get(sup.entryId);
      if (ltp === undefined || !entry) continue;
      const dir = entry.transactionType === 'BUY' ? 1 : -1;
      const jumps = Math.floor(((ltp - sup.trailRef) * dir) / sup.trailingJump);
      if (jumps < 1) continue;
      sup.trailRef = round2(sup.trailRef + dir * jumps * sup.trailingJump);
      sup.stopLossPrice = round2(sup.stopLossPrice + dir * jumps * sup.trailingJump);
      this.book.adjustTrigger(sup.stopLossId, sup.stopLossPrice);
    }
  }

  modify(orderId: string, leg: LegName, change: ModifySuperOrder): OrderRecord | BookRefusal {
    const sup = this.supers.get(orderId);
    if (!sup) return 'unknown-order';
    if (leg === 'ENTRY_LEG') {
      const r = this.book.modify(orderId, {
        ...(change.orderType !== undefined ? { orderType: change.orderType } : {}),
        ...(change.quantity !== undefined ? { quantity: change.quantity } : {}),
        ...(change.price !== undefined ? { price: change.price } : {}),
      });
      if (typeof r === 'string') return r;
      if (change.targetPrice !== undefined) sup.targetPrice = change.targetPrice;
      if (change.stopLossPrice !== undefined) sup.stopLossPrice = change.stopLossPrice;
      if (change.trailingJump !== undefined) sup.trailingJump = change.trailingJump;
      return r;
    }
    if (sup.cancelledLegs.has(leg)) return 'not-open';
    if (leg === 'TARGET_LEG') {
      if (sup.targetId === undefined) {
        if (!this.book.isOpen(orderId)) return 'not-open';
        if (change.targetPrice !== undefined) sup.targetPrice = change.targetPrice;
        return this.book.get(orderId)!;
      }
      return this.book.modify(
        sup.targetId,
        change.targetPrice !== undefined ? { price: change.targetPrice } : {},
      );
    }
    if (change.trailingJump !== undefined) sup.trailingJump = change.trailingJump;
    if (sup.stopLossId === undefined) {
      if (!this.book.isOpen(orderId)) return 'not-open';
      if (change.stopLossPrice !== undefined) sup.stopLossPrice = change.stopLossPrice;
      return this.book.get(orderId)!;
    }
    if (change.stopLossPrice !== undefined) sup.stopLossPrice = change.stopLossPrice;
    return this.book.modify(
      sup.stopLossId,
      change.stopLossPrice !== undefined ? { triggerPrice: change.stopLossPrice } : {},
    );
  }

  /**
   * Cancelling the entry leg cancels the whole super order; an exit leg cancels only itself: in the
   * book once the entry has traded, or before that by never placing it.
   */
  cancelLeg(orderId: string, leg: LegName): { orderId: string; orderStatus: string } | BookRefusal {
    const sup = this.supers.get(orderId);
    if (!sup) return 'unknown-order';
    if (leg === 'ENTRY_LEG') {
      const entryOpen = this.book.isOpen(orderId);
      let cancelled = false;
      if (entryOpen) cancelled = typeof this.book.cancel(orderId, 'Super order cancelled') !== 'string';
      for (const id of [sup.targetId, sup.stopLossId]) {
        if (id !== undefined && this.book.isOpen(id)) {
          this.book.cancel(id, 'Super order cancelled');
          cancelled = true;
        }
      }
      if (!cancelled) return 'not-open';
      return { orderId, orderStatus: 'CANCELLED' };
    }
    const id = leg === 'TARGET_LEG' ? sup.targetId : sup.stopLossId;
    if (id === undefined) {
      if (sup.cancelledLegs.has(leg) || !this.book.isOpen(orderId)) return 'not-open';
      sup.cancelledLegs.add(leg);
      return { orderId, orderStatus: 'CANCELLED' };
    }
    if (!this.book.isOpen(id)) return 'not-open';
    const r = this.book.cancel(id, 'Leg cancelled');
    return typeof r === 'string' ? r : { orderId, orderStatus: r.orderStatus };
  }

  private statusOf(sup: SuperState, entry: OrderRecord): SuperOrderStatus {
    if (entry.orderStatus !== 'TRADED') {
      if (entry.orderStatus === 'PENDING' && entry.filledQty > 0) return 'PART_TRADED';
      return entry.orderStatus;
    }
    const legs = (['TARGET_LEG', 'STOP_LOSS_LEG'] as const).map((name) => this.legStatus(sup, name));
    if (legs.some((l) => l === 'TRADED')) return 'CLOSED';
    if (legs.every((l) => l === 'CANCELLED' || l === 'REJECTED')) return 'CLOSED';
    return 'TRADED';
  }

  /** An exit leg's status: its order's, CANCELLED if it was cancelled unplaced, else PENDING. */
  private legStatus(sup: SuperState, leg: ExitLeg): string {
    const id = leg === 'TARGET_LEG' ? sup.targetId : sup.stopLossId;
    const r = id ? this.book.get(id) : undefined;
    if (r) return r.orderStatus;
    return sup.cancelledLegs.has(leg) ? 'CANCELLED' : 'PENDING';
  }

  /** The super order book: entries with their legs nested in legDetails. */
  list(ltpOf: (securityId: number) => number | undefined): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const sup of this.supers.values()) {
      const e = this.book.get(sup.entryId);
      if (!e) continue;
      const leg = (name: ExitLeg, id: string | undefined, price: number, trigger: number) => {
        const r = id ? this.book.get(id) : undefined;
        return {
          orderId: r?.orderId ?? '',
          legName: name,
          transactionType: e.transactionType === 'BUY' ? 'SELL' : 'BUY',
          totalQuantity: r?.quantity ?? e.quantity,
          remainingQuantity: r?.remainingQuantity ?? e.quantity,
          triggeredQuantity: r?.filledQty ?? 0,
          price: r
            ? name === 'TARGET_LEG'
              ? r.price
              : r.triggerPrice
            : name === 'TARGET_LEG'
              ? price
              : trigger,
          orderStatus: this.legStatus(sup, name),
          trailingJump: name === 'STOP_LOSS_LEG' ? sup.trailingJump : 0,
        };
      };
      out.push({
        svcClientId: e.svcClientId,
        algoId: '',
        orderId: e.orderId,
        correlationId: e.correlationId,
        orderStatus: this.statusOf(sup, e),
        transactionType: e.transactionType,
        exchangeSegment: e.exchangeSegment,
        productType: e.productType,
        orderType: e.orderType,
        validity: e.validity,
        tradingSymbol: e.tradingSymbol,
        securityId: e.securityId,
        quantity: e.quantity,
        remainingQuantity: e.remainingQuantity,
        ltp: ltpOf(sup.instrument.securityId) ?? 0,
        price: e.price,
        afterMarketOrder: e.afterMarketOrder,
        legName: 'ENTRY_LEG',
        trailingJump: sup.trailingJump,
        exchangeOrderId: e.exchangeOrderId,
        createTime: e.createTime,
        updateTime: e.updateTime,
        exchangeTime: e.exchangeTime,
        omsErrorDescription: e.omsErrorDescription,
        averageTradedPrice: e.averageTradedPrice,
        filledQty: e.filledQty,
        legDetails: [
          leg('TARGET_LEG', sup.targetId, sup.targetPrice, 0),
          leg('STOP_LOSS_LEG', sup.stopLossId, 0, sup.stopLossPrice),
        ],
      });
    }
    return out;
  }

  rollDay(): void {
    this.supers.clear();
    this.legToEntry.clear();
  }
}
