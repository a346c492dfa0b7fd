/**
 * What an operator asks of the hot tier first: how far back it reaches, how many instruments and
 * trades it holds and their memory, whether it is answering, and which tier answered the bars
 * requests. The gauges are read from the tier when scraped (no work on the request path).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HotTier } from './hot-tier.js';

export type AnswerTier = 'memory' | 'clickhouse' | 'stitched';

export interface HotTierMetrics {
  readonly answers: Counter<'tier'>;
  readonly feedRecords: Counter<'result'>;
  /** The tier whose figures the gauges report (set once it exists). */
  watch(tier: HotTier): void;
}

export function createHotTierMetrics(prefix: string, registry: Registry): HotTierMetrics {
  const registers = [registry];
  let tier: HotTier | undefined;
  const stat = <K extends keyof ReturnType<HotTier['stats']>>(key: K) =>
    function (this: Gauge) {
      this.set(tier === undefined ? 0 : tier.stats()[key]);
    };
  new Gauge({
    name: `${prefix}hot_tier_window_start_seconds`,
    help: 'Start of the hot tier window (UTC midnight, epoch seconds); 0 without a tier',
    registers,
    collect: stat('windowStartSec'),
  });
  new Gauge({
    name: `${prefix}hot_tier_instruments`,
    help: 'Instruments held in memory',
    registers,
    collect: stat('instruments'),
  });
  new Gauge({
    name: `${prefix}hot_tier_trades`,
    help: 'Trades held in memory',
    registers,
    collect: stat('trades'),
  });
  new Gauge({
    name: `${prefix}hot_tier_memory_bytes`,
    help: 'Bytes of the trade and kept bar columns held (their capacity)',
    registers,
    collect: stat('bytes'),
  });
  new Gauge({
    name: `${prefix}hot_tier_row_text_bytes`,
    help: 'Bytes of bar rows kept as text (capped by QUERY_API_HOT_TIER_MAX_ROW_TEXT_BYTES)',
    registers,
    collect: stat('rowTextBytes'),
  });
  new Gauge({
    name: `${prefix}hot_tier_refused_instruments`,
    help: 'Instruments refused by the instrument cap (answered by ClickHouse)',
    registers,
    collect: stat('refused'),
  });
  new Gauge({
    name: `${prefix}hot_tier_ready`,
    help: '1 while bars are answered from memory (loaded and caught up with Kafka)',
    registers,
    collect(this: Gauge) {
      this.set(tier?.ready === true ? 1 : 0);
    },
  });
  return {
    answers: new Counter({
      name: `${prefix}bars_answers_total`,
      help: 'Bars answers by tier: memory, clickhouse, stitched (ClickHouse before the window, memory inside)',
      labelNames: ['tier'],
      registers,
    }),
    feedRecords: new Counter({
      name: `${prefix}hot_tier_feed_records_total`,
      help: 'Trades-topic records read by the hot tier: added, or skipped (not a storable trade, or a copy)',
      labelNames: ['result'],
      registers,
    }),
    watch(next: HotTier) {
      tier = next;
    },
  };
}
