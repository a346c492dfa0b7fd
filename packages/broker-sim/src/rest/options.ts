/** REST simulator options, validated once: unknown keys and bad values are refused by name. */
import { DEFAULT_MATCHING, type MatchingOptions } from '../accounts/order-book.js';
import { SIM_TEST_ACCOUNTS, type SimAccountSeed } from '../accounts/seeds.js';
import {
  type PostbackOptions,
  type ResolvedPostbackOptions,
  resolvePostbackOptions,
} from '../postbacks/options.js';
import type { MarketSource } from './market-source.js';
import type { RateCategory } from './rate-limits.js';
import { TOKEN_VALIDITY_MS, type TokenPolicy } from './tokens.js';

export interface RestServerOptions {
  /** The market model (or anything shaped like it) prices and instruments come from. Required. */
  model: MarketSource;
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Listen port. Default 0 (ephemeral). */
  port?: number;
  /** Clock in epoch ms for token expiry, rate windows, the 7-day IP lock and day budgets. Default Date.now. */
  now?: () => number;
  /** Enforce the spec's rate limits with 429 + DH-904. Default true. */
  rateLimits?: boolean;
  /** Accounts that exist. Default SIM_TEST_ACCOUNTS. */
  accounts?: readonly SimAccountSeed[];
  /** Order matching: tick length, liquidity per tick, freeze quantity. Defaults in DEFAULT_MATCHING. */
  matching?: Partial<MatchingOptions>;
  /** Period of the background matching pass in real ms (0 = only on requests). Default 200. */
  matchIntervalMs?: number;
  /** Postback delivery: retry, give-up and queue bounds. Defaults in DEFAULT_POSTBACK_OPTIONS. */
  postbacks?: PostbackOptions;
  /** Lifetime of every access token, ms (1000..86,400,000). Default 24 h, the spec's; short for soak tests. */
  tokenLifetimeMs?: number;
  /**
   * Issuing a token (generateAccessToken, a consent, RenewToken) ends the account's previous one at
   * once, as the service keeps one token per account. Default false, so tests may hold several.
   */
  oneTokenPerAccount?: boolean;
  /**
   * Told of every request the rate limits judged: when it arrived and whether it was allowed (what
   * the service counted, for a benchmark that measures how late requests arrive). Default none.
   */
  onRateDecision?: (decision: RateDecisionEvent) => void;
}

export interface RateDecisionEvent {
  readonly clientId: string;
  readonly category: RateCategory;
  /** When the request's head arrived, on the simulator's clock. */
  readonly arrivedAt: number;
  readonly allowed: boolean;
}

export interface ResolvedOptions {
  readonly model: MarketSource;
  readonly host: string;
  readonly port: number;
  readonly now: () => number;
  readonly rateLimits: boolean;
  readonly accounts: readonly SimAccountSeed[];
  readonly matching: MatchingOptions;
  readonly matchIntervalMs: number;
  readonly postbacks: ResolvedPostbackOptions;
  readonly tokenPolicy: TokenPolicy;
  readonly onRateDecision: ((decision: RateDecisionEvent) => void) | undefined;
}

const KEYS = [
  'model',
  'host',
  'port',
  'now',
  'rateLimits',
  'accounts',
  'matching',
  'matchIntervalMs',
  'postbacks',
  'tokenLifetimeMs',
  'oneTokenPerAccount',
  'onRateDecision',
];
const MATCHING_KEYS = ['tickMs', 'liquidityPerTick', 'freezeQuantity'];

function fail(message: string): never {
  throw new TypeError(`createRestServer: ${message}`);
}

function positiveInt(name: string, v: unknown, dflt: number, min = 1): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(`${name} must be an integer >= ${min}`);
  return v;
}

export function resolveOptions(options: RestServerOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  for (const k of Object.keys(options))
    if (!KEYS.includes(k)) fail(`unknown option "${k}" (allowed: ${KEYS.join(', ')})`);
  const m = options.model;
  if (!m || typeof m.quote !== 'function' || typeof m.instrument !== 'function') {
    fail('model is required (a MarketModel)');
  }
  if (options.host !== undefined && typeof options.host !== 'string') fail('host must be a string');
  const port = positiveInt('port', options.port, 0, 0);
  if (port > 65_535) fail('port must be at most 65535');
  if (options.now !== undefined && typeof options.now !== 'function') fail('now must be a function');
  if (options.rateLimits !== undefined && typeof options.rateLimits !== 'boolean')
    fail('rateLimits must be a boolean');
  const accounts = options.accounts ?? SIM_TEST_ACCOUNTS;
  if (!Array.isArray(accounts) || accounts.length === 0) fail('accounts must be a non-empty array');
  const ids = new Set<string>();
  for (const a of accounts) {
    if (typeof a.clientId !== 'string' || a.clientId === '') fail('every account needs a clientId');
    if (ids.has(a.clientId)) fail(`duplicate account ${a.clientId}`);
    ids.add(a.clientId);
    if (!/^\d{6}$/.test(a.pin)) fail(`account ${a.clientId}: pin must be 6 digits`);
    if (!/^[A-Z2-7]+=*$/i.test(a.totpSecret)) fail(`account ${a.clientId}: totpSecret must be base32`);
  }
  if (options.oneTokenPerAccount !== undefined && typeof options.oneTokenPerAccount !== 'boolean')
    fail('oneTokenPerAccount must be a boolean');
  if (options.onRateDecision !== undefined && typeof options.onRateDecision !== 'function')
    fail('onRateDecision must be a function');
  const lifetimeMs = positiveInt('tokenLifetimeMs', options.tokenLifetimeMs, TOKEN_VALIDITY_MS, 1000);
  if (lifetimeMs > TOKEN_VALIDITY_MS) fail(`tokenLifetimeMs must be at most ${TOKEN_VALIDITY_MS} (24 h)`);
  const mo = options.matching ?? {};
  for (const k of Object.keys(mo)) if (!MATCHING_KEYS.includes(k)) fail(`unknown matching option "${k}"`);
  return {
    model: m,
    host: options.host ?? '127.0.0.1',
    port,
    now: options.now ?? Date.now,
    rateLimits: options.rateLimits ?? true,
    accounts,
    matching: {
      tickMs: positiveInt('matching.tickMs', mo.tickMs, DEFAULT_MATCHING.tickMs),
      liquidityPerTick: positiveInt(
        'matching.liquidityPerTick',
        mo.liquidityPerTick,
        DEFAULT_MATCHING.liquidityPerTick,
      ),
      freezeQuantity: positiveInt(
        'matching.freezeQuantity',
        mo.freezeQuantity,
        DEFAULT_MATCHING.freezeQuantity,
      ),
    },
    matchIntervalMs: positiveInt('matchIntervalMs', options.matchIntervalMs, 200, 0),
    postbacks: resolvePostbackOptions(options.postbacks),
    tokenPolicy: { lifetimeMs, oneTokenPerAccount: options.oneTokenPerAccount ?? false },
    onRateDecision: options.onRateDecision,
  };
}
