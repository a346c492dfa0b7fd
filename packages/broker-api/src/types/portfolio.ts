import type {
  ExchangeSegment,
  HoldingExchange,
  OptionType,
  OrderType,
  PositionType,
  ProductType,
  TradingSegment,
  TransactionType,
} from './enums.js';

export interface Trade {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  exchangeTradeId: string;
  transactionType: TransactionType;
  exchangeSegment: ExchangeSegment;
  productType: ProductType;
  orderType: OrderType;
  tradingSymbol: string;
  customSymbol?: string;
  securityId: string;
  tradedQuantity: number;
  tradedPrice: number;
  createTime: string;
  updateTime: string;
  exchangeTime: string;
  drvExpiryDate?: string;
  drvOptionType?: OptionType;
  drvStrikePrice?: number;
}

export interface TradeHistoryRecord {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  exchangeTradeId: string;
  transactionType: TransactionType;
  exchangeSegment: ExchangeSegment;
  productType: ProductType;
  orderType: OrderType;
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
  createTime: string;
  updateTime: string;
  exchangeTime: string;
  drvExpiryDate?: string;
  drvOptionType?: OptionType;
  drvStrikePrice?: number;
}

export interface Position {
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
  drvExpiryDate?: string;
  drvOptionType?: OptionType;
  drvStrikePrice?: number;
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
