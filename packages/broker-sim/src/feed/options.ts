/**
 * Options of the feed server, read once at construction by readOptions. Every default is documented here and
 * in the README; unknown keys are rejected.
 */
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '@feedpipe/codec';
import { given, type OptionsSchema, readOptions, section } from '@feedpipe/config';
import { invalidOption } from '../market/errors.js';
import type { MarketModel } from '../market/model.js';
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

/** A limit of the connections: an integer from `min` to `max`, `value` when not given. */
function limit(min: number, max: number, value: number) {
  return { kind: 'integer', min, max, default: value } as const;
}

/** Every key of FeedServerOptions (documented there), with its range and default. */
const FEED_OPTIONS = {
  // Checked by resolveFeedOptions: anything that trades like a MarketModel.
  model: { kind: 'given', required: true },
  host: { kind: 'string', default: '127.0.0.1' },
  port: { kind: 'integer', min: 0, max: 65_535, default: 7075 },
  // A function (checked by resolveFeedOptions) and the accounts of the default one (validateCredentials).
  ...given('authenticate', 'credentials'),
  pingIntervalMs: limit(5, 3_600_000, 10_000),
  maxMissedPings: limit(1, 1_000, 4),
  maxConnectionsPerClient: limit(1, 1_000, 5),
  maxConnections: limit(1, 100_000, 1_000),
  maxSubscriptionsPerConnection: limit(1, 1_000_000, MAX_SUBSCRIPTIONS_PER_CONNECTION),
  ipBlock: section({
    maxInvalidAttempts: {
      kind: 'integer',
      min: 0,
      max: 1_000_000,
      default: DEFAULT_IP_BLOCK_POLICY.maxInvalidAttempts,
    },
    windowMs: { kind: 'integer', min: 1, max: 86_400_000, default: DEFAULT_IP_BLOCK_POLICY.windowMs },
    blockMs: { kind: 'integer', min: 0, max: 86_400_000, default: DEFAULT_IP_BLOCK_POLICY.blockMs },
  }),
  ticks: { kind: 'enum', values: ['timer', 'manual'], default: 'timer' },
  tickIntervalMs: { kind: 'integer', min: 1, max: 60_000, default: 100 },
  tradesPerSecond: { kind: 'number', min: 0, max: 1_000_000, default: 2 },
  maxPacketsPerMessage: limit(4, 100_000, 400),
  maxBufferedBytes: limit(1_024, 1024 * 1024 * 1024, 4 * 1024 * 1024),
  // Off unless given, and complete when given: each has a reader of its own below.
  ...given('load', 'freshTrades'),
  tokenCheckIntervalMs: limit(0, 3_600_000, 1_000),
} as const satisfies OptionsSchema;

const LOAD_OPTIONS = {
  packetsPerSecond: { kind: 'number', min: 0, max: 100_000_000, required: true },
  tickIntervalMs: { kind: 'integer', min: 1, max: 1_000, default: 2 },
} as const satisfies OptionsSchema;

const FRESH_TRADE_OPTIONS = {
  perSecond: { kind: 'number', min: 0, max: 10_000, required: true },
  forMs: { kind: 'integer', min: 0, max: 3_600_000, default: 2_000 },
} as const satisfies OptionsSchema;

/** Load mode's options (also given to a running server by `setLoad`), or undefined for live mode. */
export function resolveLoadOptions(value: LoadOptions | undefined): Required<LoadOptions> | undefined {
  if (value === undefined) return undefined;
  return readOptions(LOAD_OPTIONS, value, { where: `${WHERE}.load`, fail: invalidOption });
}

export function resolveFeedOptions(options: FeedServerOptions): ResolvedFeedOptions {
  // The given keys are read below; the rest are settled values.
  const {
    model: _model,
    authenticate: _auth,
    credentials: _accounts,
    load: _load,
    freshTrades: _fresh,
    ...v
  } = readOptions(FEED_OPTIONS, options, { where: WHERE, fail: invalidOption });
  const model = options.model;
  if (typeof model !== 'object' || model === null || typeof model.trade !== 'function') {
    throw invalidOption(`${WHERE}: "model" must be a MarketModel`);
  }
  if (options.authenticate !== undefined && options.credentials !== undefined) {
    throw invalidOption(`${WHERE}: give "authenticate" or "credentials", not both`);
  }
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') {
    throw invalidOption(`${WHERE}: "authenticate" must be a function`);
  }
  const credentials =
    options.credentials === undefined ? DEFAULT_FEED_CREDENTIALS : validateCredentials(options.credentials);
  return {
    ...v,
    model,
    authenticate: options.authenticate ?? createMemoryAuthenticator(credentials, () => model.now()),
    load: resolveLoadOptions(options.load),
    freshTrades:
      options.freshTrades === undefined
        ? undefined
        : readOptions(FRESH_TRADE_OPTIONS, options.freshTrades, {
            where: `${WHERE}.freshTrades`,
            fail: invalidOption,
          }),
  };
}
