import type { Holding, Order, Position, Trade } from '@feedpipe/broker-api';

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

/**
 * A wire record as the simulator sends it: the client's type (a type-only import, so the simulator
 * runs none of the client's code), every field present because the simulator always writes them all
 * ('' or 0 where a real record may leave one out), and the fields named in `Sent` as the simulator
 * spells them.
 */
export type SentRecord<Wire, Sent> = Required<Omit<Wire, keyof Sent>> & Sent;

/** The option type is '' on every record the simulator makes: it books no option contracts here. */
interface SentSegmentFields {
  exchangeSegment: OrderSegment;
  drvOptionType: string;
}

export type OrderRecord = SentRecord<Order, SentSegmentFields & { legName: LegName | '' }>;

export type TradeRecord = SentRecord<
  Trade,
  SentSegmentFields & {
    /** Not on the wire: epoch ms of the fill, for the trade-history date range. */
    readonly atMs: number;
    readonly isin: string;
  }
>;

export type PositionRecord = SentRecord<Position, SentSegmentFields>;

/** The simulator holds shares on the two equity exchanges only. */
export type HoldingRecord = SentRecord<Holding, { exchange: 'NSE' | 'BSE' }>;

/** Rounds money to paise so sums of fills do not drift. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
