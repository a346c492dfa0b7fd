/**
 * One simulated account: identity and credentials from its seed, its books (orders, super,
 * forever, alerts, US stocks), its portfolio, and the risk controls (static IP, kill switch, P&L
 * exit, eDIS). Day-scoped state (order book, kill switch, P&L exit, consents, T-PIN) resets when
 * the IST day of the injected clock changes.
 */
import { istDay } from '../history/calendar.js';
import type { MarketSource, SimInstrument } from '../rest/market-source.js';
import { Alerts } from './alerts.js';
import { ForeverOrders } from './forever-orders.js';
import { GlobalStocksBook } from './global-stocks.js';
import { type MatchingOptions, OrderBook, type PlaceOrder } from './order-book.js';
import { Portfolio } from './portfolio.js';
import type { AccountEventSink } from './registry.js';
import type { SimAccountSeed } from './seeds.js';
import { SuperOrders } from './super-orders.js';
import { type OrderRecord, type ProductType, round2 } from './types.js';

/** Spec: a set static IP cannot be changed for 7 days. */
export const IP_LOCK_MS = 7 * 24 * 3600 * 1000;

export interface IpSlot {
  ip: string;
  setAtMs: number;
}

export interface PnlExitConfig {
  profit: number;
  loss: number;
  productType: readonly ('INTRADAY' | 'DELIVERY')[];
  enableKillSwitch: boolean;
}

export class Account {
  readonly clientId: string;
  readonly portfolio: Portfolio;
  readonly book: OrderBook;
  readonly supers: SuperOrders;
  readonly forever: ForeverOrders;
  readonly alerts: Alerts;
  readonly us: GlobalStocksBook;
  readonly ips: { PRIMARY?: IpSlot; SECONDARY?: IpSlot } = {};
  killSwitch = false;
  pnlExit: PnlExitConfig | undefined;
  /** eDIS approvals of the day, by ISIN. */
  readonly edisApproved = new Map<string, number>();
  tpinRequested = false;
  consentsToday = 0;
  private day: number;

  constructor(
    readonly seed: SimAccountSeed,
    private readonly market: MarketSource,
    private readonly now: () => number,
    matching: MatchingOptions,
    events: AccountEventSink,
  ) {
    this.clientId = seed.clientId;
    this.day = istDay(now() / 1000);
    const t = now();
    if (seed.staticIp?.primary) this.ips.PRIMARY = { ip: seed.staticIp.primary, setAtMs: t - IP_LOCK_MS };
    if (seed.staticIp?.secondary)
      this.ips.SECONDARY = { ip: seed.staticIp.secondary, setAtMs: t - IP_LOCK_MS };
    this.portfolio = new Portfolio(seed.clientId, seed.fundsInr ?? 1_000_000, t);
    this.book = new OrderBook(
      seed.clientId,
      `${seed.clientId.slice(-4)}`,
      market,
      this.portfolio,
      now,
      matching,
      (order, inst, blocked) => this.gatewayCheck(order, inst, blocked),
      (order) => events.order(seed.clientId, { ...order }),
      (order) => this.supers.onFill(order),
    );
    this.supers = new SuperOrders(this.book);
    const placeRegular = (input: PlaceOrder, inst: SimInstrument): OrderRecord | string =>
      this.killSwitch ? 'kill switch active' : this.book.place(input, inst);
    // Copies, so a listener that queues the record (postbacks) never sees later changes.
    this.forever = new ForeverOrders(seed.clientId, now, placeRegular, (r) =>
      events.forever(seed.clientId, { ...r }),
    );
    this.alerts = new Alerts(seed.clientId, now, placeRegular, (r) =>
      events.alert(seed.clientId, structuredClone(r)),
    );
    this.us = new GlobalStocksBook(seed.clientId, seed.fundsUsd ?? 10_000, now, (r) =>
      events.usOrder(seed.clientId, { ...r, childOrders: [] }),
    );
  }

  readonly ltpOf = (securityId: number): number | undefined => this.market.quote(securityId)?.ltp;

  /** True when `ip` is the account's primary or secondary static IP. */
  ipAllowed(ip: string): boolean {
    return this.ips.PRIMARY?.ip === ip || this.ips.SECONDARY?.ip === ip;
  }

