-- Traded quantity stored with each trade (issue #30 item 1). The feed sends a cumulative day volume;
-- the sink now stores each trade's own quantity beside it: its volume minus that of the instrument's
-- previous trade stored on the same UTC day (by trade time), at least 0, the day's first stored
-- trade counting its whole volume (services/feed-sink/src/trade-quantities.ts says why the sink is
-- where it is computed). Bars then sum a column instead of running a window function per request,
-- and the 1-minute bars can keep an exact volume and VWAP.
--
-- Rows stored before this migration have quantity 0: the column is filled from here on.
ALTER TABLE market.ticks
    ADD COLUMN IF NOT EXISTS quantity UInt32 CODEC(T64, ZSTD(1)) AFTER volume;

ALTER TABLE market.ticks
    COMMENT COLUMN IF EXISTS quantity 'shares traded by this trade: volume minus that of the previous trade of the instrument stored on the same UTC day (the first counts its whole volume), at least 0';

-- The 1-minute bars gain the traded quantity and the turnover (sum of price x quantity) of their
-- trades: VWAP = turnover / quantity, exact where vol_max minus the previous bar's vol_max was not
-- (it needed the previous bar, and gave no VWAP at all).
ALTER TABLE market.bars_1m
    ADD COLUMN IF NOT EXISTS quantity SimpleAggregateFunction(sum, UInt64),
    ADD COLUMN IF NOT EXISTS turnover SimpleAggregateFunction(sum, Float64);

ALTER TABLE market.bars_1m
    COMMENT COLUMN IF EXISTS quantity 'shares traded in the minute (sum of the trades'' quantity)',
    COMMENT COLUMN IF EXISTS turnover 'sum of price x quantity of the minute''s trades: VWAP = turnover / quantity';

-- The view is replaced to fill the new columns (a materialized view's query cannot be altered in
-- place on every supported server); migrations run before the services write, so no insert falls
-- between the two statements. Columns are named through the table's alias: the bars' `quantity`
-- would otherwise shadow the ticks' own in the turnover.
DROP VIEW IF EXISTS market.bars_1m_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS market.bars_1m_mv TO market.bars_1m AS
SELECT
    t.security_id AS security_id,
    toStartOfMinute(t.ltt) AS minute,
    argMinState(t.ltp, t.received_at) AS open,
    max(t.ltp) AS high,
    min(t.ltp) AS low,
    argMaxState(t.ltp, t.received_at) AS close,
    min(t.volume) AS vol_min,
    max(t.volume) AS vol_max,
    toUInt64(count()) AS trades,
    sum(toUInt64(t.quantity)) AS quantity,
    sum(toFloat64(t.ltp) * t.quantity) AS turnover
FROM market.ticks AS t
GROUP BY security_id, minute;
