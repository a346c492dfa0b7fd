import { FEED_TABLES } from '@feedpipe/contracts';
/**
 * Bars resampled from ticks at any interval from 1 s to 1 day, bucketed by trade time (ltt).
 *
 * Volume on the wire is cumulative per day, so a tick's traded quantity is its volume minus the
 * previous tick's volume on the same UTC day (the first tick of a day counts its whole cumulative
 * volume: everything traded since the open). To know the previous tick of the range's first tick,
 * the scan starts at midnight of `from`'s day and rows before `from` are dropped after the window
 * function. VWAP = sum(price x quantity) / sum(quantity), null for a bar without traded quantity.
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
    toInt64(sum(qty)) AS volume,
    if(sum(qty) > 0, sum(toFloat64(ltp) * qty) / sum(qty), NULL) AS vwap,
    count() AS trades
FROM
(
    SELECT ltt, ltp, received_at, kafka_offset,
        greatest(toInt64(volume) - lagInFrame(toInt64(volume), 1, 0) OVER w, 0) AS qty
    FROM ${FEED_TABLES.ticks.name}
    WHERE security_id = {sid:UInt32}
      AND ltt >= toStartOfDay(toDateTime({fromSec:UInt32}, 'UTC'))
      AND ltt < toDateTime({toSec:UInt32}, 'UTC')
    WINDOW w AS (PARTITION BY toDate(ltt) ORDER BY received_at, kafka_offset
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
WHERE ltt >= toDateTime({fromSec:UInt32}, 'UTC')
GROUP BY time
ORDER BY time`;