  private gatewayCheck(
    order: OrderRecord,
    inst: SimInstrument,
    blockedElsewhere: number,
  ): string | undefined {
    const q = this.market.quote(inst.securityId);
    if (!q) return 'No market price for the instrument';
    // A zero band means the reference values are not known yet (fresh listing): no band check.
    if (
      order.price > 0 &&
      q.upperCircuit > 0 &&
      (order.price > q.upperCircuit || order.price < q.lowerCircuit)
    ) {
      return `Price outside the circuit band ${q.lowerCircuit}-${q.upperCircuit}`;
    }
    if (order.price > 0 && !onTick(order.price, inst.tickSize))
      return `Price not a multiple of tick size ${inst.tickSize}`;
    const need = this.book.orderMargin(order);
    if (need > this.availableBalance(blockedElsewhere) + 1e-6) return 'Insufficient funds';
    if (order.transactionType === 'SELL' && order.productType === 'CNC') {
      if (order.quantity > this.portfolio.holdingQty(inst.securityId)) return 'Insufficient holdings';
      if (!this.seed.ddpi && (this.edisApproved.get(inst.isin) ?? 0) < order.quantity) {
        return 'eDIS authorisation required for the sell quantity';
      }
    }
    return undefined;
  }

  availableBalance(blockedByOrders = this.book.blockedMargin()): number {
    return round2(this.portfolio.cashBalance() - this.portfolio.positionMargin() - blockedByOrders);
  }

  fundLimit(): Record<string, unknown> {
    const blocked = this.book.blockedMargin();
    const utilized = round2(this.portfolio.positionMargin() + blocked);
    const available = this.availableBalance(blocked);
    const sells = this.portfolio.trades
      .filter((t) => t.productType === 'CNC' && t.transactionType === 'SELL')
      .reduce((a, t) => a + t.tradedQuantity * t.tradedPrice, 0);
    return {
      svcClientId: this.clientId,
      availabelBalance: available,
      sodLimit: this.portfolio.sodLimit,
      collateralAmount: 0,
      receiveableAmount: round2(sells),
      utilizedAmount: utilized,
      blockedPayoutAmount: 0,
      withdrawableBalance: Math.max(0, round2(available - sells)),
    };
  }

  /** Kill switch rule: no open positions and no pending orders. */
  canActivateKillSwitch(): boolean {
    return this.portfolio.openPositions().length === 0 && this.book.openOrders().length === 0;
  }

  /** One pass: day rollover, forever/alert triggers, trailing, matching, P&L exit. */
  step(): void {
    this.rollIfNewDay();
    this.forever.step(this.ltpOf);
    this.alerts.step(this.ltpOf);
    this.supers.trail(this.ltpOf);
    this.book.step();
    this.us.step(this.ltpOf);
    this.checkPnlExit();
  }

  private checkPnlExit(): void {
    const cfg = this.pnlExit;
    if (!cfg) return;
    const products: ProductType[] = [];
    if (cfg.productType.includes('INTRADAY')) products.push('INTRADAY', 'MARGIN');
    if (cfg.productType.includes('DELIVERY')) products.push('CNC', 'MTF');
    const pnl = this.portfolio.totalPnl(this.ltpOf, products);
    const hit = (cfg.profit > 0 && pnl >= cfg.profit) || (cfg.loss > 0 && pnl <= -cfg.loss);
    if (!hit) return;
    this.pnlExit = undefined;
    this.exitAll(products);
    if (cfg.enableKillSwitch) this.killSwitch = true;
  }

  /** Cancels open orders and flattens open positions with market orders (DELETE /positions). */
  exitAll(products?: readonly ProductType[]): void {
    for (const o of this.book.openOrders()) {
      if (!products || products.includes(o.productType)) this.book.cancel(o.orderId, 'Exit all');
    }
    for (const p of this.portfolio.openPositions()) {
      if (products && !products.includes(p.productType)) continue;
      const inst = this.market.instrument(p.securityId);
      if (!inst) continue;
      this.book.place(
        {
          correlationId: 'exit-all',
          transactionType: p.netQty > 0 ? 'SELL' : 'BUY',
          exchangeSegment: p.segment,
          productType: p.productType,
          orderType: 'MARKET',
          validity: 'DAY',
          securityId: p.securityId,
          quantity: Math.abs(p.netQty),
          disclosedQuantity: 0,
          price: 0,
          triggerPrice: 0,
          afterMarketOrder: false,
        },
        inst,
      );
    }
  }

  private rollIfNewDay(): void {
    const today = istDay(this.now() / 1000);
    if (today === this.day) return;
    this.day = today;
    this.book.rollDay();
    this.supers.rollDay();
    this.portfolio.rollDay();
    this.killSwitch = false;
    this.pnlExit = undefined;
    this.edisApproved.clear();
    this.tpinRequested = false;
    this.consentsToday = 0;
  }

  /** Call before reading day-scoped state outside a matching pass. */
  touch(): void {
    this.rollIfNewDay();
  }
}

function onTick(price: number, tick: number): boolean {
  const n = price / tick;
  return Math.abs(n - Math.round(n)) < 1e-6;
}
