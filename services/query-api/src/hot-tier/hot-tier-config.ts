/** The `hotTier` section of the query API's configuration, validated once (config/config.ts). */
import { int, section } from '@feedpipe/service-http';

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

export const HOT_TIER_KEYS = [
  'windowHours',
  'maxInstruments',
  'maxTradesPerDay',
  'maxBytes',
  'maxRowTextBytes',
];

export function resolveHotTierConfig(value: unknown, where: string): ResolvedHotTierConfig {
  const h = section(value, where, HOT_TIER_KEYS);
  return {
    windowHours: int(h, 'windowHours', where, 24, 0, 24 * 31),
    maxInstruments: int(h, 'maxInstruments', where, 5_000, 1, 1_000_000),
    maxTradesPerDay: int(h, 'maxTradesPerDay', where, 2_000_000, 1, 100_000_000),
    maxBytes: int(h, 'maxBytes', where, 2 * 1024 ** 3, 1_000_000, Number.MAX_SAFE_INTEGER),
    maxRowTextBytes: int(h, 'maxRowTextBytes', where, 256 * 1024 ** 2, 0, Number.MAX_SAFE_INTEGER),
  };
}
