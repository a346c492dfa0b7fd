/** REST simulator options, read once by readOptions: unknown keys and bad values are refused by name. */
import { type OptionsSchema, readOptions, section } from '@feedpipe/config';
import { DEFAULT_MATCHING, type MatchingOptions } from '../accounts/order-book.js';
import { SIM_TEST_ACCOUNTS, type SimAccountSeed } from '../accounts/seeds.js';
import { invalidOption } from '../market/errors.js';
import {
  checkPostbackOptions,
  POSTBACK_OPTIONS,
  type PostbackOptions,
  type ResolvedPostbackOptions,
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

/** Every key of RestServerOptions (documented there), with its range and default. */
const REST_OPTIONS = {
  // Its shape is checked by resolveOptions (anything shaped like a MarketModel).
  model: { kind: 'given', required: true },
  host: { kind: 'string', default: '127.0.0.1' },
  port: { kind: 'integer', min: 0, max: 65_535, default: 0 },
  now: { kind: 'given' },
  rateLimits: { kind: 'boolean', default: true },
  // Each account is checked by resolveOptions (pin, TOTP secret, no duplicates).
  accounts: { kind: 'given' },
  matching: section({
    tickMs: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, default: DEFAULT_MATCHING.tickMs },
    liquidityPerTick: {
      kind: 'integer',
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      default: DEFAULT_MATCHING.liquidityPerTick,
    },
    freezeQuantity: {
      kind: 'integer',
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      default: DEFAULT_MATCHING.freezeQuantity,
    },
  }),
  matchIntervalMs: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, default: 200 },
  postbacks: section(POSTBACK_OPTIONS),
  tokenLifetimeMs: { kind: 'integer', min: 1000, max: TOKEN_VALIDITY_MS, default: TOKEN_VALIDITY_MS },
  oneTokenPerAccount: { kind: 'boolean', default: false },
  onRateDecision: { kind: 'given' },
} as const satisfies OptionsSchema;

const WHERE = 'createRestServer options';

function fail(message: string): never {
  throw invalidOption(`${WHERE}: ${message}`);
}

function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') fail(`"${name}" must be a function`);
}

/** The accounts that exist: at least one, each with a unique clientId, a 6-digit pin and a base32 secret. */
function checkAccounts(accounts: unknown): readonly SimAccountSeed[] {
  if (!Array.isArray(accounts) || accounts.length === 0) fail('"accounts" must be a non-empty array');
  const ids = new Set<string>();
  for (const a of accounts as SimAccountSeed[]) {
    if (typeof a.clientId !== 'string' || a.clientId === '') fail('every account needs a clientId');
    if (ids.has(a.clientId)) fail(`duplicate account ${a.clientId}`);
    ids.add(a.clientId);
    if (!/^\d{6}$/.test(a.pin)) fail(`account ${a.clientId}: pin must be 6 digits`);
    if (!/^[A-Z2-7]+=*$/i.test(a.totpSecret)) fail(`account ${a.clientId}: totpSecret must be base32`);
  }
  return accounts as readonly SimAccountSeed[];
}

export function resolveOptions(options: RestServerOptions): ResolvedOptions {
  const v = readOptions(REST_OPTIONS, options, { where: WHERE, fail: invalidOption });
  const m = options.model;
  if (!m || typeof m.quote !== 'function' || typeof m.instrument !== 'function') {
    fail('"model" must be a MarketModel');
  }
  checkFunction('now', options.now);
  checkFunction('onRateDecision', options.onRateDecision);
  return {
    model: m,
    host: v.host,
    port: v.port,
    now: options.now ?? Date.now,
    rateLimits: v.rateLimits,
    accounts: checkAccounts(options.accounts ?? SIM_TEST_ACCOUNTS),
    matching: v.matching,
    matchIntervalMs: v.matchIntervalMs,
    postbacks: checkPostbackOptions(v.postbacks, `${WHERE}.postbacks`),
    tokenPolicy: { lifetimeMs: v.tokenLifetimeMs, oneTokenPerAccount: v.oneTokenPerAccount },
    onRateDecision: options.onRateDecision,
  };
}
