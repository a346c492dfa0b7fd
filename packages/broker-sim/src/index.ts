// Public surface of @feedpipe/broker-sim: the market model, the live-feed server, and
// `createSimulator`, which starts them together (and a REST server beside them, through `rest`).

import { given, type OptionsSchema, readOptions } from '@feedpipe/config';
import type { FeedAuthenticate } from './feed/credentials.js';
import { FeedServer } from './feed/feed-server.js';
import type { FeedServerOptions } from './feed/options.js';
import { invalidOption, SimError } from './market/errors.js';
import { MarketModel, type MarketModelOptions } from './market/model.js';
import type { RestServerOptions } from './rest/options.js';
import { createRestServer, type RestServer } from './rest/server.js';

export {
  type AuthType,
  type ConnectionCounters,
  type ConnectionInfo,
  type ConnectParams,
  createMemoryAuthenticator,
  DEFAULT_FEED_CREDENTIALS,
  DEFAULT_IP_BLOCK_POLICY,
  type FeedAuthenticate,
  type FeedAuthFailureCode,
  type FeedAuthResult,
  type FeedCredentials,
  FeedFaults,
  FeedServer,
  type FeedServerOptions,
  type FeedStats,
  type FreshTradeOptions,
  type InstrumentSent,
  type IpBlockPolicy,
  type LoadOptions,
  parseConnectParams,
  type SimClientAccount,
  type SimPartner,
  startFeedServer,
  type UpgradeCounters,
  type UpgradeRefusalMode,
  validateCredentials,
} from './feed/index.js';
export {
  GLOBAL_STOCKS_EXCHANGE,
  INSTRUMENT_MASTER_PATHS,
  type MasterFile,
} from './instruments/index.js';
export {
  BSE_EQ_COUNT,
  INX_EQ_FIRST_ID,
  type Instrument,
  type LiveQuote,
  MARKET_STATUS_CODE,
  MARKET_TYPE_REGULAR,
  MarketModel,
  type MarketModelOptions,
  type MarketSession,
  NSE_EQ_COUNT,
  type SessionChange,
  type SessionCycle,
  SimError,
  type SimErrorCode,
  type SimSegment,
  sessionAt,
} from './market/index.js';
export {
  Account,
  createRestServer,
  type OrderEvents,
  type OrderRecord,
  type RateDecisionEvent,
  type RestServer,
  type RestServerOptions,
  ScriptedMarket,
  SIM_TEST_ACCOUNTS,
  type SimAccountSeed,
  SimRestError,
  TokenStore,
} from './rest/index.js';

/** What a REST server started beside the feed hands back to the simulator. */
export interface RestAttachment {
  /** `{base_url}` of the REST server. */
  baseUrl: string;
  /** `{auth_url}`, if it differs from the base URL. */
  authUrl?: string;
  /** The REST side's token check for the feed, so tokens it issues open feed connections too. */
  authenticateFeed?: FeedAuthenticate;
  /** The REST server itself, when it is this package's (tests and the runner reach its state). */
  server?: RestServer;
  close(): Promise<void>;
}

/** Starts a REST server over the shared model; called before the feed starts. */
export type RestHook = (context: {
  model: MarketModel;
  host: string;
}) => RestAttachment | Promise<RestAttachment>;

export interface SimulatorOptions {
  /** Market seed. Default 1. */
  seed?: number;
  /** INX_EQ instruments. Default 30 000. */
  instruments?: number;
  /** Model clock, epoch ms. Default Date.now. */
  now?: () => number;
  /** Session cycle. Default: always open. */
  sessions?: MarketModelOptions['sessions'];
  /**
   * Feed server options besides the model. Default: port 7075 on 127.0.0.1, live mode, fresh trades
   * as SIMULATOR_FRESH_TRADES (startFeedServer alone has none). The feed
   * authenticates with, in order of precedence: `feed.authenticate`, the REST server's
   * `authenticateFeed`, the configured or default test credentials.
   */
  feed?: Omit<FeedServerOptions, 'model'>;
  /** Optional REST server started beside the feed over the same model. Default: none. */
  rest?: RestHook;
}

export interface Simulator {
  readonly model: MarketModel;
  readonly feed: FeedServer;
  readonly rest: RestAttachment | undefined;
  /** Stops the feed, then the REST server. */
  close(): Promise<void>;
}

/**
 * The keys of SimulatorOptions: the seed's default is createSimulator's own; the others are read by
 * the MarketModel and the FeedServer they are handed to, so they are not declared twice.
 */
const SIMULATOR_OPTIONS = {
  seed: { kind: 'integer', min: 0, max: 0xffffffff, default: 1 },
  ...given('instruments', 'now', 'sessions', 'feed', 'rest'),
} as const satisfies OptionsSchema;

/**
 * createSimulator's default `feed.freshTrades`: a just-subscribed instrument trades right after its
 * snapshot, then 20 times a second more for 1 s (5 000 instruments: a burst of 100 000 trades in the
 * first second, within what the ingestor takes on the 2-core machine).
 */
export const SIMULATOR_FRESH_TRADES = Object.freeze({ perSecond: 20, forMs: 1_000 });

/** Builds the model and starts the feed (and the REST server, if `rest` is given) on loopback. */
export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const { seed } = readOptions(SIMULATOR_OPTIONS, options, { where: 'createSimulator', fail: invalidOption });
  if (options.rest !== undefined && typeof options.rest !== 'function') {
    throw new SimError(
      'INVALID_OPTION',
      'createSimulator: "rest" must be a function returning the REST attachment',
    );
  }
  const model = new MarketModel({
    seed,
    ...(options.instruments === undefined ? {} : { instruments: options.instruments }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.sessions === undefined ? {} : { sessions: options.sessions }),
  });
  // The whole simulator streams to just-subscribed instruments at once, as services that push the
  // moment a subscribe request lands do, so `npm start`, the benchmarks and the simulator CLI take
  // the ingestor through that on every (re)subscription; `freshTrades: { perSecond: 0 }` turns it off.
  const feedOptions: FeedServerOptions = {
    freshTrades: SIMULATOR_FRESH_TRADES,
    ...options.feed,
    model,
  };
  const rest =
    options.rest === undefined
      ? undefined
      : await options.rest({ model, host: feedOptions.host ?? '127.0.0.1' });
  if (
    rest?.authenticateFeed !== undefined &&
    feedOptions.authenticate === undefined &&
    feedOptions.credentials === undefined
  ) {
    feedOptions.authenticate = rest.authenticateFeed;
  }
  let feed: FeedServer;
  try {
    feed = await new FeedServer(feedOptions).start();
  } catch (error) {
    await rest?.close();
    throw error;
  }
  return {
    model,
    feed,
    rest,
    async close() {
      await feed.close();
      await rest?.close();
    },
  };
}

/**
 * The REST v2 simulator as a `rest` hook: it serves the same model as the feed, and the tokens it
 * issues (generateAccessToken, consent flows, renewals) open feed connections too.
 */
export function restServerHook(options: Omit<RestServerOptions, 'model' | 'host'> = {}): RestHook {
  return async ({ model, host }) => {
    const server = await createRestServer({ ...options, model, host });
    return {
      baseUrl: server.baseUrl,
      authUrl: server.authUrl,
      authenticateFeed: (clientId, token, authType) =>
        server.tokens.authenticateFeed(clientId, token, authType),
      server,
      close: () => server.close(),
    };
  };
}
