import { given, type OptionsSchema } from '@feedpipe/config';
import { AuthApi } from './auth/auth-api.js';
import type { BodyEncoding } from './core/body.js';
import { type Clock, systemClock } from './core/clock.js';
import { invalidArgument } from './core/errors.js';
import { baseUrlOf, readApiOptions } from './core/options.js';
import { type FetchLike, type TokenSource, Transport } from './core/transport.js';
import { AccountApi } from './endpoints/account.js';
import { AlertsApi } from './endpoints/alerts.js';
import { EdisApi } from './endpoints/edis.js';
import { ForeverOrdersApi } from './endpoints/forever-orders.js';
import { FundsApi } from './endpoints/funds.js';
import { GlobalStocksApi } from './endpoints/global-stocks.js';
import { HistoryApi } from './endpoints/history.js';
import { MarketSnapshotApi } from './endpoints/market-snapshot.js';
import { OptionChainApi } from './endpoints/option-chain.js';
import { OrdersApi } from './endpoints/orders.js';
import { PortfolioApi } from './endpoints/portfolio.js';
import { SuperOrdersApi } from './endpoints/super-orders.js';
import { TradesApi } from './endpoints/trades.js';
import { RateLimiter, type RateLimiterOptions } from './rate/limiter.js';

export interface BrokerClientOptions {
  /** `{base_url}`; `{api_root}` is this plus `/v2`. Required. */
  baseUrl: string;
  /** `{auth_url}` of the login and token endpoints. Default: none (auth calls then fail). */
  authUrl?: string;
  /** svcClientId of the account: filled into bodies and sent as `client-id`. Default: none. */
  clientId?: string;
  /** The access token, or a TokenHolder that renews it. Default: none (only auth calls work). */
  accessToken?: string | TokenSource;
  /** Default 15,000. Per attempt, including reading the answer. */
  timeoutMs?: number;
  /** Default 3. Retries after 429 (any call) or lost answers and 5xx (idempotent calls only). */
  maxRetries?: number;
  /** Default 250. First backoff; doubles per retry, with jitter. */
  retryBaseDelayMs?: number;
  /** Default 5,000. Backoff cap. */
  retryMaxDelayMs?: number;
  /** Default 'json'. The spec accepts form-encoded POST/PUT bodies as well. */
  bodyEncoding?: BodyEncoding;
  /** Default: a new RateLimiter with the spec's limits. Pass one instance to share an account's budget. */
  rateLimiter?: RateLimiter | RateLimiterOptions;
  /** Default: the system clock. Also used by a limiter created from options. */
  clock?: Clock;
  /** Default: the global fetch (undici). */
  fetch?: FetchLike;
}

/** Every key of BrokerClientOptions (documented there), with its range and default. */
const CLIENT_OPTIONS = {
  baseUrl: { kind: 'url', protocols: ['http', 'https'], required: true },
  authUrl: { kind: 'url', protocols: ['http', 'https'] },
  clientId: { kind: 'string' },
  // A string or a TokenSource: checked by tokenSource.
  accessToken: { kind: 'given' },
  timeoutMs: { kind: 'integer', min: 1, max: 600_000, default: 15_000 },
  maxRetries: { kind: 'integer', min: 0, max: 20, default: 3 },
  retryBaseDelayMs: { kind: 'integer', min: 0, max: 60_000, default: 250 },
  retryMaxDelayMs: { kind: 'integer', min: 0, max: 600_000, default: 5_000 },
  bodyEncoding: { kind: 'enum', values: ['json', 'form'], default: 'json' },
  ...given('rateLimiter', 'clock', 'fetch'),
} as const satisfies OptionsSchema;

/** The typed REST v2 client: one object per account, endpoints grouped as the spec groups them. */
export class BrokerClient {
  readonly apiRoot: string;
  readonly authUrl: string | undefined;
  readonly clientId: string | undefined;
  readonly limiter: RateLimiter;
  readonly auth: AuthApi;
  readonly account: AccountApi;
  readonly orders: OrdersApi;
  readonly superOrders: SuperOrdersApi;
  readonly foreverOrders: ForeverOrdersApi;
  readonly alerts: AlertsApi;
  readonly trades: TradesApi;
  readonly portfolio: PortfolioApi;
  readonly funds: FundsApi;
  readonly edis: EdisApi;
  readonly globalStocks: GlobalStocksApi;
  readonly marketData: MarketSnapshotApi;
  readonly history: HistoryApi;
  readonly optionChain: OptionChainApi;

  constructor(options: BrokerClientOptions) {
    const where = 'BrokerClient options';
    const v = readApiOptions(CLIENT_OPTIONS, options, where);
    this.apiRoot = `${baseUrlOf(v.baseUrl, 'baseUrl', where)}/v2`;
    this.authUrl = v.authUrl === undefined ? undefined : baseUrlOf(v.authUrl, 'authUrl', where);
    this.clientId = v.clientId;
    const clock = options.clock ?? systemClock;
    if (typeof clock.now !== 'function' || typeof clock.sleep !== 'function') {
      throw invalidArgument(`${where}: "clock" must have now() and sleep()`);
    }
    const fetchImpl = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    if (typeof fetchImpl !== 'function') throw invalidArgument(`${where}: "fetch" must be a function`);
    this.limiter =
      options.rateLimiter instanceof RateLimiter
        ? options.rateLimiter
        : new RateLimiter({ clock, ...(options.rateLimiter ?? {}) });
    const transport = new Transport({
      apiRoot: this.apiRoot,
      authUrl: this.authUrl,
      clientId: this.clientId,
      token: tokenSource(options.accessToken, where),
      timeoutMs: v.timeoutMs,
      maxRetries: v.maxRetries,
      retryBaseDelayMs: v.retryBaseDelayMs,
      retryMaxDelayMs: v.retryMaxDelayMs,
      bodyEncoding: v.bodyEncoding,
      limiter: this.limiter,
      clock,
      fetch: fetchImpl,
    });
    this.auth = new AuthApi(transport, this.authUrl, clock);
    this.account = new AccountApi(transport);
    this.orders = new OrdersApi(transport);
    this.superOrders = new SuperOrdersApi(transport);
    this.foreverOrders = new ForeverOrdersApi(transport);
    this.alerts = new AlertsApi(transport);
    this.trades = new TradesApi(transport);
    this.portfolio = new PortfolioApi(transport);
    this.funds = new FundsApi(transport);
    this.edis = new EdisApi(transport);
    this.globalStocks = new GlobalStocksApi(transport);
    this.marketData = new MarketSnapshotApi(transport);
    this.history = new HistoryApi(transport, clock);
    this.optionChain = new OptionChainApi(transport);
  }
}

function tokenSource(value: unknown, where: string): TokenSource | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (value.length === 0) throw invalidArgument(`${where}: "accessToken" must not be empty`);
    return { getToken: async () => value };
  }
  if (typeof value === 'object' && value !== null && typeof (value as TokenSource).getToken === 'function') {
    return value as TokenSource;
  }
  throw invalidArgument(`${where}: "accessToken" must be a string or have getToken()`);
}
