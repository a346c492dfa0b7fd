/**
 * The quote record: one instrument's full snapshot quote (/marketfeed/quote) as the quote poller
 * publishes it on the quotes topic (default `feed.quotes`) and stores it in market.quotes. Keyed by
 * the security id, so one instrument's quotes keep their order in a partition. Defined once here,
 * with the meaning of every field; the JSON Schema (record-schemas/quote-schema.ts) is generated
 * from it.
 */

export type QuoteFieldKind =
  | 'securityId'
  | 'segment'
  | 'epochMillis'
  | 'epochSecondsOrNull'
  | 'price'
  | 'count'
  | 'depth';

export const QUOTE_FIELDS = Object.freeze({
  securityId: { kind: 'securityId', description: 'security id of the instrument' },
  exchangeSegment: {
    kind: 'segment',
    description: 'exchange segment the quote was asked for (NSE_EQ, NSE_FNO, BSE_EQ, IDX_I)',
  },
  polledAt: {
    kind: 'epochMillis',
    description: 'when the poller received the answer, UTC epoch milliseconds',
  },
  lastPrice: { kind: 'price', description: 'last traded price' },
  lastQuantity: { kind: 'count', description: 'quantity of the last trade' },
  lastTradeTime: {
    kind: 'epochSecondsOrNull',
    description:
      "time of the last trade, UTC epoch seconds (the service's IST text converted); null for an instrument not traded yet",
  },
  averagePrice: { kind: 'price', description: 'average traded price of the day' },
  volume: { kind: 'count', description: 'traded volume of the day' },
  buyQuantity: { kind: 'count', description: 'total quantity of pending buy orders' },
  sellQuantity: { kind: 'count', description: 'total quantity of pending sell orders' },
  open: { kind: 'price', description: 'day open price' },
  high: { kind: 'price', description: 'day high price' },
  low: { kind: 'price', description: 'day low price' },
  close: { kind: 'price', description: "previous close price (the service's ohlc.close)" },
  netChange: { kind: 'price', description: 'change of the last price against the previous close' },
  upperCircuitLimit: { kind: 'price', description: 'upper circuit limit (0 when the service gives none)' },
  lowerCircuitLimit: { kind: 'price', description: 'lower circuit limit (0 when the service gives none)' },
  oi: { kind: 'count', description: 'open interest (derivatives; 0 otherwise)' },
  oiDayHigh: { kind: 'count', description: 'day high of open interest' },
  oiDayLow: { kind: 'count', description: 'day low of open interest' },
  bids: { kind: 'depth', description: 'buy side of the depth, best first (five levels from the service)' },
  asks: { kind: 'depth', description: 'sell side of the depth, best first (five levels from the service)' },
} as const satisfies Record<string, { kind: QuoteFieldKind; description: string }>);

export type QuoteField = keyof typeof QUOTE_FIELDS;

/** One level of the depth. */
export interface DepthLevel {
  price: number;
  quantity: number;
  orders: number;
}

export interface QuoteRecord {
  securityId: number;
  exchangeSegment: string;
  polledAt: number;
  lastPrice: number;
  lastQuantity: number;
  lastTradeTime: number | null;
  averagePrice: number;
  volume: number;
  buyQuantity: number;
  sellQuantity: number;
  open: number;
  high: number;
  low: number;
  close: number;
  netChange: number;
  upperCircuitLimit: number;
  lowerCircuitLimit: number;
  oi: number;
  oiDayHigh: number;
  oiDayLow: number;
  bids: DepthLevel[];
  asks: DepthLevel[];
}

/** Depth levels the service sends per side. */
export const DEPTH_LEVELS = 5;
