/**
 * Options of the feed server, validated once at construction. Every default is documented here and
 * in the README; unknown keys are rejected.
 */
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { SimError } from '../market/errors.js';
import type { MarketModel } from '../market/model.js';
import {
  functionOption,
  integerOption,
  numberOption,
  objectOption,
  rejectUnknownKeys,
} from '../market/option-checks.js';
import {
  createMemoryAuthenticator,
  DEFAULT_FEED_CREDENTIALS,
  type FeedAuthenticate,
  type FeedCredentials,
  validateCredentials,
} from './credentials.js';
import { DEFAULT_IP_BLOCK_POLICY, type IpBlockPolicy } from './ip-guard.js';

export interface LoadOptions {
  /** Target packets per second across all subscriptions (every subscriber's copy counts). Required. */
  packetsPerSecond: number;
  /** Generation tick, ms. Default 2: a few thousand packets per tick at millions per second. */
  tickIntervalMs?: number;
}

export interface FreshTradeOptions {
  /** Trades per second of each just-subscribed instrument. Required. */
  perSecond: number;
  /** How long after its subscription an instrument trades at that rate, ms. Default 2000. */
  forMs?: number;
}

export interface FeedServerOptions {
  /** The market the feed publishes. Required. */
  model: MarketModel;
  /** Listen address. Default '127.0.0.1' (loopback only). */
  host?: string;
  /** Listen port. Default 7075 (the spec's self-hosted port); 0 picks a free port. */
  port?: number;
  /** Credential check. Default: `createMemoryAuthenticator(credentials)`. */
  authenticate?: FeedAuthenticate;
  /** Accounts of the default check. Default `DEFAULT_FEED_CREDENTIALS`. Not with `authenticate`. */
  credentials?: FeedCredentials;
  /** Interval between server pings, ms. Default 10 000. */
  pingIntervalMs?: number;
  /** Consecutive unanswered pings that close a connection. Default 4. */
  maxMissedPings?: number;
  /** Concurrent connections per client id; one more evicts the oldest with error 805. Default 5. */
  maxConnectionsPerClient?: number;
  /** Concurrent connections in total; beyond it upgrades get HTTP 503. Default 1000. */
  maxConnections?: number;
  /** Subscriptions (trade and OHLC counted separately) per connection. Default 5000. */
  maxSubscriptionsPerConnection?: number;
  /** Blocking of addresses after repeated invalid attempts. Default 10 attempts / 60 s window / 60 s block. */
  ipBlock?: Partial<IpBlockPolicy>;
  /** 'timer': ticks run on timers. 'manual': nothing is generated until `step()` is called. Default 'timer'. */
  ticks?: 'timer' | 'manual';
  /** Live-mode tick, ms. Default 100. */
  tickIntervalMs?: number;
  /** Live mode: mean trades per second per subscribed instrument. Default 2. */
  tradesPerSecond?: number;
  /** Packets per WebSocket message at most (4 or more: one trade snapshot is never split). Default 400 (~10 KB). */
  maxPacketsPerMessage?: number;
  /**
   * A connection whose socket holds more than this many unsent bytes gets no new market data until
   * it drains (counted as skipped), so a slow client cannot grow the server's memory. Default 4 MiB.
   */
  maxBufferedBytes?: number;
  /** Load mode: replaces live trading with a target packet rate. Default undefined (live mode). */
  load?: LoadOptions;
  /**
   * Trades of just-subscribed instruments, the way a service that streams the moment a subscribe
   * request lands does: each instrument of a Subscribe Trade request trades right after its
   * snapshot, then `perSecond` times a second more (beside the live or load rate) for `forMs`.
   * Default undefined: off (trades come with the ticks only).
   */
  freshTrades?: FreshTradeOptions;
  /**
   * How often the credentials of open connections are checked again, ms: a connection whose token
   * has expired (or was replaced by a renewal) gets Error 807 and is closed, as the service does.
   * Default 1000; 0 checks only at connect.
   */
  tokenCheckIntervalMs?: number;
}

