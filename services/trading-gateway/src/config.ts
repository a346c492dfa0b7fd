/** Configuration of the trading gateway: every key documented with its default, validated once. */
import { type OptionsSchema, readOptions, section } from '@feedpipe/config';
import {
  HttpError,
  type HttpServiceConfig,
  type ResolvedHttpServiceConfig,
  readServiceConfig,
  resolveHttpServiceConfig,
} from '@feedpipe/service-http';
import { parseIstClock } from './fills/account-snapshots.js';
import {
  type AuditJournalConfig,
  type ResolvedAuditJournalConfig,
  readAuditJournalOptions,
} from './orders/audit-journal-options.js';
import { POSTBACK_CONFIG, type PostbackConfig } from './postbacks/options.js';

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
    /**
     * Past `killSwitchCacheMs`, how long after its read a kill-switch state still answers an order
     * while it is read again behind the order (the service refuses orders itself while the switch
     * is on); 0 = every order past the cache waits for the read. Default 60,000 ms.
     */
    killSwitchRefreshBehindMs?: number;
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
  /**
   * The postback receiver (order updates from the service -> Kafka orders.updates + ClickHouse, live
   * stream, reconciliation): its secret, write-ahead log directory and limits
   * (PostbackReceiverOptions documents each). Needs deps.kafkaBrokers. Default: off.
   */
  postbacks?: PostbackConfig;
  /**
   * The audit journal (orders/audit-journal.ts): audit rows synced to a local file before the
   * order goes on and written to the store behind the answer. Default: off, each row is inserted
   * into the store on the order's path. The CLI and npm start use `$DATA_DIR/audit-journal`.
   */
  auditJournal?: AuditJournalConfig;
}

export interface ResolvedGatewayConfig extends ResolvedHttpServiceConfig {
  trading: {
    maxQuantity: number;
    maxNotional: number;
    requireKnownInstrument: boolean;
    killSwitchCacheMs: number;
    killSwitchRefreshBehindMs: number;
  };
  fills: {
    syncDelayMs: number;
    syncIntervalMs: number;
    historyDays: number;
    /** Ms after IST midnight of the daily snapshot; undefined = off. */
    snapshotAtMs: number | undefined;
  };
  /** As given (checked against the receiver's schema); undefined = no receiver. */
  postbacks: PostbackConfig | undefined;
  /** With its defaults; undefined = no journal. */
  auditJournal: ResolvedAuditJournalConfig | undefined;
}

/** The gateway's own keys, with their ranges and defaults (TradingGatewayConfig documents each). */
const GATEWAY_CONFIG = {
  trading: section({
    maxQuantity: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 100_000 },
    maxNotional: { kind: 'number', min: 0, max: Number.MAX_SAFE_INTEGER, default: 10_000_000 },
    requireKnownInstrument: { kind: 'boolean', default: true },
    killSwitchCacheMs: { kind: 'integer', min: 0, max: 3_600_000, default: 2_000 },
    killSwitchRefreshBehindMs: { kind: 'integer', min: 0, max: 3_600_000, default: 60_000 },
  }),
  fills: section({
    syncDelayMs: { kind: 'integer', min: 0, max: 600_000, default: 1_000 },
    syncIntervalMs: { kind: 'integer', min: 0, max: 86_400_000, default: 60_000 },
    historyDays: { kind: 'integer', min: 0, max: 366, default: 7 },
    // HH:MM is checked as a clock time by parseIstClock.
    snapshotAtIst: { kind: 'string', default: '23:55' },
  }),
  // Absent means off, so not a section (a section is always filled in): read below when given.
  postbacks: { kind: 'given' },
  auditJournal: { kind: 'given' },
} as const satisfies OptionsSchema;
const W = 'trading-gateway config';

export function resolveGatewayConfig(config: TradingGatewayConfig = {}): ResolvedGatewayConfig {
  const v = readServiceConfig(GATEWAY_CONFIG, config, W);
  const { snapshotAtIst, ...fills } = v.fills;
  return {
    ...resolveHttpServiceConfig(v, W, 8090),
    fills: {
      ...fills,
      snapshotAtMs:
        snapshotAtIst === 'off' ? undefined : parseIstClock(snapshotAtIst, `${W}.fills.snapshotAtIst`),
    },
    trading: v.trading,
    postbacks: config.postbacks && readPostbacks(config.postbacks),
    auditJournal: config.auditJournal && readAuditJournalOptions(config.auditJournal),
  };
}

/** Checks config.postbacks against the receiver's data schema (the receiver fills in the defaults). */
function readPostbacks(postbacks: PostbackConfig): PostbackConfig {
  readOptions(POSTBACK_CONFIG, postbacks, {
    where: `${W}.postbacks`,
    fail: (message) => new HttpError('CONFIG_INVALID', message),
  });
  return postbacks;
}
