export { type ConnectParams, parseConnectParams } from './connect-params.js';
export type { ConnectionCounters, ConnectionInfo } from './connection.js';
export {
  type AuthType,
  createMemoryAuthenticator,
  DEFAULT_FEED_CREDENTIALS,
  type FeedAuthenticate,
  type FeedAuthFailureCode,
  type FeedAuthResult,
  type FeedCredentials,
  type SimClientAccount,
  type SimPartner,
  validateCredentials,
} from './credentials.js';
export { FeedFaults, type UpgradeRefusalMode } from './faults.js';
export type { InstrumentSent } from './feed-counters.js';
export { FeedServer, type FeedStats, startFeedServer } from './feed-server.js';
export { DEFAULT_IP_BLOCK_POLICY, type IpBlockPolicy } from './ip-guard.js';
export type { FeedServerOptions, FreshTradeOptions, LoadOptions } from './options.js';
export type { UpgradeCounters } from './upgrade-gate.js';