export interface ResolvedFeedOptions {
  model: MarketModel;
  host: string;
  port: number;
  authenticate: FeedAuthenticate;
  pingIntervalMs: number;
  maxMissedPings: number;
  maxConnectionsPerClient: number;
  maxConnections: number;
  maxSubscriptionsPerConnection: number;
  ipBlock: IpBlockPolicy;
  ticks: 'timer' | 'manual';
  tickIntervalMs: number;
  tradesPerSecond: number;
  maxPacketsPerMessage: number;
  maxBufferedBytes: number;
  load: Required<LoadOptions> | undefined;
  freshTrades: Required<FreshTradeOptions> | undefined;
  tokenCheckIntervalMs: number;
}

const WHERE = 'FeedServer';
const KEYS = [
  'model',
  'host',
  'port',
  'authenticate',
  'credentials',
  'pingIntervalMs',
  'maxMissedPings',
  'maxConnectionsPerClient',
  'maxConnections',
  'maxSubscriptionsPerConnection',
  'ipBlock',
  'ticks',
  'tickIntervalMs',
  'tradesPerSecond',
  'maxPacketsPerMessage',
  'maxBufferedBytes',
  'load',
  'freshTrades',
  'tokenCheckIntervalMs',
];

export function resolveLoadOptions(value: unknown): Required<LoadOptions> | undefined {
  const raw = objectOption(WHERE, 'load', value);
  if (raw === undefined) return undefined;
  rejectUnknownKeys(`${WHERE}.load`, raw, ['packetsPerSecond', 'tickIntervalMs']);
  if (raw.packetsPerSecond === undefined) {
    throw new SimError('INVALID_OPTION', `${WHERE}: "load.packetsPerSecond" is required`);
  }
  return {
    packetsPerSecond: numberOption(WHERE, 'load.packetsPerSecond', raw.packetsPerSecond, 0, 0, 100_000_000),
    tickIntervalMs: integerOption(WHERE, 'load.tickIntervalMs', raw.tickIntervalMs, 2, 1, 1_000),
  };
}

/** The options' shape: an object with a model, no unknown key, one credential check at most. */
function checkShape(options: FeedServerOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new SimError('INVALID_OPTION', `${WHERE}: options must be an object with a "model"`);
  }
  rejectUnknownKeys(WHERE, options, KEYS);
  if (
    typeof options.model !== 'object' ||
    options.model === null ||
    typeof options.model.trade !== 'function'
  ) {
    throw new SimError('INVALID_OPTION', `${WHERE}: "model" must be a MarketModel`);
  }
  if (options.authenticate !== undefined && options.credentials !== undefined) {
    throw new SimError('INVALID_OPTION', `${WHERE}: give "authenticate" or "credentials", not both`);
  }
}

function resolveIpBlock(value: unknown): IpBlockPolicy {
  const raw = objectOption(WHERE, 'ipBlock', value) ?? {};
  rejectUnknownKeys(`${WHERE}.ipBlock`, raw, ['maxInvalidAttempts', 'windowMs', 'blockMs']);
  const defaults = DEFAULT_IP_BLOCK_POLICY;
  return {
    maxInvalidAttempts: integerOption(
      WHERE,
      'ipBlock.maxInvalidAttempts',
      raw.maxInvalidAttempts,
      defaults.maxInvalidAttempts,
      0,
      1_000_000,
    ),
    windowMs: integerOption(WHERE, 'ipBlock.windowMs', raw.windowMs, defaults.windowMs, 1, 86_400_000),
    blockMs: integerOption(WHERE, 'ipBlock.blockMs', raw.blockMs, defaults.blockMs, 0, 86_400_000),
  };
}

type ConnectionLimits = Pick<
  ResolvedFeedOptions,
  | 'pingIntervalMs'
  | 'maxMissedPings'
  | 'maxConnectionsPerClient'
  | 'maxConnections'
  | 'maxSubscriptionsPerConnection'
  | 'maxPacketsPerMessage'
  | 'maxBufferedBytes'
  | 'tokenCheckIntervalMs'
>;

