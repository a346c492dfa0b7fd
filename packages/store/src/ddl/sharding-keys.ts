/**
 * How each table of the migrations is spread over the shards of a ClickHouse cluster: the sharding
 * key of its Distributed table. The one piece of the cluster layout the migrations cannot say, so it
 * is declared here, table by table; the generator refuses a table that has none (adding a table to
 * the migrations means choosing its key here).
 *
 * Rules the keys follow (the generator checks the second):
 *   - Per-instrument tables shard by the security id (option tables by the underlying): one
 *     instrument's ticks, OHLC and bars sit on one shard, so the bars view aggregates locally.
 *   - ReplacingMergeTree and AggregatingMergeTree merge rows of one key within one shard only, so a
 *     replacing or aggregating table's key must be a function of its ORDER BY columns (never
 *     rand()): both copies of a row land on one shard and FINAL through the Distributed table stays
 *     exact. Ordering api_keys and gateway_api_keys by key id, order_audit by correlation id (an idempotent retry finds its
 *     earlier request on one shard), order_events by order id (one order's transitions on one shard)
 *     dead letters by body hash, fills by
 *     fill key and account snapshots by account follow from it.
 *   - Plain logs without a per-key access path (feed_status, loader_requests) use rand().
 */
export const CLUSTER_SHARDING_KEYS: Readonly<Record<string, string>> = Object.freeze({
  ticks: 'intHash64(security_id)',
  ohlc_updates: 'intHash64(security_id)',
  reference_updates: 'intHash64(security_id)',
  feed_status: 'rand()',
  feed_gaps: 'intHash64(security_id)',
  bars_1m: 'intHash64(security_id)',
  candles_daily: 'intHash64(security_id)',
  candles_intraday: 'intHash64(security_id)',
  option_chain_snapshots: 'intHash64(underlying_id)',
  expiry_lists: 'intHash64(underlying_id)',
  expired_options: 'intHash64(underlying_id)',
  instruments: 'intHash64(security_id)',
  quotes: 'intHash64(security_id)',
  load_units: 'cityHash64(kind, security_id)',
  loader_requests: 'rand()',
  api_keys: 'cityHash64(key_id)',
  gateway_api_keys: 'cityHash64(key_id)',
  order_audit: 'cityHash64(correlation_id)',
  order_events: 'cityHash64(order_id)',
  postback_dead_letters: 'cityHash64(body_sha256)',
  fills: 'cityHash64(fill_key)',
  account_snapshots: 'cityHash64(client_id)',
});

const HASH_FUNCTIONS = /^(intHash64|cityHash64|sipHash64|xxHash64|rand)$/;

/** Columns a sharding key expression reads. */
export function shardingKeyColumns(expression: string): string[] {
  return [...expression.matchAll(/[a-z_][a-z0-9_]*/gi)]
    .map((m) => m[0])
    .filter((id) => !HASH_FUNCTIONS.test(id));
}
