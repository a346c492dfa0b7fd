-- 1-minute bars exactly as bars computed from the ticks (issue #30): open and close decided the way
-- the query API's BARS_SQL decides them, by receive time and then Kafka offset, so a reader of
-- market.bars_1m gets the same bars as one aggregating the minute's ticks. The existing open/close
-- states order by receive time alone: two trades received in the same microsecond (a feed packet
-- carries several) leave either one as the open, whichever the engine met first.
--
-- The order key is one UInt128 (receive time in microseconds in the high half, the offset in the
-- low): the same order as the tuple (received_at, kafka_offset), and an argMin state over a
-- number is read and merged without the per-value overhead of a tuple's.
--
-- An aggregate state's type cannot be changed in place, so the exact states are columns of their
-- own beside open/close (kept for readers that use them). After this migration the runner rebuilds
-- the bars from the ticks (packages/store/src/fill/rebuild-bars.ts), so rows stored before it get
-- the exact states too; a minute whose ticks are no longer all stored keeps its bar as it was.
ALTER TABLE market.bars_1m
    ADD COLUMN IF NOT EXISTS open_exact AggregateFunction(argMin, Float32, UInt128),
    ADD COLUMN IF NOT EXISTS close_exact AggregateFunction(argMax, Float32, UInt128);

ALTER TABLE market.bars_1m
    COMMENT COLUMN IF EXISTS open_exact 'first price of the minute by (received_at, kafka_offset), as bars from ticks decide it (argMin state: read with argMinMerge)',
    COMMENT COLUMN IF EXISTS close_exact 'last price of the minute by (received_at, kafka_offset), as bars from ticks decide it (argMax state: read with argMaxMerge)';

-- Replaced to fill the new columns, as 013 replaced it (migrations run before the services write).
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
    sum(toFloat64(t.ltp) * t.quantity) AS turnover,
    argMinState(t.ltp, bitShiftLeft(toUInt128(toUnixTimestamp64Micro(t.received_at)), 64) + t.kafka_offset) AS open_exact,
    argMaxState(t.ltp, bitShiftLeft(toUInt128(toUnixTimestamp64Micro(t.received_at)), 64) + t.kafka_offset) AS close_exact
FROM market.ticks AS t
GROUP BY security_id, minute;
