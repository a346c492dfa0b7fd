/** Configuration of the trading gateway: every key documented with its default, validated once. */
import {
  bool,
  HTTP_SERVICE_KEYS,
  type HttpServiceConfig,
  int,
  num,
  type ResolvedHttpServiceConfig,
  resolveHttpServiceConfig,
  section,
} from '@feedpipe/service-http';

export type { LogLevel } from '@feedpipe/service-http';

/** The shared HTTP keys (HttpServiceConfig: host, port `TRADING_GATEWAY_PORT` default 8090, ...) and the order routes' checks. */
export interface TradingGatewayConfig extends HttpServiceConfig {
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

export interface ResolvedGatewayConfig extends ResolvedHttpServiceConfig {
  trading: {
    maxQuantity: number;
    maxNotional: number;
    requireKnownInstrument: boolean;
    killSwitchCacheMs: number;
  };
}

const TOP = [...HTTP_SERVICE_KEYS, 'trading'];
const W = 'trading-gateway config';

export function resolveGatewayConfig(config: TradingGatewayConfig = {}): ResolvedGatewayConfig {
  const top = section(config, W, TOP);
  const t = section(top.trading, `${W}.trading`, [
    'maxQuantity',
    'maxNotional',
    'requireKnownInstrument',
    'killSwitchCacheMs',
  ]);
  return {
    ...resolveHttpServiceConfig(top, W, 8090),
    trading: {
      maxQuantity: num(t, 'maxQuantity', `${W}.trading`, 100_000, 0),
      maxNotional: num(t, 'maxNotional', `${W}.trading`, 10_000_000, 0),
      requireKnownInstrument: bool(t, 'requireKnownInstrument', `${W}.trading`, true),
      killSwitchCacheMs: int(t, 'killSwitchCacheMs', `${W}.trading`, 2_000, 0, 3_600_000),
    },
  };
}
