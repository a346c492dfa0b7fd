import type { ChartSegment, OptionType } from './enums.js';

/** Segments accepted as keys of the market snapshot body. */
export type SnapshotSegment = 'NSE_EQ' | 'NSE_FNO' | 'BSE_EQ';
export const SNAPSHOT_SEGMENTS: readonly SnapshotSegment[] = ['NSE_EQ', 'NSE_FNO', 'BSE_EQ'];

/** `{ NSE_EQ: [11536, ...], ... }`: integer security ids per segment. */
export type SnapshotRequest = Partial<Record<SnapshotSegment, readonly number[]>>;

/** Answers keyed by segment, then by security id as text, as the service sends them. */
export type SnapshotData<T> = Partial<Record<SnapshotSegment, Record<string, T>>>;

export interface OhlcValues {
  open: number;
  close: number;
  high: number;
  low: number;
}

export interface LtpQuote {
  last_price: number;
}

export interface OhlcQuote {
  last_price: number;
  ohlc: OhlcValues;
}

export interface DepthLevel {
  quantity: number;
  orders: number;
  price: number;
}

export interface FullQuote {
  average_price: number;
  buy_quantity: number;
  sell_quantity: number;
  depth: { buy: DepthLevel[]; sell: DepthLevel[] };
  last_price: number;
  last_quantity: number;
  /** dd/MM/yyyy HH:mm:ss; an untraded instrument shows 01/01/1980 00:00:00. */
  last_trade_time: string;
  lower_circuit_limit: number;
  upper_circuit_limit: number;
  net_change: number;
  ohlc: OhlcValues;
  oi: number;
  oi_day_high: number;
  oi_day_low: number;
  volume: number;
}

interface CandleRequestBase {
  securityId: string;
  exchangeSegment: ChartSegment;
  /** e.g. EQUITY, INDEX, FUTIDX, OPTSTK. */
  instrument: string;
  /** F&O requests carry it. */
  expiryCode?: number;
  /** Ask for open interest (F&O). */
  oi?: boolean;
  /** YYYY-MM-DD (intraday also YYYY-MM-DD HH:MM:SS). */
  fromDate: string;
  /** YYYY-MM-DD, non-inclusive. */
  toDate: string;
}

export type DailyCandleRequest = CandleRequestBase;

export type IntradayInterval = 1 | 5 | 15 | 30 | 60;
export const INTRADAY_INTERVALS: readonly IntradayInterval[] = [1, 5, 15, 30, 60];

export interface IntradayCandleRequest extends CandleRequestBase {
  /** Minutes; default 5. */
  interval?: IntradayInterval;
}

export interface OptionChainRequest {
  UnderlyingScrip: number;
  UnderlyingSeg: string;
  /** YYYY-MM-DD */
  Expiry: string;
}

export interface ExpiryListRequest {
  UnderlyingScrip: number;
  UnderlyingSeg: string;
}

export interface Greeks {
  delta: number;
  theta: number;
  gamma: number;
  vega: number;
}

export interface OptionChainSide {
  average_price: number;
  greeks: Greeks;
  implied_volatility: number;
  last_price: number;
  oi: number;
  previous_close_price: number;
  previous_oi: number;
  previous_volume: number;
  security_id: number;
  top_ask_price: number;
  top_ask_quantity: number;
  top_bid_price: number;
  top_bid_quantity: number;
  volume: number;
}

export interface OptionChainStrike {
  ce?: OptionChainSide;
  pe?: OptionChainSide;
}

export interface OptionChain {
  /** Price of the underlying. */
  last_price: number;
  /** Keyed by strike written as "25650.000000". */
  oc: Record<string, OptionChainStrike>;
}

export type ExpiredOptionsField =
  | 'open'
  | 'high'
  | 'low'
  | 'close'
  | 'iv'
  | 'volume'
  | 'strike'
  | 'oi'
  | 'spot';
export const EXPIRED_OPTIONS_FIELDS: readonly ExpiredOptionsField[] = [
  'open',
  'high',
  'low',
  'close',
  'iv',
  'volume',
  'strike',
  'oi',
  'spot',
];

export interface ExpiredOptionsRequest {
  /** Default NSE_FNO. */
  exchangeSegment?: 'NSE_FNO' | 'BSE_FNO';
  /** Default 5. */
  interval?: IntradayInterval;
  /** The underlying's security id. */
  securityId: string;
  /** Default OPTIDX. */
  instrument?: 'OPTIDX' | 'OPTSTK';
  /** Default WEEK. */
  expiryFlag?: 'WEEK' | 'MONTH';
  /** 1 near, 2 next, 3 far; default 1. */
  expiryCode?: 1 | 2 | 3;
  /** ATM, ATM+1 .. ATM+10, ATM-1 .. ATM-10. */
  strike: string;
  /** Default CALL. */
  drvOptionType?: OptionType;
  requiredData: ExpiredOptionsField[];
  fromDate: string;
  toDate: string;
}
