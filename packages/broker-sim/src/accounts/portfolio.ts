/**
 * Trades, positions, holdings, cash and ledger of one account. Fills are the only way in: each
 * fill appends a trade, moves the day position and, for CNC, the holdings and the cash.
 *
 * Money model (documented simplification of a broker's): CNC buys pay their full value from cash
 * and CNC sells credit it; INTRADAY/MARGIN/MTF positions block a margin (MARGIN_RATES of the open
 * value) and only their realised profit moves cash.
 */
import type { LedgerEntry } from '@feedpipe/broker-api';
import { formatDay, formatIstDateTime } from '../history/calendar.js';
import type { SimInstrument } from '../rest/market-source.js';
import {
  type HoldingRecord,
  type OrderRecord,
  type OrderSegment,
  type PositionRecord,
  type ProductType,
  round2,
  type TradeRecord,
} from './types.js';

/** Share of the order value blocked as margin, per product. */
export const MARGIN_RATES: Readonly<Record<ProductType, number>> = {
  CNC: 1,
  MTF: 0.25,
  INTRADAY: 0.2,
  MARGIN: 0.2,
};

/** Bound on remembered trades (trade history pages over them) and ledger entries. */
const MAX_TRADES = 100_000;
const MAX_LEDGER = 100_000;

/** What a fill needs of its order to move positions and holdings. */
type FillKey = Pick<OrderRecord, 'transactionType' | 'exchangeSegment' | 'securityId' | 'productType'>;

interface PositionState {
  segment: OrderSegment;
  securityId: number;
  symbol: string;
  productType: ProductType;
  lotSize: number;
  buyQty: number;
  buyValue: number;
  sellQty: number;
  sellValue: number;
  /** Average price of the open net quantity (average-cost method). */
  openAvg: number;
  realized: number;
}

interface HoldingState {
  securityId: number;
  symbol: string;
  isin: string;
  exchange: 'NSE' | 'BSE';
  dpQty: number;
  t1Qty: number;
  avgCostPrice: number;
}

export class Portfolio {
  readonly trades: TradeRecord[] = [];
  private readonly positions = new Map<string, PositionState>();
  private readonly holdings = new Map<number, HoldingState>();
  readonly ledger: LedgerEntry[] = [];
  private cash: number;
  private tradeSeq = 0;
  private voucherSeq = 0;

  constructor(
    private readonly clientId: string,
    readonly sodLimit: number,
    nowMs: number,
  ) {
    this.cash = sodLimit;
    this.addLedger(nowMs, 'Opening balance (funds added)', 'PAYIN', 0, sodLimit);
  }

  private addLedger(nowMs: number, narration: string, desc: string, debit: number, credit: number): void {
    if (this.ledger.length >= MAX_LEDGER) this.ledger.shift();
    this.voucherSeq += 1;
    const running = debit === 0 && credit === this.sodLimit && this.voucherSeq === 1 ? credit : this.cash;
    this.ledger.push({
      svcClientId: this.clientId,
      narration,
      voucherdate: formatDay(Math.floor((nowMs / 1000 + 19_800) / 86_400)),
      exchange: 'NSE',
      voucherdesc: desc,
      vouchernumber: String(this.voucherSeq),
      debit: debit.toFixed(2),
      credit: credit.toFixed(2),
      runbal: running.toFixed(2),
    });
  }

  /** Records a fill of `qty` at `price` for `order`; returns the trade. */
  applyFill(order: OrderRecord, inst: SimInstrument, qty: number, price: number, nowMs: number): TradeRecord {
    this.tradeSeq += 1;
    const time = formatIstDateTime(nowMs);
    const trade: TradeRecord = {
      svcClientId: this.clientId,
      orderId: order.orderId,
      exchangeOrderId: order.exchangeOrderId,
      exchangeTradeId: `${order.exchangeOrderId}${String(this.tradeSeq).padStart(4, '0')}`,
      transactionType: order.transactionType,
      exchangeSegment: order.exchangeSegment,
      productType: order.productType,
      orderType: order.orderType,
      tradingSymbol: order.tradingSymbol,
      customSymbol: order.tradingSymbol,
      securityId: order.securityId,
      tradedQuantity: qty,
      tradedPrice: price,
      createTime: time,
      updateTime: time,
      exchangeTime: time,
      drvExpiryDate: '',
      drvOptionType: '',
      drvStrikePrice: 0,
      atMs: nowMs,
      isin: inst.isin,
    };
    if (this.trades.length >= MAX_TRADES) this.trades.shift();
    this.trades.push(trade);
    this.movePosition(order, inst, qty, price);
    const value = round2(qty * price);
    if (order.productType === 'CNC') {
      this.moveHolding(order, inst, qty, price);
      this.cash = round2(this.cash + (order.transactionType === 'BUY' ? -value : value));
      this.addLedger(
        nowMs,
        `${order.transactionType} ${qty} ${order.tradingSymbol} @ ${price}`,
        'TRADE',
        order.transactionType === 'BUY' ? value : 0,
        order.transactionType === 'SELL' ? value : 0,
      );
    }
    return trade;
  }