/** What one connection and all of them together may hold, and how often they are checked. */
function resolveConnectionLimits(options: FeedServerOptions): ConnectionLimits {
  return {
    pingIntervalMs: integerOption(WHERE, 'pingIntervalMs', options.pingIntervalMs, 10_000, 5, 3_600_000),
    maxMissedPings: integerOption(WHERE, 'maxMissedPings', options.maxMissedPings, 4, 1, 1_000),
    maxConnectionsPerClient: integerOption(
      WHERE,
      'maxConnectionsPerClient',
      options.maxConnectionsPerClient,
      5,
      1,
      1_000,
    ),
    maxConnections: integerOption(WHERE, 'maxConnections', options.maxConnections, 1_000, 1, 100_000),
    maxSubscriptionsPerConnection: integerOption(
      WHERE,
      'maxSubscriptionsPerConnection',
      options.maxSubscriptionsPerConnection,
      MAX_SUBSCRIPTIONS_PER_CONNECTION,
      1,
      1_000_000,
    ),
    maxPacketsPerMessage: integerOption(
      WHERE,
      'maxPacketsPerMessage',
      options.maxPacketsPerMessage,
      400,
      4,
      100_000,
    ),
    maxBufferedBytes: integerOption(
      WHERE,
      'maxBufferedBytes',
      options.maxBufferedBytes,
      4 * 1024 * 1024,
      1_024,
      1024 * 1024 * 1024,
    ),
    tokenCheckIntervalMs: integerOption(
      WHERE,
      'tokenCheckIntervalMs',
      options.tokenCheckIntervalMs,
      1_000,
      0,
      3_600_000,
    ),
  };
}

export function resolveFreshTradeOptions(value: unknown): Required<FreshTradeOptions> | undefined {
  const raw = objectOption(WHERE, 'freshTrades', value);
  if (raw === undefined) return undefined;
  rejectUnknownKeys(`${WHERE}.freshTrades`, raw, ['perSecond', 'forMs']);
  if (raw.perSecond === undefined) {
    throw new SimError('INVALID_OPTION', `${WHERE}: "freshTrades.perSecond" is required`);
  }
  return {
    perSecond: numberOption(WHERE, 'freshTrades.perSecond', raw.perSecond, 0, 0, 10_000),
    forMs: integerOption(WHERE, 'freshTrades.forMs', raw.forMs, 2_000, 0, 3_600_000),
  };
}

type Generation = Pick<
  ResolvedFeedOptions,
  'ticks' | 'tickIntervalMs' | 'tradesPerSecond' | 'load' | 'freshTrades'
>;

/** How market data is made: live trading on timers or by `step()`, or a target packet rate. */
function resolveGeneration(options: FeedServerOptions): Generation {
  const ticks = options.ticks ?? 'timer';
  if (ticks !== 'timer' && ticks !== 'manual') {
    throw new SimError('INVALID_OPTION', `${WHERE}: "ticks" must be 'timer' or 'manual'`);
  }
  return {
    ticks,
    tickIntervalMs: integerOption(WHERE, 'tickIntervalMs', options.tickIntervalMs, 100, 1, 60_000),
    tradesPerSecond: numberOption(WHERE, 'tradesPerSecond', options.tradesPerSecond, 2, 0, 1_000_000),
    load: resolveLoadOptions(options.load),
    freshTrades: resolveFreshTradeOptions(options.freshTrades),
  };
}

export function resolveFeedOptions(options: FeedServerOptions): ResolvedFeedOptions {
  checkShape(options);
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host.length === 0) {
    throw new SimError('INVALID_OPTION', `${WHERE}: "host" must be a non-empty string`);
  }
  const model = options.model;
  const credentials =
    options.credentials === undefined ? DEFAULT_FEED_CREDENTIALS : validateCredentials(options.credentials);
  return {
    model,
    host,
    port: integerOption(WHERE, 'port', options.port, 7075, 0, 65_535),
    authenticate: functionOption(
      WHERE,
      'authenticate',
      options.authenticate,
      createMemoryAuthenticator(credentials, () => model.now()),
    ),
    ...resolveConnectionLimits(options),
    ipBlock: resolveIpBlock(options.ipBlock),
    ...resolveGeneration(options),
  };
}
