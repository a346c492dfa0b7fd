-- Numbered 010: main took 009 (009_retention.sql) while this branch was open.
-- Column comments on every market-data table (issue #33): SQL tools show them beside each column
-- (DBeaver's and Grafana's browsers, JDBC DatabaseMetaData.getColumns REMARKS, DESCRIBE). Comments only:
-- no data or type changes. IF EXISTS keeps a comment of a column a later migration drops harmless.

ALTER TABLE market.ticks
    COMMENT COLUMN IF EXISTS security_id 'instrument (security id of the feed)',
    COMMENT COLUMN IF EXISTS segment 'exchange segment as the numeric code of the packet header (14 = INX_EQ)',
    COMMENT COLUMN IF EXISTS ltp 'last traded price',
    COMMENT COLUMN IF EXISTS volume 'cumulative traded volume of the day at this trade',
    COMMENT COLUMN IF EXISTS ltt 'last trade time reported by the exchange (UTC, seconds)',
    COMMENT COLUMN IF EXISTS lut 'last update time reported by the feed (UTC, seconds)',
    COMMENT COLUMN IF EXISTS received_at 'when the ingestor received the frame (UTC, microseconds)',
    COMMENT COLUMN IF EXISTS kafka_partition 'Kafka partition the row was read from (with kafka_offset and kafka_cluster: where it came from; the sink skips offsets already stored)',
    COMMENT COLUMN IF EXISTS kafka_offset 'Kafka offset of the record the row was read from',
    COMMENT COLUMN IF EXISTS kafka_cluster 'id of the Kafka cluster the row was read from';

ALTER TABLE market.ohlc_updates
    COMMENT COLUMN IF EXISTS security_id 'instrument',
    COMMENT COLUMN IF EXISTS segment 'exchange segment as the numeric code of the packet header (14 = INX_EQ)',
    COMMENT COLUMN IF EXISTS open 'day open price',
    COMMENT COLUMN IF EXISTS close 'previous close price as the feed reports it',
    COMMENT COLUMN IF EXISTS high 'day high price',
    COMMENT COLUMN IF EXISTS low 'day low price',
    COMMENT COLUMN IF EXISTS received_at 'when the ingestor received the frame (UTC, microseconds)',
    COMMENT COLUMN IF EXISTS kafka_partition 'Kafka partition the row was read from (with kafka_offset and kafka_cluster: where it came from; the sink skips offsets already stored)',
    COMMENT COLUMN IF EXISTS kafka_offset 'Kafka offset of the record the row was read from',
    COMMENT COLUMN IF EXISTS kafka_cluster 'id of the Kafka cluster the row was read from';

ALTER TABLE market.reference_updates
    COMMENT COLUMN IF EXISTS security_id 'instrument',
    COMMENT COLUMN IF EXISTS segment 'exchange segment as the numeric code of the packet header (14 = INX_EQ)',
    COMMENT COLUMN IF EXISTS kind 'prev_close, circuit_limit or week52',
    COMMENT COLUMN IF EXISTS value1 'prev_close: previous close; circuit_limit: upper limit; week52: 52-week high',
    COMMENT COLUMN IF EXISTS value2 'circuit_limit: lower limit; week52: 52-week low; prev_close: 0',
    COMMENT COLUMN IF EXISTS received_at 'when the ingestor received the frame (UTC, microseconds)',
    COMMENT COLUMN IF EXISTS kafka_partition 'Kafka partition the row was read from (with kafka_offset and kafka_cluster: where it came from; the sink skips offsets already stored)',
    COMMENT COLUMN IF EXISTS kafka_offset 'Kafka offset of the record the row was read from',
    COMMENT COLUMN IF EXISTS kafka_cluster 'id of the Kafka cluster the row was read from';

ALTER TABLE market.feed_status
    COMMENT COLUMN IF EXISTS type 'market_status (market open or closed) or error (a feed error packet)',
    COMMENT COLUMN IF EXISTS security_id 'instrument (0 for market status and connection errors)',
    COMMENT COLUMN IF EXISTS segment 'exchange segment as the numeric code of the packet header (14 = INX_EQ)',
    COMMENT COLUMN IF EXISTS market_type 'market types the status applies to',
    COMMENT COLUMN IF EXISTS status 'market status code of the feed',
    COMMENT COLUMN IF EXISTS error_code 'feed error code (error rows)',
    COMMENT COLUMN IF EXISTS received_at 'when the ingestor received the frame (UTC, microseconds)',
    COMMENT COLUMN IF EXISTS kafka_partition 'Kafka partition the row was read from (with kafka_offset and kafka_cluster: where it came from; the sink skips offsets already stored)',
    COMMENT COLUMN IF EXISTS kafka_offset 'Kafka offset of the record the row was read from',
    COMMENT COLUMN IF EXISTS kafka_cluster 'id of the Kafka cluster the row was read from';

ALTER TABLE market.feed_gaps
    COMMENT COLUMN IF EXISTS security_id 'instrument whose subscription was not live',
    COMMENT COLUMN IF EXISTS segment 'exchange segment as the numeric code of the packet header (14 = INX_EQ)',
    COMMENT COLUMN IF EXISTS subscription 'subscription kind (trade or ohlc)',
    COMMENT COLUMN IF EXISTS cause 'connection_down, reconnect_pending, eviction, token_renewal, backpressure, process_stopped or stale',
    COMMENT COLUMN IF EXISTS started_at 'start of the interval without live data (UTC)',
    COMMENT COLUMN IF EXISTS ended_at 'end of that interval (UTC)',
    COMMENT COLUMN IF EXISTS connection 'feed connection of the subscription',
    COMMENT COLUMN IF EXISTS kafka_partition 'Kafka partition the row was read from (with kafka_offset and kafka_cluster: where it came from; the sink skips offsets already stored)',
    COMMENT COLUMN IF EXISTS kafka_offset 'Kafka offset of the record the row was read from',
    COMMENT COLUMN IF EXISTS kafka_cluster 'id of the Kafka cluster the row was read from';

ALTER TABLE market.bars_1m
    COMMENT COLUMN IF EXISTS security_id 'instrument',
    COMMENT COLUMN IF EXISTS minute 'start of the minute (UTC)',
    COMMENT COLUMN IF EXISTS open 'first price of the minute (argMin state: read with argMinMerge)',
    COMMENT COLUMN IF EXISTS high 'highest price of the minute',
    COMMENT COLUMN IF EXISTS low 'lowest price of the minute',
    COMMENT COLUMN IF EXISTS close 'last price of the minute (argMax state: read with argMaxMerge)',
    COMMENT COLUMN IF EXISTS vol_min 'lowest cumulative day volume seen in the minute',
    COMMENT COLUMN IF EXISTS vol_max 'highest cumulative day volume seen in the minute',
    COMMENT COLUMN IF EXISTS trades 'trades in the minute';

ALTER TABLE market.candles_daily
    COMMENT COLUMN IF EXISTS security_id 'instrument',
    COMMENT COLUMN IF EXISTS segment 'exchange segment (NSE_EQ, NSE_FNO, ...)',
    COMMENT COLUMN IF EXISTS ts 'trading day (UTC midnight of the day)',
    COMMENT COLUMN IF EXISTS open 'open price',
    COMMENT COLUMN IF EXISTS high 'high price',
    COMMENT COLUMN IF EXISTS low 'low price',
    COMMENT COLUMN IF EXISTS close 'close price',
    COMMENT COLUMN IF EXISTS volume 'traded volume',
    COMMENT COLUMN IF EXISTS open_interest 'open interest (derivatives; 0 otherwise)',
    COMMENT COLUMN IF EXISTS loaded_at 'when the history loader stored the row (UTC)';

ALTER TABLE market.candles_intraday
    COMMENT COLUMN IF EXISTS security_id 'instrument',
    COMMENT COLUMN IF EXISTS segment 'exchange segment (NSE_EQ, NSE_FNO, ...)',
    COMMENT COLUMN IF EXISTS interval 'candle length in minutes (1, 5, 15, 25, 60)',
    COMMENT COLUMN IF EXISTS ts 'candle start (UTC)',
    COMMENT COLUMN IF EXISTS open 'open price',
    COMMENT COLUMN IF EXISTS high 'high price',
    COMMENT COLUMN IF EXISTS low 'low price',
    COMMENT COLUMN IF EXISTS close 'close price',
    COMMENT COLUMN IF EXISTS volume 'traded volume',
    COMMENT COLUMN IF EXISTS open_interest 'open interest (derivatives; 0 otherwise)',
    COMMENT COLUMN IF EXISTS loaded_at 'when the history loader stored the row (UTC)';

ALTER TABLE market.option_chain_snapshots
    COMMENT COLUMN IF EXISTS underlying_id 'security id of the underlying',
    COMMENT COLUMN IF EXISTS underlying_segment 'exchange segment of the underlying',
    COMMENT COLUMN IF EXISTS expiry 'expiry date of the chain',
    COMMENT COLUMN IF EXISTS slot 'the snapshot slot the row belongs to (UTC)',
    COMMENT COLUMN IF EXISTS strike 'strike price',
    COMMENT COLUMN IF EXISTS side 'CE (call) or PE (put)',
    COMMENT COLUMN IF EXISTS snapshot_at 'when the chain answer arrived (UTC)',
    COMMENT COLUMN IF EXISTS underlying_price 'price of the underlying',
    COMMENT COLUMN IF EXISTS option_security_id 'security id of the option',
    COMMENT COLUMN IF EXISTS last_price 'last traded price of the option',
    COMMENT COLUMN IF EXISTS average_price 'average traded price of the day',
    COMMENT COLUMN IF EXISTS previous_close_price 'previous close price',
    COMMENT COLUMN IF EXISTS implied_volatility 'implied volatility',
    COMMENT COLUMN IF EXISTS delta 'delta',
    COMMENT COLUMN IF EXISTS theta 'theta',
    COMMENT COLUMN IF EXISTS gamma 'gamma',
    COMMENT COLUMN IF EXISTS vega 'vega',
    COMMENT COLUMN IF EXISTS oi 'open interest',
    COMMENT COLUMN IF EXISTS previous_oi 'previous day open interest',
    COMMENT COLUMN IF EXISTS volume 'traded volume of the day',
    COMMENT COLUMN IF EXISTS previous_volume 'previous day volume',
    COMMENT COLUMN IF EXISTS top_bid_price 'best bid price',
    COMMENT COLUMN IF EXISTS top_bid_quantity 'best bid quantity',
    COMMENT COLUMN IF EXISTS top_ask_price 'best ask price',
    COMMENT COLUMN IF EXISTS top_ask_quantity 'best ask quantity',
    COMMENT COLUMN IF EXISTS loaded_at 'when the history loader stored the row (UTC)';

ALTER TABLE market.expiry_lists
    COMMENT COLUMN IF EXISTS underlying_id 'security id of the underlying',
    COMMENT COLUMN IF EXISTS underlying_segment 'exchange segment of the underlying',
    COMMENT COLUMN IF EXISTS as_of 'day the expiry list was read',
    COMMENT COLUMN IF EXISTS expiry 'an expiry date listed that day',
    COMMENT COLUMN IF EXISTS loaded_at 'when the history loader stored the row (UTC)';

ALTER TABLE market.expired_options
    COMMENT COLUMN IF EXISTS underlying_id 'security id of the underlying',
    COMMENT COLUMN IF EXISTS exchange_segment 'exchange segment',
    COMMENT COLUMN IF EXISTS instrument 'instrument type (OPTIDX, OPTSTK, ...)',
    COMMENT COLUMN IF EXISTS expiry_flag 'WEEK or MONTH expiries',
    COMMENT COLUMN IF EXISTS expiry_code '0 = nearest expiry, 1 = next, ...',
    COMMENT COLUMN IF EXISTS option_type 'CALL or PUT',
    COMMENT COLUMN IF EXISTS strike_offset 'strike relative to at the money (0 = ATM, +1 = one strike above, ...)',
    COMMENT COLUMN IF EXISTS interval 'candle length in minutes',
    COMMENT COLUMN IF EXISTS ts 'candle start (UTC)',
    COMMENT COLUMN IF EXISTS open 'open price',
    COMMENT COLUMN IF EXISTS high 'high price',
    COMMENT COLUMN IF EXISTS low 'low price',
    COMMENT COLUMN IF EXISTS close 'close price',
    COMMENT COLUMN IF EXISTS iv 'implied volatility',
    COMMENT COLUMN IF EXISTS volume 'traded volume',
    COMMENT COLUMN IF EXISTS oi 'open interest',
    COMMENT COLUMN IF EXISTS strike 'strike price of the option at that time',
    COMMENT COLUMN IF EXISTS spot 'price of the underlying',
    COMMENT COLUMN IF EXISTS loaded_at 'when the history loader stored the row (UTC)';
