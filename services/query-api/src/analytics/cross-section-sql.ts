import { FEED_TABLES } from '@feedpipe/contracts';
import { BAR_COLUMNS } from './bars-sql.js';

/** The columns of a cross-section: the instrument, then a bar's columns (BAR_COLUMNS). */
export const CROSS_SECTION_COLUMNS = { security_id: 'UInt32', ...BAR_COLUMNS } as const;

/**
 * BARS_SQL over many instruments at once: the bars of every instrument in `ids` (or, with
 * `all` = 1, of every instrument with trades in the range) at one interval over one range,
 * ordered by instrument then time. Each instrument's bars are exactly its BARS_SQL answer: the
 * same stored quantities summed over the same ticks of the range.
 *
 * Open and close are ordered by one UInt128 key (receive time in µs, then the offset), the same
 * order as BARS_SQL's tuple and cheaper for argMin/argMax (FOLDED_BARS_SQL measured 20-30%).
 *
 * The engine writes the answer in the asked format itself (Parquet, Arrow, CSV, ...), and its
 * memory is bounded by the statement's settings (cross-section-routes.ts).
 */
export const CROSS_SECTION_SQL = `
SELECT
    security_id,
    toDateTime64(toStartOfInterval(ltt, toIntervalSecond({step:UInt32})), 0, 'UTC') AS time,
    argMin(ltp, order_key) AS open,
    max(ltp) AS high,
    min(ltp) AS low,
    argMax(ltp, order_key) AS close,
    toInt64(sum(quantity)) AS volume,
    if(sum(quantity) > 0, sum(toFloat64(ltp) * quantity) / sum(quantity), NULL) AS vwap,
    count() AS trades
FROM
(
    SELECT security_id, ltt, ltp, quantity,
        bitShiftLeft(toUInt128(toUnixTimestamp64Micro(received_at)), 64) + kafka_offset AS order_key
    FROM ${FEED_TABLES.ticks.name}
    WHERE ({all:UInt8} = 1 OR security_id IN {ids:Array(UInt32)})
      AND ltt >= toDateTime({fromSec:UInt32}, 'UTC') AND ltt < toDateTime({toSec:UInt32}, 'UTC')
)
GROUP BY security_id, time
ORDER BY security_id, time`;

/**
 * CROSS_SECTION_SQL read from the 1-minute bars (market.bars_1m) instead of the ticks, for an
 * interval of whole minutes over a range whose ends are whole minutes (crossSectionSqlFor): a few
 * hundred bars an instrument-day instead of thousands of ticks, and the same answer. Each minute's
 * ticks all lie in the range or all out of it, and a bucket of whole minutes is the union of its
 * minutes; the bars' open_exact / close_exact states order trades as CROSS_SECTION_SQL does
 * (migration 015); quantity, turnover and trades are sums of the same ticks' values, and the
 * turnover's Float64 sum is exact in any order (compute-bars.ts says when), so VWAP is too.
 *
 * Where the ticks are gone (past their retention, or deleted) and the bars stay, this answers the
 * bars the pipeline stored, where bars from ticks have nothing (or less) left.
 */
export const CROSS_SECTION_FROM_BARS_SQL = `
SELECT
    security_id,
    toDateTime64(toStartOfInterval(minute, toIntervalSecond({step:UInt32})), 0, 'UTC') AS time,
    argMinMerge(open_exact) AS open,
    max(high) AS high,
    min(low) AS low,
    argMaxMerge(close_exact) AS close,
    toInt64(sum(quantity)) AS volume,
    if(sum(quantity) > 0, sum(turnover) / sum(quantity), NULL) AS vwap,
    sum(trades) AS trades
FROM ${FEED_TABLES.bars1m.name}
WHERE ({all:UInt8} = 1 OR security_id IN {ids:Array(UInt32)})
  AND minute >= toDateTime({fromSec:UInt32}, 'UTC') AND minute < toDateTime({toSec:UInt32}, 'UTC')
GROUP BY security_id, time
ORDER BY security_id, time`;

/**
 * CROSS_SECTION_FROM_BARS_SQL at 1 minute: each bar is one row of market.bars_1m, so no GROUP BY.
 * FINAL merges whatever rows of a minute the table has not merged yet, in the table's order, which
 * is the range's order; the hash aggregation over every (instrument, minute) it replaces cost
 * about twice the CPU for a market's day (measured: docs/operations.md, "bench:export").
 */
export const CROSS_SECTION_1M_SQL = `
SELECT
    security_id,
    toDateTime64(minute, 0, 'UTC') AS time,
    finalizeAggregation(open_exact) AS open,
    toFloat32(high) AS high,
    toFloat32(low) AS low,
    finalizeAggregation(close_exact) AS close,
    toInt64(quantity) AS volume,
    if(quantity > 0, turnover / quantity, NULL) AS vwap,
    toUInt64(trades) AS trades
FROM ${FEED_TABLES.bars1m.name} FINAL
WHERE ({all:UInt8} = 1 OR security_id IN {ids:Array(UInt32)})
  AND minute >= toDateTime({fromSec:UInt32}, 'UTC') AND minute < toDateTime({toSec:UInt32}, 'UTC')
ORDER BY security_id, minute`;

/**
 * The statement of a cross-section at `step` seconds over [fromSec, toSec): from the 1-minute bars
 * where they answer exactly (an interval of whole minutes, both ends whole minutes), else from the
 * ticks. All three take the same parameters and give the same columns.
 */
export function crossSectionSqlFor(step: number, fromSec: number, toSec: number): string {
  if (step % 60 !== 0 || fromSec % 60 !== 0 || toSec % 60 !== 0) return CROSS_SECTION_SQL;
  return step === 60 ? CROSS_SECTION_1M_SQL : CROSS_SECTION_FROM_BARS_SQL;
}
