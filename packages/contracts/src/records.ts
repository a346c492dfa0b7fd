/**
 * Decoded record shapes (docs/architecture.md, "Decoded records"): one shape everywhere (codec output,
 * Kafka values, the decode CLI). `segment` is the numeric wire value; times stay epoch seconds.
 */
export interface TradeRecord {
  type: 'trade';
  segment: number;
  securityId: number;
  ltp: number;
  volume: number;
  ltt: number;
  lut: number;
}
export interface OhlcRecord {
  type: 'ohlc';
  segment: number;
  securityId: number;
  open: number;
  close: number;
  high: number;
  low: number;
}
export interface PrevCloseRecord {
  type: 'prev_close';
  segment: number;
  securityId: number;
  prevClose: number;
}
export interface CircuitLimitRecord {
  type: 'circuit_limit';
  segment: number;
  securityId: number;
  upper: number;
  lower: number;
}
export interface Week52Record {
  type: 'week52';
  segment: number;
  securityId: number;
  high: number;
  low: number;
}
export interface MarketStatusRecord {
  type: 'market_status';
  segment: number;
  securityId: number;
  marketType: [number, number, number];
  status: number;
}
export interface ErrorRecord {
  type: 'error';
  segment: number;
  securityId: number;
  code: number;
}
export type FeedRecord =
  | TradeRecord
  | OhlcRecord
  | PrevCloseRecord
  | CircuitLimitRecord
  | Week52Record
  | MarketStatusRecord
  | ErrorRecord;

export type FeedRecordType = FeedRecord['type'];
