/**
 * Test setup: an embedded store in a fresh directory, migrated, with a small fixture of every table
 * the API reads (written with INSERT ... SELECT inside ClickHouse), and keys of each scope.
 */
import { FEED_TABLES, HISTORY_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store, type StoreConfig } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import { createQueryApi, type QueryApi, type QueryApiConfig, type QueryApiDeps } from '../src/index.js';

export const DAY = '2024-03-04';
/** Two live instruments with 600 ticks each, one tick a second from 09:00 UTC. */
export const LIVE_A = 1_000_001;
export const LIVE_B = 1_000_002;
/** An instrument with only history (daily and intraday candles). */
export const HIST = 2885;
export const UNDERLYING = 13;

export interface Harness {
  store: Store;
  api: QueryApi;
  read: Record<string, string>;
  /** A key without the read scope (admin only): what a key of the wrong scope gets. */
  admin: Record<string, string>;
  /** read + admin. */
  both: Record<string, string>;
  close(): Promise<void>;
}

export async function seedFixture(store: Store): Promise<void> {
  const c = store.internal;
  // Volume is cumulative per day: instrument A trades 10 per tick, B 20 per tick.
  // Each tick's quantity as the sink stores it: one step of its instrument's cumulative volume.
  await c.command(`INSERT INTO ${FEED_TABLES.ticks.name} (security_id, segment, ltp, volume, quantity, ltt, lut, received_at, kafka_partition, kafka_offset, kafka_cluster)
      SELECT ${LIVE_A} + (number % 2), 14, toFloat32(100 + intDiv(number, 2) % 10),
             toInt32((intDiv(number, 2) + 1) * (10 + 10 * (number % 2))), toUInt32(10 + 10 * (number % 2)),
             toDateTime('${DAY} 09:00:00', 'UTC') + intDiv(number, 2), toDateTime('${DAY} 09:00:00', 'UTC') + intDiv(number, 2),
             toDateTime64('${DAY} 09:00:00', 6, 'UTC') + toIntervalMillisecond(intDiv(number, 2) * 1000 + 100 + number % 2),
             0, number, 'test'
      FROM numbers(1200)`);
  await c.command(`INSERT INTO ${FEED_TABLES.referenceUpdates.name} (security_id, segment, kind, value1, value2, received_at, kafka_partition, kafka_offset) VALUES
      (${LIVE_A}, 14, 'prev_close', 98, 0, '${DAY} 08:59:00', 0, 1),
      (${LIVE_A}, 14, 'circuit_limit', 117.6, 78.4, '${DAY} 08:59:00', 0, 2),
      (${LIVE_A}, 14, 'week52', 130, 60, '${DAY} 08:59:00', 0, 3)`);
  await c.command(`INSERT INTO ${FEED_TABLES.feedStatus.name} (type, security_id, segment, market_type, status, error_code, received_at, kafka_partition, kafka_offset)
      VALUES ('market_status', 0, 14, [1, 0, 0], 2, 0, '${DAY} 08:55:00', 0, 1)`);
  // Daily candles as the service stamps them: midnight IST of each day, 18:30 UTC the day before.
  await c.command(`INSERT INTO ${HISTORY_TABLES.candlesDaily.name} SELECT ${HIST}, 'NSE_EQ', toDateTime('2023-12-31 18:30:00', 'UTC') + toIntervalDay(number),
      100 + number, 105 + number, 95 + number, 101 + number, 1000 * (number + 1), 0, now64(3) FROM numbers(30)`);
  await c.command(`INSERT INTO ${HISTORY_TABLES.candlesIntraday.name} SELECT ${HIST}, 'NSE_EQ', 5, toDateTime('${DAY} 03:45:00', 'UTC') + toIntervalMinute(5 * number),
      100 + number, 101 + number, 99 + number, 100.5 + number, 100 * (number + 1), 0, now64(3) FROM numbers(20)`);
  // Two snapshots of the chain for one expiry, strikes 24000..24400 by 100; OI grows with strike for puts.
  await c.command(`INSERT INTO ${HISTORY_TABLES.optionChainSnapshots.name} (underlying_id, underlying_segment, expiry, slot, strike, side, snapshot_at,
        underlying_price, option_security_id, last_price, implied_volatility, oi, previous_oi, volume, loaded_at)
      SELECT ${UNDERLYING}, 'IDX_I', toDate('2024-03-07'), toDateTime('${DAY} 09:00:00', 'UTC') + toIntervalHour(s),
             24000 + 100 * k, if(side = 1, 'CE', 'PE'), toDateTime64('${DAY} 09:00:01', 3, 'UTC') + toIntervalHour(s),
             24200, 40000 + k * 2 + side, 50, 0.12 + abs(k - 2) * 0.01, if(side = 1, 1000, 1500) * (s + 1), 900, 10 * (k + 1), now64(3)
      FROM (SELECT number % 5 AS k, intDiv(number, 5) % 2 AS s, intDiv(number, 10) + 1 AS side FROM numbers(20))`);
  await c.command(`INSERT INTO ${HISTORY_TABLES.expiryLists.name} VALUES (${UNDERLYING}, 'IDX_I', '${DAY}', '2024-03-07', now64(3)),
      (${UNDERLYING}, 'IDX_I', '${DAY}', '2024-03-14', now64(3))`);
  await c.command(`INSERT INTO ${HISTORY_TABLES.expiredOptions.name} (underlying_id, exchange_segment, instrument, expiry_flag, expiry_code, option_type,
        strike_offset, interval, ts, open, high, low, close, iv, volume, oi, strike, spot, loaded_at)
      SELECT ${UNDERLYING}, 'NSE_FNO', 'OPTIDX', 'WEEK', 1, if(number % 2 = 0, 'CALL', 'PUT'), 0, 1,
             toDateTime('2024-02-01 03:45:00', 'UTC') + toIntervalMinute(intDiv(number, 2)), 100, 101, 99, 100, 0.15, 10, 1000, 22000, 22010, now64(3)
      FROM numbers(40)`);
}

export async function startHarness(
  config: QueryApiConfig = {},
  deps: Omit<QueryApiDeps, 'store'> = {},
  seed = true,
  storeOptions: Omit<StoreConfig, 'url' | 'dataDir'> = {},
): Promise<Harness> {
  const store = createStore({ dataDir: tempDir('query-api'), ...storeOptions });
  await runMigrations(store.internal);
  if (seed) await seedFixture(store);
  const api = await createQueryApi({ port: 0, ...config }, { store, ...deps });
  const read = { 'x-api-key': (await api.keys.create('reader', ['read'])).key };
  const admin = { 'x-api-key': (await api.keys.create('keeper', ['admin'])).key };
  const both = { 'x-api-key': (await api.keys.create('desk', ['read', 'admin'])).key };
  return {
    store,
    api,
    read,
    admin,
    both,
    async close() {
      await api.stop();
      await store.close();
    },
  };
}

export interface JsonTable<T = Record<string, unknown>> {
  meta: { name: string; type: string }[];
  data: T[];
  rows: number;
}
