import { FEED_TABLES } from '@feedpipe/contracts';
import type { ResultColumn } from '../query/time-columns.js';

/** The columns of a bars answer and their ClickHouse types (BARS_SQL's result, tested against it). */
export const BAR_COLUMNS = {
  time: "DateTime64(0, 'UTC')",
  open: 'Float32',
  high: 'Float32',
  low: 'Float32',
  close: 'Float32',
  volume: 'Int64',
  vwap: 'Nullable(Float64)',
  trades: 'UInt64',
} as const;

export const BAR_RESULT_COLUMNS: readonly ResultColumn[] = Object.entries(BAR_COLUMNS).map(
  ([name, type]) => ({ name, type }),
);

/**
 * Bars resampled from ticks at any interval from 1 s to 1 day, bucketed by trade time (ltt).
 *
 * A bar's volume is the sum of its trades' quantities, stored with each tick by the sink
 * (market.ticks.quantity, services/feed-sink/src/trade-quantities.ts): a trade's cumulative day
 * volume minus that of the instrument's previous trade stored on the same UTC day, the day's first
 * counting its whole volume. So a bar's volume is the same in every answer that holds it, and only
 * the range's own ticks are read (no whole days for a window function to see each predecessor).
 * VWAP = sum(price x quantity) / sum(quantity), null for a bar without traded quantity.
 * Ticks are ordered by (security_id, received_at); the min-max index on ltt (migration 004) skips
 * other days' granules of the instrument. Times are DateTime64 so Arrow and Parquet carry them as
 * timestamps (a plain DateTime leaves ClickHouse as a 32-bit integer there).
 */
export const BARS_SQL = `
SELECT
    toDateTime64(toStartOfInterval(ltt, toIntervalSecond({step:UInt32})), 0, 'UTC') AS time,
    argMin(ltp, (received_at, kafka_offset)) AS open,
    max(ltp) AS high,
    min(ltp) AS low,
    argMax(ltp, (received_at, kafka_offset)) AS close,
    toInt64(sum(quantity)) AS volume,
    if(sum(quantity) > 0, sum(toFloat64(ltp) * quantity) / sum(quantity), NULL) AS vwap,
    count() AS trades
FROM ${FEED_TABLES.ticks.name}
WHERE security_id = {sid:UInt32}
  AND ltt >= toDateTime({fromSec:UInt32}, 'UTC') AND ltt < toDateTime({toSec:UInt32}, 'UTC')
GROUP BY time
ORDER BY time`;

/**
 * The bars of many requests in one statement: request `r` (1-based) asks for instrument
 * `sids[r]` at `steps[r]` seconds over [`froms[r]`, `tos[r]`). Each answer row is one bar of one
 * request, already written as a line of `rowFormat` (JSONEachRow or CSV) by ClickHouse itself, so
 * the text is exactly what BARS_SQL gives in that format (bars-folding.ts adds the envelope).
 *
 * Why one statement: a bars statement costs chDB ~13-17 ms of CPU for a day or two of one
 * instrument, most of it the statement's own (planning, building the read and aggregation
 * pipelines, reading whole granules of 8,192 rows for ~2,000 ticks a day); in one statement for 25
 * requests that is ~3-4 ms each, for 50 ~2.5-3 ms (measured through the store, one thread, when a
 * window function still derived each tick's quantity).
 * Each tick's quantity is stored (BARS_SQL), so the scan is the requests' ranges themselves: the
 * instruments are a PREWHERE set and a join on the requests gives each tick to every request whose
 * range holds it. Buckets are `intDiv(ltt, step) * step`, which is what toStartOfInterval(ltt,
 * step seconds) computes in UTC. Ties in receive time are broken by offset as in BARS_SQL, through
 * one UInt128 key (receive time in microseconds, then the offset) instead of a tuple: the same
 * order, and argMin/argMax over it made the statement 20-30% cheaper.
 */
export const FOLDED_BARS_SQL = `
SELECT r, formatRowNoNewline({rowFormat:String}, time, open, high, low, close, volume, vwap, trades) AS line
FROM
(
    SELECT
        req.r AS r,
        toDateTime64(intDiv(toUInt32(tick.ltt), req.step) * req.step, 0, 'UTC') AS time,
        argMin(tick.ltp, tick.order_key) AS open,
        max(tick.ltp) AS high,
        min(tick.ltp) AS low,
        argMax(tick.ltp, tick.order_key) AS close,
        toInt64(sum(tick.quantity)) AS volume,
        if(sum(tick.quantity) > 0, sum(toFloat64(tick.ltp) * tick.quantity) / sum(tick.quantity), NULL) AS vwap,
        count() AS trades
    FROM
    (
        SELECT security_id, ltt, ltp, quantity,
            bitShiftLeft(toUInt128(toUnixTimestamp64Micro(received_at)), 64) + kafka_offset AS order_key
        FROM ${FEED_TABLES.ticks.name}
        PREWHERE security_id IN (SELECT arrayJoin({sids:Array(UInt32)}))
        WHERE ltt >= toDateTime(arrayMin({froms:Array(UInt32)}), 'UTC')
          AND ltt < toDateTime(arrayMax({tos:Array(UInt32)}), 'UTC')
    ) AS tick
    INNER JOIN
    (
        SELECT toUInt32(q.1) AS r, q.2 AS sid, q.3 AS step, q.4 AS from_sec, q.5 AS to_sec
        FROM (SELECT arrayJoin(arrayZip(range(1, length({sids:Array(UInt32)}) + 1),
            {sids:Array(UInt32)}, {steps:Array(UInt32)}, {froms:Array(UInt32)}, {tos:Array(UInt32)})) AS q)
    ) AS req ON req.sid = tick.security_id
    WHERE toUInt32(tick.ltt) >= req.from_sec AND toUInt32(tick.ltt) < req.to_sec
    GROUP BY r, time
)
ORDER BY r, time`;
