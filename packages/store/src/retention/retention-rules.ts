/**
 * How long each market-data table keeps its rows: one rule per table, with its default. The
 * defaults are what migration 009_retention.sql installs; `applyRetention` (apply-retention.ts)
 * brings a store to a policy built from them and the STORE_TTL_*_DAYS variables
 * (retention-env.ts). A test checks that a freshly migrated store already matches the defaults, so
 * the migration and this table cannot drift apart.
 *
 * Why these defaults: the raw feed (ticks, OHLC and reference updates, statuses) is the bulk of the
 * store (tens of millions of rows a day at full rate) and is only read for recent days; what is
 * derived or loaded from history (1-minute bars, candles, option chains, expired options) and the
 * ledger of gaps that explains holes in them are small and are the long record, kept until an
 * operator says otherwise. 0 days means no TTL: kept forever.
 *
 * Every rule's column is the one its table is partitioned by (toYYYYMM(column), or the decade for
 * daily candles), so with `ttl_only_drop_parts = 1` a month's part leaves whole once its newest row
 * is past the TTL: no row-by-row rewrite of a partition, and a month stays complete or is gone.
 */
import { FEED_TABLES, HISTORY_TABLES } from '@feedpipe/contracts';

export interface RetentionRule {
  /** `database.table`. */
  readonly table: string;
  /** The time column the TTL counts from (the table's partition column). */
  readonly column: string;
  /** Days kept by default; 0: forever (no TTL). */
  readonly defaultDays: number;
  /** The variable that overrides the default (docs/configuration.md, "Retention"). */
  readonly env: string;
}

/** Longest retention a variable may ask for (100 years); longer is "forever": 0. */
export const MAX_RETENTION_DAYS = 36_500;

/** Days of the raw feed kept by default. */
export const RAW_FEED_DAYS = 90;

const rule = (table: string, column: string, defaultDays: number, env: string): RetentionRule =>
  Object.freeze({ table, column, defaultDays, env });

export const RETENTION_RULES: readonly RetentionRule[] = Object.freeze([
  rule(FEED_TABLES.ticks.name, 'received_at', RAW_FEED_DAYS, 'STORE_TTL_TICKS_DAYS'),
  rule(FEED_TABLES.ohlcUpdates.name, 'received_at', RAW_FEED_DAYS, 'STORE_TTL_OHLC_UPDATES_DAYS'),
  rule(FEED_TABLES.referenceUpdates.name, 'received_at', RAW_FEED_DAYS, 'STORE_TTL_REFERENCE_UPDATES_DAYS'),
  rule(FEED_TABLES.feedStatus.name, 'received_at', RAW_FEED_DAYS, 'STORE_TTL_FEED_STATUS_DAYS'),
  rule(FEED_TABLES.feedGaps.name, 'started_at', 0, 'STORE_TTL_FEED_GAPS_DAYS'),
  rule(FEED_TABLES.bars1m.name, 'minute', 0, 'STORE_TTL_BARS_1M_DAYS'),
  rule(HISTORY_TABLES.candlesDaily.name, 'ts', 0, 'STORE_TTL_CANDLES_DAILY_DAYS'),
  rule(HISTORY_TABLES.candlesIntraday.name, 'ts', 0, 'STORE_TTL_CANDLES_INTRADAY_DAYS'),
  rule(HISTORY_TABLES.optionChainSnapshots.name, 'slot', 0, 'STORE_TTL_OPTION_CHAINS_DAYS'),
  rule(HISTORY_TABLES.expiredOptions.name, 'ts', 0, 'STORE_TTL_EXPIRED_OPTIONS_DAYS'),
]);

/** Days kept per table (`database.table` -> days, 0 forever), one entry per rule. */
export type RetentionPolicy = Readonly<Record<string, number>>;

export function defaultRetention(): RetentionPolicy {
  return Object.freeze(Object.fromEntries(RETENTION_RULES.map((r) => [r.table, r.defaultDays])));
}
