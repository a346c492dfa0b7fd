export { AuthApi, type GenerateTokenInput } from './auth/auth-api.js';
export { jwtExpiry, parseIstTimestamp, TOKEN_LIFETIME_MS } from './auth/expiry.js';
export { type HeldToken, TokenHolder, type TokenHolderOptions } from './auth/token-holder.js';
export { base32Decode, hotp, type TotpAlgorithm, type TotpOptions, totp } from './auth/totp.js';
export { BrokerClient, type BrokerClientOptions } from './client.js';
export type { BodyEncoding } from './core/body.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export { BrokerApiError, type BrokerApiErrorCode, isBrokerApiError } from './core/errors.js';
export type { WrittenOn } from './core/socket-write.js';
export type { CallSpec, FetchLike, HttpMethod, TokenSource } from './core/transport.js';
export { AccountApi } from './endpoints/account.js';
export { AlertsApi } from './endpoints/alerts.js';
export { EdisApi } from './endpoints/edis.js';
export { ForeverOrdersApi } from './endpoints/forever-orders.js';
export { FundsApi } from './endpoints/funds.js';
export { GlobalStocksApi } from './endpoints/global-stocks.js';
export {
  EXPIRED_OPTIONS_YEARS,
  type ExpiredOptions,
  HistoryApi,
  MAX_EXPIRED_OPTIONS_DAYS,
  MAX_INTRADAY_DAYS,
} from './endpoints/history.js';
export {
  MAX_SNAPSHOT_INSTRUMENTS,
  MarketSnapshotApi,
  splitSnapshotRequest,
} from './endpoints/market-snapshot.js';
export { OptionChainApi, type OptionChainRow, optionChainRows } from './endpoints/option-chain.js';
export { normalizeOrder, OrdersApi } from './endpoints/orders.js';
export { PortfolioApi } from './endpoints/portfolio.js';
export { SuperOrdersApi } from './endpoints/super-orders.js';
export { TradesApi } from './endpoints/trades.js';
export { type CandleField, Candles, candlesFrom } from './market/candles.js';
export { type ColumnRow, ColumnSet, mergeColumns, type RawColumns } from './market/columns.js';
export { type DateRange, istDate, splitDateRange } from './market/date-ranges.js';
export {
  DEFAULT_LIMITS,
  DEFAULT_MAX_MODIFICATIONS_PER_ORDER,
  DEFAULT_OPTION_CHAIN_INTERVAL_MS,
  defaultCategoryOf,
  RATE_CATEGORIES,
  type RateCategory,
  type WindowLimit,
} from './rate/categories.js';
export { RATE_GRANT_CHANNEL, type RateGrantEvent } from './rate/grant-channel.js';
export { type CategoryStats, RateLimiter, type RateLimiterOptions, type Release } from './rate/limiter.js';
export { ModificationCounter } from './rate/modification-counter.js';
export { DEFAULT_QUOTE_MARGIN_MS, sharedQuoteLimiter } from './rate/quote-limiter.js';
export type { SharedSlots, SlotClaim, SlotTicket } from './rate/shared-slots.js';
export type * from './types/account.js';
export type * from './types/auth.js';
export type * from './types/edis.js';
export type * from './types/enums.js';
export type * from './types/funds.js';
export type * from './types/global-stocks.js';
export type * from './types/market-data.js';
export {
  EXPIRED_OPTIONS_FIELDS,
  INTRADAY_INTERVALS,
  SNAPSHOT_SEGMENTS,
} from './types/market-data.js';
export type * from './types/orders.js';
export type * from './types/portfolio.js';
