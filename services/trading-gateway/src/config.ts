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
import { TradingGatewayError } from './errors.js';
import { parseIstClock } from './fills/account-snapshots.js';

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
  /** Fills (market.fills) and end-of-day snapshots (market.account_snapshots); need a broker client. */
  fills?: {
    /** Wait after a postback shows a fill before the trade book is read (one read per burst). Default 1,000 ms. */
    syncDelayMs?: number;
    /** Period of the trade-book read besides postbacks; 0 = only at start and on postbacks. Default 60,000 ms. */
    syncIntervalMs?: number;
    /** Days of trade history read at start for days without stored fills; 0 = none. Default 7. */
    historyDays?: number;
    /** IST wall-clock time of the daily end-of-day snapshot, `HH:MM`, or `off`. Default `23:55`. */
    snapshotAtIst?: string;
  };
}

export interface ResolvedGatewayConfig extends ResolvedHttpServiceConfig {
  trading: {
    maxQuantity: number;
    maxNotional: number;
    requireKnownInstrument: boolean;
    killSwitchCacheMs: number;
  };
  fills: {
    syncDelayMs: number;
    syncIntervalMs: number;
    historyDays: number;
    /** Ms after IST midnight of the daily snapshot; undefined = off. */
    snapshotAtMs: number | undefined;
  };
}

const TOP = [...HTTP_SERVICE_KEYS, 'trading', 'fills'];
const W = 'trading-gateway config';

export function resolveGatewayConfig(config: TradingGatewayConfig = {}): ResolvedGatewayConfig {
  const top = section(config, W, TOP);
  const t = section(top.trading, `${W}.trading`, [
    'maxQuantity',
    'maxNotional',
    'requireKnownInstrument',
    'killSwitchCacheMs',
  ]);
  const f = section(top.fills, `${W}.fills`, [
    'syncDelayMs',
    'syncIntervalMs',
    'historyDays',
    'snapshotAtIst',
  ]);
  const snapshotAt = f.snapshotAtIst === undefined ? '23:55' : f.snapshotAtIst;
  if (typeof snapshotAt !== 'string') {
    throw new TradingGatewayError('CONFIG_INVALID', `${W}.fills.snapshotAtIst must be HH:MM or "off"`);
  }
  return {
    ...resolveHttpServiceConfig(top, W, 8090),
    fills: {
      syncDelayMs: int(f, 'syncDelayMs', `${W}.fills`, 1_000, 0, 600_000),
      syncIntervalMs: int(f, 'syncIntervalMs', `${W}.fills`, 60_000, 0, 86_400_000),
      historyDays: int(f, 'historyDays', `${W}.fills`, 7, 0, 366),
      snapshotAtMs: snapshotAt === 'off' ? undefined : parseIstClock(snapshotAt, `${W}.fills.snapshotAtIst`),
    },
    trading: {
      maxQuantity: num(t, 'maxQuantity', `${W}.trading`, 100_000, 0),
      maxNotional: num(t, 'maxNotional', `${W}.trading`, 10_000_000, 0),
      requireKnownInstrument: bool(t, 'requireKnownInstrument', `${W}.trading`, true),
      killSwitchCacheMs: int(t, 'killSwitchCacheMs', `${W}.trading`, 2_000, 0, 3_600_000),
    },
  };
}
