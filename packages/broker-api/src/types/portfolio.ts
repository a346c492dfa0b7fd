import type {
  ExchangeSegment,
  HoldingExchange,
  OrderType,
  PositionType,
  ProductType,
  TradingSegment,
  TransactionType,
} from './enums.js';
import type { DerivativeFields, RecordTimes } from './record-fields.js';

/** The fields that say which order a fill belongs to, on the trade book and the trade history. */
interface TradeIdentity {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  exchangeTradeId: string;
  transactionType: TransactionType;
  exchangeSegment: ExchangeSegment;
  productType: ProductType;
  orderType: OrderType;
}

export interface Trade extends TradeIdentity, RecordTimes, DerivativeFields {
  tradingSymbol: string;
  customSymbol?: string;
  securityId: string;
  tradedQuantity: number;
  tradedPrice: number;
}

export interface TradeHistoryRecord extends TradeIdentity, RecordTimes, DerivativeFields {
  customSymbol: string;
  securityId: string;
  tradedQuantity: number;
  tradedPrice: number;
  isin: string;
  instrument: string;
  regTax: number;
  stt: number;
  brokerageCharges: number;
  serviceTax: number;
  exchangeTransactionCharges: number;
  stampDuty: number;
}

export interface Position extends DerivativeFields {
  svcClientId: string;
  tradingSymbol: string;
  securityId: string;
  positionType: PositionType;
  exchangeSegment: ExchangeSegment;
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
  crossCurrency: boolean;
}

export interface ConvertPositionRequest {
  svcClientId?: string;
  fromProductType?: 'CNC' | 'INTRADAY' | 'MARGIN';
  exchangeSegment?: Exclude<TradingSegment, 'NSE_COMM'>;
  positionType?: PositionType;
  securityId?: string;
  convertQty?: number;
  toProductType?: 'CNC' | 'INTRADAY' | 'MARGIN';
}

export interface Holding {
  exchange: HoldingExchange;
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
