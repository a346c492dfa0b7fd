/**
 * The data set of `bench:api`, generated inside ClickHouse (INSERT ... SELECT FROM numbers(), no
 * rows cross into JS): `ticks` ticks for `instruments` instruments over `days` consecutive trading
 * days (03:45 to 10:00 UTC each, every instrument's ticks spread evenly, volume cumulative per
 * day in steps of 10, so each tick's stored quantity is 10), which fills market.bars_1m through its
 * materialized view; and for the mixed workload a
 * year of daily candles and the days' 5-minute candles of every instrument.
 *
 * On a ClickHouse server (`--clickhouse-url`) the bench writes into the market tables of that
 * server, so it refuses to start unless those tables hold nothing but an earlier run's rows (all
 * tagged kafka_cluster = 'bench' or segment 'BENCH'), and empties them when it ends.
 */
import { FEED_TABLES, HISTORY_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';

export interface DatasetSpec {
  ticks: number;
  instruments: number;
  days: number;
  firstId: number;
  firstDay: string;
}

/** Trading session: 03:45 to 10:00 UTC (09:15 to 15:30 IST). */
const SESSION_START = '03:45:00';
const SESSION_SEC = 22_500;
const BENCH_CLUSTER = 'bench';
const BENCH_SEGMENT = 'BENCH';

/** Tables the bench fills (bars_1m through the view on ticks). */
export const BENCH_TABLES = [
  FEED_TABLES.ticks.name,
  FEED_TABLES.bars1m.name,
  HISTORY_TABLES.candlesDaily.name,
  HISTORY_TABLES.candlesIntraday.name,
] as const;

export async function insertTicks(lane: StoreLane, spec: DatasetSpec): Promise<void> {
  const perInstrument = Math.ceil(spec.ticks / spec.instruments);
  const perDay = Math.ceil(perInstrument / spec.days);
  await lane.command(
    `INSERT INTO ${FEED_TABLES.ticks.name} (${FEED_TABLES.ticks.columns.join(', ')})
      SELECT ${spec.firstId} + number % ${spec.instruments} AS sid, 14,
             toFloat32(100 + (cityHash64(number) % 1000) / 100),
             toInt32((intDiv(number, ${spec.instruments}) % ${perDay} + 1) * 10),
             toUInt32(10),
             toDateTime('${spec.firstDay} ${SESSION_START}', 'UTC')
               + intDiv(intDiv(number, ${spec.instruments}), ${perDay}) * 86400
               + intDiv((intDiv(number, ${spec.instruments}) % ${perDay}) * ${SESSION_SEC}, ${perDay}) AS t,
             t,
             toDateTime64(t, 6, 'UTC') + toIntervalMicrosecond(number % 1000000),
             toUInt16(number % 16), number, '${BENCH_CLUSTER}'
      FROM numbers(${spec.ticks})`,
  );
}

/** A year of daily candles before the first day, and the days' 5-minute candles. */
export async function insertCandles(lane: StoreLane, spec: DatasetSpec): Promise<void> {
  const daily = HISTORY_TABLES.candlesDaily;
  const dailyDays = 365;
  await lane.command(
    `INSERT INTO ${daily.name} (${daily.columns.join(', ')})
      SELECT ${spec.firstId} + number % ${spec.instruments}, '${BENCH_SEGMENT}',
             toDateTime('${spec.firstDay} 00:00:00', 'UTC') - (${dailyDays} - intDiv(number, ${spec.instruments})) * 86400 - 19800,
             100 + (cityHash64(number) % 1000) / 100 AS o, o + 2, o - 2, o + 1, toInt64(number % 100000), 0,
             now64(3, 'UTC')
      FROM numbers(${dailyDays * spec.instruments})`,
  );
  const intraday = HISTORY_TABLES.candlesIntraday;
  const bars = SESSION_SEC / 300;
  await lane.command(
    `INSERT INTO ${intraday.name} (${intraday.columns.join(', ')})
      SELECT ${spec.firstId} + number % ${spec.instruments}, '${BENCH_SEGMENT}', 5,
             toDateTime('${spec.firstDay} ${SESSION_START}', 'UTC')
               + intDiv(intDiv(number, ${spec.instruments}), ${bars}) * 86400
               + (intDiv(number, ${spec.instruments}) % ${bars}) * 300,
             100 + (cityHash64(number) % 1000) / 100 AS o, o + 1, o - 1, o + 0.5, toInt64(number % 10000), 0,
             now64(3, 'UTC')
      FROM numbers(${bars * spec.days * spec.instruments})`,
  );
}

/**
 * On a server: refuses when a table the bench fills holds rows of anything but an earlier run,
 * so real data is never mixed with (or emptied with) the bench's.
 */
export async function checkServerTablesFree(lane: StoreLane): Promise<void> {
  const [row] = await lane.rows<{ foreign: string | number }>(
    `SELECT
       (SELECT count() FROM ${FEED_TABLES.ticks.name} WHERE kafka_cluster != '${BENCH_CLUSTER}')
     + (SELECT count() FROM ${HISTORY_TABLES.candlesDaily.name} WHERE segment != '${BENCH_SEGMENT}')
     + (SELECT count() FROM ${HISTORY_TABLES.candlesIntraday.name} WHERE segment != '${BENCH_SEGMENT}') AS foreign`,
  );
  if (Number(row?.foreign ?? 0) > 0) {
    throw new Error(
      `the server's market tables hold ${row?.foreign} rows that are not the benchmark's: run bench:api against a scratch ClickHouse server (it fills and then empties ${BENCH_TABLES.join(', ')})`,
    );
  }
}

/** Merges the parts of the tables the bench filled (OPTIMIZE ... FINAL). */
export async function optimizeBenchTables(lane: StoreLane): Promise<void> {
  for (const table of BENCH_TABLES) await lane.command(`OPTIMIZE TABLE ${table} FINAL`);
}

/** Empties the tables the bench filled (after checkServerTablesFree said they held only its rows). */
export async function truncateBenchTables(lane: StoreLane): Promise<void> {
  for (const table of BENCH_TABLES) await lane.command(`TRUNCATE TABLE IF EXISTS ${table}`);
}
