/** Records the account state hands out, in the spec's field names and enum spellings. */
export const ORDER_SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'BSE_EQ', 'BSE_FNO', 'NSE_COMM', 'MCX_COMM'] as const;
export type OrderSegment = (typeof ORDER_SEGMENTS)[number];
export const TRANSACTION_TYPES = ['BUY', 'SELL'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export const PRODUCT_TYPES = ['CNC', 'INTRADAY', 'MARGIN', 'MTF'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];
export const ORDER_TYPES = ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_MARKET'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
export const VALIDITIES = ['DAY', 'IOC'] as const;
export type Validity = (typeof VALIDITIES)[number];
export type OrderStatus = 'TRANSIT' | 'PENDING' | 'REJECTED' | 'CANCELLED' | 'TRADED';
export const LEG_NAMES = ['ENTRY_LEG', 'TARGET_LEG', 'STOP_LOSS_LEG'] as const;
export type LegName = (typeof LEG_NAMES)[number];

export interface OrderRecord {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  correlationId: string;
  orderStatus: OrderStatus;
  transactionType: TransactionType;
  exchangeSegment: OrderSegment;
  productType: ProductType;
  orderType: OrderType;
  validity: Validity;
  tradingSymbol: string;
  securityId: string;
  quantity: number;
  disclosedQuantity: number;
  price: number;
  triggerPrice: number;
  afterMarketOrder: boolean;
  boProfitValue: number;
  boStopLossValue: number;
  legName: LegName | '';
  createTime: string;
  updateTime: string;
  exchangeTime: string;
  drvExpiryDate: string;
  drvOptionType: string;
  drvStrikePrice: number;
  omsErrorCode: string;
  omsErrorDescription: string;
  algoId: string;
  remainingQuantity: number;
  averageTradedPrice: number;
  filledQty: number;
}

export interface TradeRecord {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  exchangeTradeId: string;
  transactionType: TransactionType;
  exchangeSegment: OrderSegment;
  productType: ProductType;
  orderType: OrderType;
  tradingSymbol: string;
  customSymbol: string;
  securityId: string;
  tradedQuantity: number;
  tradedPrice: number;
  createTime: string;
  updateTime: string;
  exchangeTime: string;
  drvExpiryDate: string;
  drvOptionType: string;
  drvStrikePrice: number;
  /** Not on the wire: epoch ms of the fill, for the trade-history date range. */
  readonly atMs: number;
  readonly isin: string;
}

export interface PositionRecord {
  svcClientId: string;
  tradingSymbol: string;
  securityId: string;
  positionType: 'LONG' | 'SHORT' | 'CLOSED';
  exchangeSegment: OrderSegment;
  productType: ProductType;
  buyAvg: number;
  buyQty: number;
  costPrice: number;
  sellAvg: number;
  sellQty: number;
  netQty: number;
  realizedProfit: number;
  unrealizedProfit: number;
  rbiReferenceRate: number;
  multiplier: number;
  carryForwardBuyQty: number;
  carryForwardSellQty: number;
  carryForwardBuyValue: number;
  carryForwardSellValue: number;
  dayBuyQty: number;
  daySellQty: number;
  dayBuyValue: number;
  daySellValue: number;
  drvExpiryDate: string;
  drvOptionType: string;
  drvStrikePrice: number;
  crossCurrency: boolean;
}

export interface HoldingRecord {
  exchange: 'NSE' | 'BSE';
  tradingSymbol: string;
  securityId: string;
  isin: string;
  totalQty: number;
  dpQty: number;
  t1Qty: number;
  mtf_t1_qty: number;
  mtf_qty: number;
  availableQty: number;
  collateralQty: number;
  avgCostPrice: number;
  lastTradedPrice: number;
}

export interface LedgerEntry {
  svcClientId: string;
  narration: string;
  voucherdate: string;
  exchange: string;
  voucherdesc: string;
  vouchernumber: string;
  debit: string;
  credit: string;
  runbal: string;
}

/** Rounds money to paise so sums of fills do not drift. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
