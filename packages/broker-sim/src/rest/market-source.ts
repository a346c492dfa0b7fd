/**
 * What the REST simulator reads from the market model. A structural copy of the market model
 * contract (packages/broker-sim/src/market), so `MarketModel` satisfies it as is and tests can pass
 * a small fake; the REST side never depends on the model's internals.
 */
export type SimSegment = 'INX_EQ' | 'NSE_EQ' | 'BSE_EQ' | 'NSE_FNO' | 'IDX_I';

export interface SimInstrument {
  readonly securityId: number;
  readonly symbol: string;
  readonly exchangeSegment: SimSegment;
  readonly instrumentType: 'EQUITY' | 'INDEX';
  readonly tickSize: number;
  readonly lotSize: number;
  readonly inceptionDate: string;
  readonly isin: string;
}

export interface SimQuote {
  readonly securityId: number;
  readonly ltp: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly prevClose: number;
  readonly volume: number;
  readonly lastTradeTime: number;
  readonly lastUpdateTime: number;
  readonly upperCircuit: number;
  readonly lowerCircuit: number;
  readonly week52High: number;
  readonly week52Low: number;
}

export interface MarketSource {
  readonly seed: number;
  readonly universe: readonly SimInstrument[];
  instrument(securityId: number): SimInstrument | undefined;
  quote(securityId: number): SimQuote | undefined;
  session(): 'PRE_OPEN' | 'OPEN' | 'CLOSED';
}
