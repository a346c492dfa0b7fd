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

/**
 * Why an instrument's subscription was not live (docs/architecture.md, "The ledger of gaps"):
 * - connection_down: the server or the network closed the connection, or it went silent (stale);
 * - reconnect_pending: the ingestor closed it itself to reconnect (for a reason other than the token);
 * - eviction: Error 805, another session took the connection slot;
 * - token_renewal: the token was renewed (refused by the service: 807, or 808/809 after a renewal; or
 *   renewed ahead of expiry) and the connection reconnected with the new one;
 * - backpressure: reading was paused because Kafka did not take the records fast enough;
 * - process_stopped: the ingestor was not running;
 * - stale: no trade for the configured time while the instrument's market was open;
 * - handover: a planned handover from one ingestor process to its standby moved the connection
 *   (added in the same schema version: readers that list causes must accept new ones);
 * - failover: the leading ingestor died or froze and a standby took over.
 */
export const GAP_CAUSES = [
  'connection_down',
  'reconnect_pending',
  'eviction',
  'token_renewal',
  'backpressure',
  'process_stopped',
  'stale',
  'handover',
  'failover',
] as const;

export type GapCause = (typeof GAP_CAUSES)[number];

/**
 * One closed interval in which an instrument's subscription was not live, written by the ingestor
 * itself (not decoded from the feed, so not a `FeedRecord`). Times are epoch microseconds.
 */
export interface GapRecord {
  type: 'gap';
  segment: number;
  securityId: number;
  /** Which subscription of the instrument: 'trade' or 'ohlc'. */
  subscription: 'trade' | 'ohlc';
  cause: GapCause;
  startedAt: number;
  endedAt: number;
  /** The ingestor's connection index (0-4) that holds the subscription. */
  connection: number;
}
