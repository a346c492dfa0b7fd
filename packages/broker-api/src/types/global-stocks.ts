import type { ExtendedOrderStatus, TransactionType } from './enums.js';

export type GlobalOrderType = 'MARKET' | 'LIMIT' | 'STOP_LOSS' | 'STOP_LOSS_MARKET' | 'AMOUNT';
export type GlobalLegName = 'ENTRY_LEG' | 'STOP_LOSS_LEG' | 'TARGET_LEG' | 'NA';

export interface GlobalOrder {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  correlationId?: string;
  transactionType: TransactionType;
  exchangeSegment: string;
  productType: string;
  orderType: GlobalOrderType;
  validity: string;
  tradingSymbol: string;
  displayName: string;
  securityId: string;
  quantity: number;
  remainingQuantity: number;
  tradedQty: number;
  price: number;
  triggerPrice: number;
  avgTradedPrice: number;
  orderStatus: ExtendedOrderStatus;
  createTime: string;
  exchangeTime: string;
  updateTime: string;
  omsErrorCode?: string;
  omsErrorDescription?: string;
  afterMarketOrder: boolean;
  amount?: number;
  lotSize: number;
  fractionalFlag: boolean;
  legName: GlobalLegName;
  childOrders?: Record<string, unknown>[];
}

export interface PlaceGlobalOrderRequest {
  svcClientId?: string;
  correlationId?: string;
  transactionType: TransactionType;
  orderType: GlobalOrderType;
  securityId: string;
  /** Fractional quantities allowed. */
  quantity?: number;
  /** USD; 0 for market orders. */
  price?: number;
  triggerPrice?: number;
  stopLossPrice?: number;
  targetPrice?: number;
  /** For AMOUNT orders, USD. */
  amount?: number;
  afterMarketOrder?: boolean;
}

export interface ModifyGlobalOrderRequest {
  svcClientId?: string;
  orderType: GlobalOrderType;
  transactionType: TransactionType;
  securityId: string;
  quantity?: number;
  price?: number;
  legName?: GlobalLegName;
}

export interface GlobalOrderAck {
  orderId: string;
  orderStatus: ExtendedOrderStatus;
}

export interface GlobalEstimateRequest {
  securityId: string;
  /** USD as text; "0" for market. */
  price: string;
  quantity: string;
  transactionType: TransactionType;
}

export interface GlobalChargeEstimate {
  brokerage: number;
  orderCharges: number;
  exchangeCharges: number;
  turnOverFee: number;
  gstCharges: number;
  otherCharges: number;
}

export interface GlobalMarginResult {
  brokerage: number;
  leverage: string;
  insufficientBal: number;
  totalMargin: number;
  availableBal: number;
}

export interface GlobalTrade {
  svcClientId: string;
  orderId: string;
  exchangeOrderId: string;
  transactionType: TransactionType;
  exchangeSegment: string;
  productType: string;
  orderType: GlobalOrderType;
  tradingSymbol: string;
  securityId: string;
  tradedQuantity: number;
  tradedPrice: number;
  tradeDate: string;
  createTime: string;
  exchangeTime: string;
  orderStatus: string;
  brokerage: number;
  otherCharges: number;
  tradeValue: number;
}

export interface GlobalHolding {
  svcClientId: string;
  tradingSymbol: string;
  displayName: string;
  securityId: string;
  exchange: string;
  quantity: number;
  avgCostPrice: number;
  costValue: number;
  currentValue: number;
  gainValue: number;
  ltp: number;
  prevClose: number;
  longTermFlag: string;
  lastUpdated: string;
}

export interface GlobalFundLimit {
  svcClientId: string;
  availableCash: number;
  cashOnAccount: number;
  actualCash: number;
  settledCash: number;
  unsettledCash: number;
  marginUtilized: number;
}

export interface GlobalMarketStatus {
  marketCloseTime: string;
  marketOpenTime: string;
  holidayFlag: boolean;
  /** open or closed */
  status: string;
}
