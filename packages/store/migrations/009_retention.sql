-- Retention (packages/store/src/retention): the default TTL of each market-data table. The raw feed
-- (ticks, OHLC and reference updates, statuses) is kept 90 days; bars, candles, option chains,
-- expired options and the ledger of gaps have no TTL (kept until an operator sets one).
-- STORE_TTL_<TABLE>_DAYS changes a table's TTL at start (applyRetention), never by editing this file.
--
-- ttl_only_drop_parts = 1: a part leaves whole once all its rows are past the TTL, instead of merges
-- rewriting parts row by row; every TTL column is its table's partition column, so a month (a
-- decade for daily candles) goes at once. materialize_ttl_after_modify = 0: installing a TTL is a
-- change of metadata only, no mutation rewrites the parts that exist; they age out as they would.
-- A month therefore stays up to a month past its TTL (the whole partition leaves with its last day).
ALTER TABLE market.ticks MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.ticks MODIFY TTL received_at + INTERVAL 90 DAY SETTINGS materialize_ttl_after_modify = 0;

ALTER TABLE market.ohlc_updates MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.ohlc_updates MODIFY TTL received_at + INTERVAL 90 DAY SETTINGS materialize_ttl_after_modify = 0;

ALTER TABLE market.reference_updates MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.reference_updates MODIFY TTL received_at + INTERVAL 90 DAY SETTINGS materialize_ttl_after_modify = 0;

ALTER TABLE market.feed_status MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.feed_status MODIFY TTL received_at + INTERVAL 90 DAY SETTINGS materialize_ttl_after_modify = 0;

ALTER TABLE market.feed_gaps MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.bars_1m MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.candles_daily MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.candles_intraday MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.option_chain_snapshots MODIFY SETTING ttl_only_drop_parts = 1;
ALTER TABLE market.expired_options MODIFY SETTING ttl_only_drop_parts = 1;
