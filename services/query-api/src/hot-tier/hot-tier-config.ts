/** The `hotTier` section of the query API's configuration, declared once and read with the rest (config/config.ts). */
import type { OptionsSchema } from '@feedpipe/config';

export interface HotTierConfig {
  /**
   * Hours before now the window reaches back to, then down to that day's UTC midnight (whole days:
   * a trade's quantity depends on the trades before it that day). 0 turns the tier off. Default 24
   * (today and yesterday). The tier also needs Kafka brokers (`kafkaBrokers`).
   */
  windowHours?: number;
  /** Instruments held, the first by security id; the others are answered by ClickHouse. Default 5,000. */
  maxInstruments?: number;
  /** Trades of one instrument-day held at most; beyond, that day is answered by ClickHouse. Default 2,000,000. */
  maxTradesPerDay?: number;
  /**
   * Bytes of trades and kept 1 s / 1 min bars held at most (28 a trade, 40 a bar, plus growth
   * room); beyond, the tier closes and ClickHouse answers every bars request. Default 2 GiB.
   */
  maxBytes?: number;
  /**
   * Bytes of bar rows kept as text (JSON and CSV rows of 1-second and 1-minute bars, so an answer
   * spells no number); beyond, rows are written per answer. Default 256 MiB.
   */
  maxRowTextBytes?: number;
}

export interface ResolvedHotTierConfig {
  windowHours: number;
  maxInstruments: number;
  maxTradesPerDay: number;
  maxBytes: number;
  maxRowTextBytes: number;
}

/** Every key of the section, with its range and default (HotTierConfig documents each). */
export const HOT_TIER_CONFIG = {
  windowHours: { kind: 'integer', min: 0, max: 24 * 31, default: 24 },
  maxInstruments: { kind: 'integer', min: 1, max: 1_000_000, default: 5_000 },
  maxTradesPerDay: { kind: 'integer', min: 1, max: 100_000_000, default: 2_000_000 },
  maxBytes: { kind: 'integer', min: 1_000_000, max: Number.MAX_SAFE_INTEGER, default: 2 * 1024 ** 3 },
  maxRowTextBytes: { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER, default: 256 * 1024 ** 2 },
} as const satisfies OptionsSchema;