  private movePosition(order: FillKey, inst: SimInstrument, qty: number, price: number): void {
    const key = `${order.exchangeSegment}|${order.securityId}|${order.productType}`;
    let p = this.positions.get(key);
    if (!p) {
      p = {
        segment: order.exchangeSegment,
        securityId: inst.securityId,
        symbol: inst.symbol,
        productType: order.productType,
        lotSize: inst.lotSize,
        buyQty: 0,
        buyValue: 0,
        sellQty: 0,
        sellValue: 0,
        openAvg: 0,
        realized: 0,
      };
      this.positions.set(key, p);
    }
    const before = p.buyQty - p.sellQty;
    const signed = order.transactionType === 'BUY' ? qty : -qty;
    if (signed > 0) {
      p.buyQty += qty;
      p.buyValue = round2(p.buyValue + qty * price);
    } else {
      p.sellQty += qty;
      p.sellValue = round2(p.sellValue + qty * price);
    }
    const after = before + signed;
    if (before === 0 || Math.sign(before) === Math.sign(signed)) {
      p.openAvg = (Math.abs(before) * p.openAvg + qty * price) / Math.abs(after);
    } else {
      const closed = Math.min(Math.abs(before), qty);
      const realized = round2(closed * (price - p.openAvg) * Math.sign(before));
      p.realized = round2(p.realized + realized);
      if (order.productType !== 'CNC') this.cash = round2(this.cash + realized);
      if (Math.sign(after) !== Math.sign(before) && after !== 0) p.openAvg = price;
      if (after === 0) p.openAvg = 0;
    }
  }

  private moveHolding(order: FillKey, inst: SimInstrument, qty: number, price: number): void {
    let h = this.holdings.get(inst.securityId);
    if (!h) {
      h = {
        securityId: inst.securityId,
        symbol: inst.symbol,
        isin: inst.isin,
        exchange: inst.exchangeSegment === 'BSE_EQ' ? 'BSE' : 'NSE',
        dpQty: 0,
        t1Qty: 0,
        avgCostPrice: 0,
      };
      this.holdings.set(inst.securityId, h);
    }
    if (order.transactionType === 'BUY') {
      const total = h.dpQty + h.t1Qty;
      h.avgCostPrice = round2((total * h.avgCostPrice + qty * price) / (total + qty));
      h.t1Qty += qty;
    } else {
      // Delivered shares go first; T1 shares (bought yesterday or today) after them.
      const fromDp = Math.min(h.dpQty, qty);
      h.dpQty -= fromDp;
      h.t1Qty -= qty - fromDp;
      if (h.dpQty + h.t1Qty === 0) this.holdings.delete(inst.securityId);
    }
  }

  /** Shares of a scrip that a CNC sell may still take (holdings, less what open sells already claim). */
  holdingQty(securityId: number): number {
    const h = this.holdings.get(securityId);
    return h ? h.dpQty + h.t1Qty : 0;
  }

  isinHoldings(): Array<{ isin: string; totalQty: number; securityId: number }> {
    return [...this.holdings.values()].map((h) => ({
      isin: h.isin,
      totalQty: h.dpQty + h.t1Qty,
      securityId: h.securityId,
    }));
  }

  /** Net quantity of one position (0 when none). */
  netQty(segment: string, securityId: number, productType: ProductType): number {
    const p = this.positions.get(`${segment}|${securityId}|${productType}`);
    return p ? p.buyQty - p.sellQty : 0;
  }

  openPositions(): Array<{
    segment: OrderSegment;
    securityId: number;
    productType: ProductType;
    netQty: number;
  }> {
    const out: Array<{
      segment: OrderSegment;
      securityId: number;
      productType: ProductType;
      netQty: number;
    }> = [];
    for (const p of this.positions.values()) {
      const net = p.buyQty - p.sellQty;
      if (net !== 0)
        out.push({ segment: p.segment, securityId: p.securityId, productType: p.productType, netQty: net });
    }
    return out;
  }

