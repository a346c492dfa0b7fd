/** Segments the simulated universe holds. The live feed serves INX_EQ only; the rest are for REST data. */
export type SimSegment = 'INX_EQ' | 'NSE_EQ' | 'BSE_EQ' | 'NSE_FNO' | 'IDX_I';

export interface Instrument {
  /** Unique across the whole universe. */
  securityId: number;
  /** Deterministic trading symbol: four letters for INX_EQ, Indian-style names for NSE/BSE, index names. */
  symbol: string;
  exchangeSegment: SimSegment;
  instrumentType: 'EQUITY' | 'INDEX';
  /** 0.01 for INX_EQ and indices, 0.05 for NSE_EQ and BSE_EQ. */
  tickSize: number;
  lotSize: number;
  /** YYYY-MM-DD, first trading day (daily candles start there). */
  inceptionDate: string;
  isin: string;
}

export interface LiveQuote {
  securityId: number;
  ltp: number;
  /** 0 until the first trade of the day. */
  open: number;
  high: number;
  low: number;
  prevClose: number;
  /** Cumulative for the day; strictly increases with every trade of the instrument. */
  volume: number;
  /** Epoch seconds (LTT); 0 means never traded. */
  lastTradeTime: number;
  /** Epoch seconds (LUT). */
  lastUpdateTime: number;
  /** 0 while the instrument has no reference values yet (see `MarketModel.hasReference`). */
  upperCircuit: number;
  lowerCircuit: number;
  week52High: number;
  week52Low: number;
}

export type MarketSession = 'PRE_OPEN' | 'OPEN' | 'CLOSED';

export interface SessionChange {
  from: MarketSession;
  to: MarketSession;
  /** Epoch ms of the model clock when the change was observed. */
  atMs: number;
}
