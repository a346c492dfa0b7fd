/** Configuration of the trading gateway: every key documented with its default, validated once. */
import { bool, HttpError, int, num, oneOf, section, str } from '@feedpipe/service-http';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug';

export interface TradingGatewayConfig {
  /** Listen address. Default 127.0.0.1. */
  host?: string;
  /** Listen port (`TRADING_GATEWAY_PORT`). Default 8090; 0 picks a free port. */
  port?: number;
  /**
   * fastify logger level, or false for none. Default false. Requests are logged by method and
   * matched route pattern only, and every line is scrubbed of API keys, the postback secret and the
   * upstream access token (packages/service-http: log-redaction.ts).
   */
  logLevel?: LogLevel | false;
  /** Serve the OpenAPI document at /docs/json and the interactive docs at /docs. Default true. */
  docs?: boolean;
  /** Per-key token bucket. */
  rateLimit?: {
    /** Sustained requests per second per key. Default 50. */
    perSecond?: number;
    /** Bucket size (requests allowed in a burst). Default 100. */
    burst?: number;
  };
  /**
   * How long a looked-up API key is trusted before it is read again. A revocation through this
   * instance (the admin routes) takes effect at once; other instances see it within this time.
   * Default 5,000 ms.
   */
  keyCacheMs?: number;
  /** Pre-trade checks of the order routes. */
  trading?: {
    /** Largest quantity per order. Default 100,000. */
    maxQuantity?: number;
    /** Largest notional (quantity x price, or x last price for market orders) per order. Default 10,000,000. */
    maxNotional?: number;
    /** Refuse orders for instruments the feed and the loaded history have never named. Default true. */
    requireKnownInstrument?: boolean;
    /** How long a read kill-switch state is trusted. Default 2,000 ms. */
    killSwitchCacheMs?: number;
  };
}

export interface ResolvedGatewayConfig {
  host: string;
  port: number;
  logLevel: LogLevel | false;
  docs: boolean;
  rateLimit: { perSecond: number; burst: number };
  keyCacheMs: number;
  trading: {
    maxQuantity: number;
    maxNotional: number;
    requireKnownInstrument: boolean;
    killSwitchCacheMs: number;
  };
}

const TOP = ['host', 'port', 'logLevel', 'docs', 'rateLimit', 'keyCacheMs', 'trading'];
const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug'];
const W = 'trading-gateway config';

export function resolveGatewayConfig(config: TradingGatewayConfig = {}): ResolvedGatewayConfig {
  const top = section(config, W, TOP);
  const rl = section(top.rateLimit, `${W}.rateLimit`, ['perSecond', 'burst']);
  const t = section(top.trading, `${W}.trading`, [
    'maxQuantity',
    'maxNotional',
    'requireKnownInstrument',
    'killSwitchCacheMs',
  ]);
  if (top.logLevel !== undefined && top.logLevel !== false && typeof top.logLevel !== 'string') {
    throw new HttpError('CONFIG_INVALID', `${W}: "logLevel" must be false or one of ${LEVELS.join(', ')}`);
  }
  return {
    host: str(top, 'host', W, '127.0.0.1'),
    port: int(top, 'port', W, 8090, 0, 65_535),
    logLevel:
      top.logLevel === undefined || top.logLevel === false
        ? false
        : oneOf(top, 'logLevel', W, LEVELS, 'info'),
    docs: bool(top, 'docs', W, true),
    rateLimit: {
      perSecond: num(rl, 'perSecond', `${W}.rateLimit`, 50, 0.001),
      burst: int(rl, 'burst', `${W}.rateLimit`, 100, 1, 1_000_000),
    },
    keyCacheMs: int(top, 'keyCacheMs', W, 5_000, 0, 3_600_000),
    trading: {
      maxQuantity: num(t, 'maxQuantity', `${W}.trading`, 100_000, 0),
      maxNotional: num(t, 'maxNotional', `${W}.trading`, 10_000_000, 0),
      requireKnownInstrument: bool(t, 'requireKnownInstrument', `${W}.trading`, true),
      killSwitchCacheMs: int(t, 'killSwitchCacheMs', `${W}.trading`, 2_000, 0, 3_600_000),
    },
  };
}