  /**
   * Moves `qty` of an open position from one product to another (positions/convert). The moved
   * part keeps its average price; CNC <-> intraday conversions also move holdings and cash.
   */
  convert(
    segment: OrderSegment,
    securityId: number,
    from: ProductType,
    to: ProductType,
    qty: number,
    inst: SimInstrument,
  ): boolean {
    const src = this.positions.get(`${segment}|${securityId}|${from}`);
    if (!src) return false;
    const net = src.buyQty - src.sellQty;
    if (Math.abs(net) < qty || qty <= 0) return false;
    const side = Math.sign(net);
    const avg = src.openAvg;
    const value = round2(qty * avg);
    if (side > 0) {
      src.buyQty -= qty;
      src.buyValue = round2(src.buyValue - value);
    } else {
      src.sellQty -= qty;
      src.sellValue = round2(src.sellValue - value);
    }
    const base = { exchangeSegment: segment, securityId: String(securityId) };
    this.movePosition(
      { ...base, transactionType: side > 0 ? 'BUY' : 'SELL', productType: to },
      inst,
      qty,
      avg,
    );
    if (from === 'CNC' && side > 0) {
      this.moveHolding({ ...base, transactionType: 'SELL', productType: from }, inst, qty, avg);
      this.cash = round2(this.cash + value);
    }
    if (to === 'CNC' && side > 0) {
      this.moveHolding({ ...base, transactionType: 'BUY', productType: to }, inst, qty, avg);
      this.cash = round2(this.cash - value);
    }
    return true;
  }

  /** Margin blocked by open non-CNC positions. */
  positionMargin(): number {
    let m = 0;
    for (const p of this.positions.values()) {
      if (p.productType === 'CNC') continue;
      m += Math.abs(p.buyQty - p.sellQty) * p.openAvg * MARGIN_RATES[p.productType];
    }
    return round2(m);
  }

  cashBalance(): number {
    return this.cash;
  }

  /** Realised plus unrealised profit of all positions at current prices. */
  totalPnl(ltpOf: (securityId: number) => number | undefined, products?: readonly ProductType[]): number {
    let total = 0;
    for (const p of this.positions.values()) {
      if (products && !products.includes(p.productType)) continue;
      const net = p.buyQty - p.sellQty;
      const ltp = ltpOf(p.securityId) ?? p.openAvg;
      total += p.realized + net * (ltp - p.openAvg);
    }
    return round2(total);
  }

  positionsView(ltpOf: (securityId: number) => number | undefined): PositionRecord[] {
    return [...this.positions.values()].map((p) => {
      const net = p.buyQty - p.sellQty;
      const ltp = ltpOf(p.securityId) ?? p.openAvg;
      return {
        svcClientId: this.clientId,
        tradingSymbol: p.symbol,
        securityId: String(p.securityId),
        positionType: net > 0 ? 'LONG' : net < 0 ? 'SHORT' : 'CLOSED',
        exchangeSegment: p.segment,
        productType: p.productType,
        buyAvg: p.buyQty ? round2(p.buyValue / p.buyQty) : 0,
        buyQty: p.buyQty,
        costPrice: round2(p.openAvg),
        sellAvg: p.sellQty ? round2(p.sellValue / p.sellQty) : 0,
        sellQty: p.sellQty,
        netQty: net,
        realizedProfit: p.realized,
        unrealizedProfit: round2(net * (ltp - p.openAvg)),
        rbiReferenceRate: 1,
        multiplier: p.lotSize,
        carryForwardBuyQty: 0,
        carryForwardSellQty: 0,
        carryForwardBuyValue: 0,
        carryForwardSellValue: 0,
        dayBuyQty: p.buyQty,
        daySellQty: p.sellQty,
        dayBuyValue: p.buyValue,
        daySellValue: p.sellValue,
        drvExpiryDate: '',
        drvOptionType: '',
        drvStrikePrice: 0,
        crossCurrency: false,
      };
    });
  }

  holdingsView(ltpOf: (securityId: number) => number | undefined): HoldingRecord[] {
    return [...this.holdings.values()].map((h) => ({
      exchange: h.exchange,
      tradingSymbol: h.symbol,
      securityId: String(h.securityId),
      isin: h.isin,
      totalQty: h.dpQty + h.t1Qty,
      dpQty: h.dpQty,
      t1Qty: h.t1Qty,
      mtf_t1_qty: 0,
      mtf_qty: 0,
      availableQty: h.dpQty + h.t1Qty,
      collateralQty: 0,
      avgCostPrice: h.avgCostPrice,
      lastTradedPrice: ltpOf(h.securityId) ?? h.avgCostPrice,
    }));
  }

  /**
   * Day end: T1 shares become delivered, intraday positions are gone (the simulator squares them
   * off at the last price it knows), and the day's position book starts empty.
   */
  rollDay(): void {
    for (const h of this.holdings.values()) {
      h.dpQty += h.t1Qty;
      h.t1Qty = 0;
    }
    this.positions.clear();
  }
}
