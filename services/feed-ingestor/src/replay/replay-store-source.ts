/**
 * Stored feed rows as replay groups: market.ticks, ohlc_updates, reference_updates and
 * feed_status in a time range, read back through the store port in pages and turned into the
 * records the ingestor produced from them. The pages walk one total order, (receive time, table,
 * Kafka cluster, partition, offset), with the last row read as the next page's lower bound
 * (keyset paging: every page is one bounded query, whatever the range's size), so the rows of one
 * microsecond have the same places on every replay of any range that holds them, which their
 * identities rely on (replay-identity.ts).
 */
import type { FeedRecord } from '@feedpipe/contracts';
import { FEED_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { storeIdentity } from './replay-identity.js';
import type { ReplayGroup, ReplaySourceCounts } from './replay-record.js';

/** Rows per page: a few MB of JSON, small next to any lane's memory. */
export const STORE_PAGE_ROWS = 20_000;

/** One row of the union below; 64-bit integers arrive as strings (JSONEachRow). */
interface StoredRow {
  t: number;
  type: string;
  security_id: number;
  segment: number;
  a: number;
  b: number;
  c: number;
  d: number;
  i1: number | string;
  i2: number | string;
  i3: number | string;
  market_type: number[];
  us: number | string;
  kafka_cluster: string;
  kafka_partition: number;
  kafka_offset: number | string;
}

/** The four tables in one shape: `t` orders them, floats are widened exactly (a Float32 fits a Float64). */
function unionSql(): string {
  const { ticks, ohlcUpdates, referenceUpdates, feedStatus } = FEED_TABLES;
  const range =
    'received_at >= fromUnixTimestamp64Micro({lower:Int64}) AND received_at < fromUnixTimestamp64Micro({upper:Int64})';
  const tail = 'toUnixTimestamp64Micro(received_at) AS us, kafka_cluster, kafka_partition, kafka_offset';
  return `
SELECT 0 AS t, 'trade' AS type, security_id, segment, toFloat64(ltp) AS a, 0.0 AS b, 0.0 AS c, 0.0 AS d,
       toInt64(volume) AS i1, toInt64(toUnixTimestamp(ltt)) AS i2, toInt64(toUnixTimestamp(lut)) AS i3,
       CAST([], 'Array(UInt8)') AS market_type, ${tail}
  FROM ${ticks.name} WHERE ${range}
UNION ALL
SELECT 1, 'ohlc', security_id, segment, toFloat64(open), toFloat64(close), toFloat64(high), toFloat64(low),
       toInt64(0), toInt64(0), toInt64(0), CAST([], 'Array(UInt8)'), ${tail}
  FROM ${ohlcUpdates.name} WHERE ${range}
UNION ALL
SELECT 2, toString(kind), security_id, segment, toFloat64(value1), toFloat64(value2), 0.0, 0.0,
       toInt64(0), toInt64(0), toInt64(0), CAST([], 'Array(UInt8)'), ${tail}
  FROM ${referenceUpdates.name} WHERE ${range}
UNION ALL
SELECT 3, toString(type), security_id, segment, 0.0, 0.0, 0.0, 0.0,
       toInt64(status), toInt64(error_code), toInt64(0), market_type, ${tail}
  FROM ${feedStatus.name} WHERE ${range}`;
}

const PAGE_SQL = `
SELECT * FROM (${unionSql()})
WHERE (us, t, kafka_cluster, kafka_partition, kafka_offset) >
      ({us:Int64}, {t:UInt8}, {cluster:String}, {partition:UInt16}, {offset:UInt64})
ORDER BY us, t, kafka_cluster, kafka_partition, kafka_offset
LIMIT {limit:UInt32}`;

/** The record the ingestor produced for a stored row (the sink's mapping, backwards). */
export function recordOfRow(row: StoredRow): FeedRecord {
  const base = { segment: row.segment, securityId: row.security_id };
  switch (row.type) {
    case 'trade':
      return {
        type: 'trade',
        ...base,
        ltp: row.a,
        volume: Number(row.i1),
        ltt: Number(row.i2),
        lut: Number(row.i3),
      };
    case 'ohlc':
      return { type: 'ohlc', ...base, open: row.a, close: row.b, high: row.c, low: row.d };
    case 'prev_close':
      return { type: 'prev_close', ...base, prevClose: row.a };
    case 'circuit_limit':
      return { type: 'circuit_limit', ...base, upper: row.a, lower: row.b };
    case 'week52':
      return { type: 'week52', ...base, high: row.a, low: row.b };
    case 'market_status': {
      const [x = 0, y = 0, z = 0] = row.market_type;
      return { type: 'market_status', ...base, marketType: [x, y, z], status: Number(row.i1) };
    }
    default:
      return { type: 'error', ...base, code: Number(row.i2) };
  }
}

export interface StoreSourceOptions {
  store: StoreLane;
  /** Both ends are required: a replay from the store names what it reads. */
  range: { fromMicros: number; toMicros: number };
  pageRows?: number;
}

export async function* storeGroups(
  options: StoreSourceOptions,
  counts: ReplaySourceCounts,
): AsyncGenerator<ReplayGroup> {
  const limit = options.pageRows ?? STORE_PAGE_ROWS;
  // Below every real key: the first page starts at the range's start.
  let after = { us: options.range.fromMicros - 1, t: 0, cluster: '', partition: 0, offset: '0' };
  let group: ReplayGroup | undefined;
  for (;;) {
    const rows = await options.store.rows<StoredRow>(PAGE_SQL, {
      lower: Math.max(options.range.fromMicros, after.us),
      upper: options.range.toMicros,
      ...after,
      limit,
    });
    for (const row of rows) {
      const us = Number(row.us);
      if (group === undefined || group.receivedAtMicros !== us) {
        if (group !== undefined) yield group;
        group = { receivedAtMicros: us, records: [] };
        counts.read += 1;
      }
      group.records.push({ record: recordOfRow(row), identity: storeIdentity(us, group.records.length) });
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < limit) break;
    after = {
      us: Number(last.us),
      t: last.t,
      cluster: last.kafka_cluster,
      partition: last.kafka_partition,
      offset: String(last.kafka_offset),
    };
  }
  if (group !== undefined) yield group;
}
