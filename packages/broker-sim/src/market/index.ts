export { SimError, type SimErrorCode } from './errors.js';
export { MarketModel, type MarketModelOptions } from './model.js';
export { MARKET_STATUS_CODE, MARKET_TYPE_REGULAR, type SessionCycle, sessionAt } from './sessions.js';
export type { Instrument, LiveQuote, MarketSession, SessionChange, SimSegment } from './types.js';
export { BSE_EQ_COUNT, INX_EQ_FIRST_ID, NSE_EQ_COUNT } from './universe.js';
