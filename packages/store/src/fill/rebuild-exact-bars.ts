/**
 * Migration 015's data: every 1-minute bar rebuilt so its exact open and close states
 * (open_exact, close_exact) are filled, without losing a bar whose ticks are gone.
 *
 * The bars are computed again from the ticks by the view's own query (read from the engine, so the
 * rebuild cannot drift from what the view computes), into a scratch table. Then, partition by
 * partition (a month of bars), each minute takes either that rebuilt bar or the bar it had:
 * - rebuilt, where the ticks still hold at least the trades the stored bar counted (the normal
 *   case: the bar is then exactly the bar of its ticks);
 * - kept, where they hold fewer (the ticks' retention dropped them, or an operator deleted some):
 *   its stored states stay, and its exact states take the stored open and close, with a key of 0
 *   (there is no receive time and offset left to order them by).
 * The result replaces the table's partitions one by one (each swap atomic). Minutes are compared
 * within one partition at a time, so the set of kept minutes held in memory is a month's at most,
 * and a month with no ticks left is copied without any set.
 *
 * Run it while nothing writes the ticks (migrations run before the services start): a partition
 * swapped in drops whatever the view inserted into it after the scratch copy was read.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '../port.js';
import { checkedPartitionId, scratchTable, swapPartitions } from './scratch-tables.js';

const BARS = FEED_TABLES.bars1m.name;
const BARS_VIEW = `${BARS}_mv`;
const FROM_TICKS = `${BARS}_exact_ticks`;
const REBUILT = `${BARS}_exact_rebuilt`;
const COLUMNS = FEED_TABLES.bars1m.columns.join(', ');
const KEY = 'security_id, minute';

/** The view's query as the engine holds it, or undefined without the view. */
export async function barsViewQuery(lane: StoreLane): Promise<string | undefined> {
  const [db, name] = BARS_VIEW.split('.') as [string, string];
  const [view] = await lane.rows<{ q: string }>(
    'SELECT as_select AS q FROM system.tables WHERE database = {db:String} AND name = {name:String}',
    { db, name },
  );
  return view?.q;
}

/** Stored bars of partition `p`, merged per minute, with exact states made from their open/close. */
const keptBarsSql = (p: string, where: string): string => `
SELECT ${KEY}, o_state AS open, h AS high, l AS low, c_state AS close, vmin AS vol_min, vmax AS vol_max,
    n AS trades, q AS quantity, t AS turnover,
    initializeAggregation('argMinState', o, toUInt128(0)) AS open_exact,
    initializeAggregation('argMaxState', c, toUInt128(0)) AS close_exact
FROM
(
    SELECT ${KEY}, argMinMergeState(open) AS o_state, max(high) AS h, min(low) AS l,
        argMaxMergeState(close) AS c_state, min(vol_min) AS vmin, max(vol_max) AS vmax,
        sum(trades) AS n, sum(quantity) AS q, sum(turnover) AS t,
        argMinMerge(open) AS o, argMaxMerge(close) AS c
    FROM ${BARS}
    WHERE _partition_id = '${p}' ${where}
    GROUP BY ${KEY}
)`;

/** The minutes of partition `p` whose ticks hold fewer trades than their stored bar counted. */
const keptMinutesSql = (p: string): string => `
SELECT ${KEY} FROM
    (SELECT ${KEY}, sum(trades) AS n FROM ${BARS} WHERE _partition_id = '${p}' GROUP BY ${KEY}) AS stored
    LEFT JOIN
    (SELECT ${KEY}, sum(trades) AS n FROM ${FROM_TICKS} WHERE _partition_id = '${p}' GROUP BY ${KEY}) AS rebuilt
    USING (${KEY})
WHERE rebuilt.n < stored.n`;

/** Rebuilds the bars as above; returns the bar rows written. */
export async function rebuildExactBars(lane: StoreLane): Promise<number> {
  const view = await barsViewQuery(lane);
  if (view === undefined) return 0;
  try {
    await scratchTable(lane, FROM_TICKS, BARS);
    await lane.command(`INSERT INTO ${FROM_TICKS} ${view}`);
    await scratchTable(lane, REBUILT, BARS);
    for (const { p, stored, rebuilt } of await partitionsOf(lane)) {
      if (stored === 0) {
        await lane.command(
          `INSERT INTO ${REBUILT} (${COLUMNS}) SELECT ${COLUMNS} FROM ${FROM_TICKS} WHERE _partition_id = '${p}'`,
        );
      } else if (rebuilt === 0) {
        await lane.command(`INSERT INTO ${REBUILT} (${COLUMNS}) ${keptBarsSql(p, '')}`);
      } else {
        await lane.command(
          `INSERT INTO ${REBUILT} (${COLUMNS}) SELECT ${COLUMNS} FROM ${FROM_TICKS}
           WHERE _partition_id = '${p}' AND (${KEY}) NOT IN (${keptMinutesSql(p)})`,
        );
        await lane.command(
          `INSERT INTO ${REBUILT} (${COLUMNS}) ${keptBarsSql(p, `AND (${KEY}) IN (${keptMinutesSql(p)})`)}`,
        );
      }
    }
    return await swapPartitions(lane, REBUILT, BARS);
  } finally {
    await lane.command(`DROP TABLE IF EXISTS ${FROM_TICKS}`);
    await lane.command(`DROP TABLE IF EXISTS ${REBUILT}`);
  }
}

/** Every partition of the stored or the rebuilt bars, with its rows in each. */
async function partitionsOf(lane: StoreLane): Promise<{ p: string; stored: number; rebuilt: number }[]> {
  const rows = await lane.rows<{ p: string; stored: number | string; rebuilt: number | string }>(
    `SELECT p, sum(s) AS stored, sum(r) AS rebuilt FROM (
       SELECT _partition_id AS p, count() AS s, 0 AS r FROM ${BARS} GROUP BY p
       UNION ALL
       SELECT _partition_id AS p, 0 AS s, count() AS r FROM ${FROM_TICKS} GROUP BY p)
     GROUP BY p ORDER BY p`,
  );
  return rows.map((r) => ({
    p: checkedPartitionId(r.p, BARS),
    stored: Number(r.stored),
    rebuilt: Number(r.rebuilt),
  }));
}
