/** Public surface of the REST simulator (auth, account, orders, portfolio, market data, history). */
export { Account, IP_LOCK_MS } from '../accounts/account.js';
export { DEFAULT_MATCHING, MAX_MODIFICATIONS, type MatchingOptions } from '../accounts/order-book.js';
export type { OrderEvents } from '../accounts/registry.js';
export { SIM_TEST_ACCOUNTS, type SimAccountSeed } from '../accounts/seeds.js';
export type {
  HoldingRecord,
  OrderRecord,
  PositionRecord,
  TradeRecord,
} from '../accounts/types.js';
export { type DataCode, type DhCode, type ErrorBody, SimRestError } from './errors.js';
export type { MarketSource, SimInstrument, SimQuote, SimSegment } from './market-source.js';
export type { RateDecisionEvent, RestServerOptions } from './options.js';
export {
  categoryOf,
  OPTION_CHAIN_REPEAT_MS,
  RATE_LIMITS,
  type RateCategory,
  type RateWindow,
} from './rate-limits.js';
export { ScriptedMarket } from './scripted-market.js';
export { createRestServer, type RestServer } from './server.js';
export {
  type FeedAuthResult,
  TOKEN_VALIDITY_MS,
  type TokenCheck,
  type TokenClaims,
  TokenStore,
} from './tokens.js';
export { base32Decode, hotp, totpAt, verifyTotp } from './totp.js';
