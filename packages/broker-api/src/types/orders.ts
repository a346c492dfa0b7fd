import type {
  AlertStatus,
  AmoTime,
  ExchangeSegment,
  ExtendedOrderStatus,
  ForeverOrderFlag,
  LegName,
  OrderStatus,
  OrderType,
  ProductType,
  SuperOrderStatus,
  TradingSegment,
  TransactionType,
  Validity,
} from './enums.js';
import type { DerivativeFields, RecordTimes } from './record-fields.js';

/** Order record of the order book, order by id and order by correlation id. */
export interface Order extends RecordTimes, DerivativeFields {
  svcClientId: string;
  /** The by-id table names it `order-id`; the client copies that into `orderId`. */
  orderId: string;
  exchangeOrderId?: string;
  /** The by-correlation table names it `correlation-id`; the client copies it here. */
  correlationId?: string;
  orderStatus: OrderStatus;
  transactionType: TransactionType;
  exchangeSegment: ExchangeSegment;
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
  boProfitValue?: number;
  boStopLossValue?: number;
  legName?: LegName;
  omsErrorCode?: string;
  omsErrorDescription?: string;
  algoId?: string;
  remainingQuantity: number;
  averageTradedPrice: number;
  filledQty: number;
}

/** What a regular order and a forever order are both placed with. */
interface OrderPlacement {
  /** Default: the client's id. */
  svcClientId?: string;
  /** Max 30 characters of [a-zA-Z0-9 _-]; lets a caller find the order after a lost answer. */
  correlationId?: string;
  transactionType: TransactionType;
  exchangeSegment: TradingSegment;
  productType: ProductType;
  orderType: OrderType;
  validity: Validity;
  securityId: string;
  quantity: number;
  disclosedQuantity?: number;
}

export interface PlaceOrderRequest extends OrderPlacement {
  price?: number;
  triggerPrice?: number;
  afterMarketOrder?: boolean;
  amoTime?: AmoTime;
}

export interface ModifyOrderRequest {
  svcClientId?: string;
  orderType: OrderType;
  legName?: LegName;
  quantity?: number;
  price?: number;
  disclosedQuantity?: number;
  triggerPrice?: number;
  validity?: Validity;
}

export interface OrderAck {
  orderId: string;
  orderStatus: OrderStatus;
}

export interface SuperOrderLeg {
  orderId?: string;
  legName?: LegName;
  transactionType?: TransactionType;
  remainingQuantity?: number;
  triggeredQuantity?: number;
  price?: number;
  orderStatus?: SuperOrderStatus;
  trailingJump?: number;
  [field: string]: unknown;
}

export interface SuperOrder {
  svcClientId: string;
  algoId?: string;
  orderId: string;
  correlationId?: string;
  orderStatus: SuperOrderStatus;
  transactionType: TransactionType;
  exchangeSegment: ExchangeSegment;
  productType: ProductType;
  orderType: 'LIMIT' | 'MARKET';
  validity: Validity;
  tradingSymbol: string;
  securityId: string;
  quantity: number;
  remainingQuantity: number;
  ltp: number;
  price: number;
  afterMarketOrder: boolean;
  legName: LegName;
  trailingJump: number;
  exchangeOrderId?: string;
  createTime: string;
  updateTime: string;
  exchangeTime: string;
  omsErrorDescription?: string;
  averageTradedPrice: number;
  filledQty: number;
  /** Target and stop-loss legs; their fields are "not shown" by the spec. */
  legDetails: SuperOrderLeg[];
}

export interface PlaceSuperOrderRequest {
  svcClientId?: string;
  correlationId?: string;
  transactionType: TransactionType;
  exchangeSegment: TradingSegment;
  productType: ProductType;
  orderType: 'LIMIT' | 'MARKET';
  securityId: string;
  quantity: number;
  price: number;
  targetPrice: number;
  stopLossPrice: number;
  trailingJump?: number;
}

export interface ModifySuperOrderRequest {
  svcClientId?: string;
  legName: LegName;
  orderType?: 'LIMIT' | 'MARKET';
  quantity?: number;
  price?: number;
  targetPrice?: number;
  stopLossPrice?: number;
  trailingJump?: number;
}

export interface CancelLegResult {
  orderId?: string;
  orderStatus?: ExtendedOrderStatus;
}

export interface PlaceForeverOrderRequest extends OrderPlacement {
  orderFlag: ForeverOrderFlag;
  price: number;
  triggerPrice: number;
  /** Second leg of an OCO. */
  price1?: number;
  triggerPrice1?: number;
  quantity1?: number;
}

export interface ModifyForeverOrderRequest {
  svcClientId?: string;
  orderFlag: ForeverOrderFlag;
  orderType: OrderType;
  legName: LegName;
  quantity?: number;
  price?: number;
  disclosedQuantity?: number;
  triggerPrice?: number;
  validity?: Validity;
}

/** Forever orders come back as order-book-like records; fields beyond these are not shown. */
export interface ForeverOrder {
  orderId: string;
  orderStatus: ExtendedOrderStatus | string;
  [field: string]: unknown;
}

export interface AlertCondition {
  comparisonType: string;
  exchangeSegment: ExchangeSegment;
  securityId: string;
  indicatorName?: string;
  timeFrame?: string;
  operator: string;
  comparingValue?: number;
  comparingIndicatorName?: string;
  expDate?: string;
  frequency?: string;
  userNote?: string;
}

/** Orders inside a conditional order: regular order fields. */
export type AlertOrderLeg = Omit<PlaceOrderRequest, 'svcClientId' | 'correlationId' | 'amoTime'>;

export interface PlaceAlertRequest {
  svcClientId?: string;
  condition: AlertCondition;
  /** 1 to 15 orders, executed in sequence. */
  orders: AlertOrderLeg[];
}

export interface AlertAck {
  alertId: string;
  alertStatus: AlertStatus;
}

/** A conditional order record: fields beyond alertId and alertStatus are not shown. */
export interface Alert {
  alertId: string;
  alertStatus: AlertStatus;
  [field: string]: unknown;
}
