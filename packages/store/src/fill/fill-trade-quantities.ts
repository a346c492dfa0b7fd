/**
 * Fills market.ticks.quantity of ticks stored without it (before migration 013, or written straight
 * into the table rather than through the sink) and rebuilds the 1-minute bars from them.
 *
 * Each tick's quantity is what the sink stores: the rule of @feedpipe/contracts' traded-quantity.ts
 * (its cumulative day volume minus that of the instrument's previous tick of the same UTC day, at
 * least 0, the day's first counting its whole volume), written here once more in SQL because the
 * engine applies it to stored rows, in the order the sink reads them: (received_at, kafka_offset). The table is rewritten whole (a window function partitioned by
 * instrument and day needs every tick of the day, and a day's ticks can span two monthly
 * partitions) into a scratch table, which then replaces the table's partitions one by one (each
 * swap atomic). The bars are rebuilt the same way, by the view's own query read from the engine
 * (system.tables), so the rebuild cannot drift from what the view computes.
 *
 * Run it while nothing writes the ticks (migrations run before the services start): a partition
 * swapped in drops whatever was inserted into it after the scratch copy was read.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '../port.js';
import { barsViewQuery } from './rebuild-exact-bars.js';
import { scratchTable, swapPartitions } from './scratch-tables.js';

const TICKS = FEED_TABLES.ticks.name;
const BARS = FEED_TABLES.bars1m.name;
const TICKS_SCRATCH = `${TICKS}_quantity_fill`;
const BARS_SCRATCH = `${BARS}_quantity_fill`;

const QUANTITY =
  'toUInt32(greatest(toInt64(volume) - lagInFrame(toInt64(volume), 1, 0) OVER w, 0)) AS quantity';

const FILLED_TICKS_SQL = `INSERT INTO ${TICKS_SCRATCH}
SELECT ${FEED_TABLES.ticks.columns.map((c) => (c === 'quantity' ? QUANTITY : c)).join(', ')}
FROM ${TICKS}
WINDOW w AS (PARTITION BY security_id, toDate(ltt) ORDER BY received_at, kafka_offset
             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;

/** Rewrites every tick's quantity and the bars; returns the ticks rewritten. */
export async function fillTradeQuantities(lane: StoreLane): Promise<number> {
  const view = await barsViewQuery(lane);
  try {
    await scratchTable(lane, TICKS_SCRATCH, TICKS);
    await lane.command(FILLED_TICKS_SQL);
    const ticks = await swapPartitions(lane, TICKS_SCRATCH, TICKS);
    if (view !== undefined) {
      await scratchTable(lane, BARS_SCRATCH, BARS);
      await lane.command(`INSERT INTO ${BARS_SCRATCH} ${view}`);
      await swapPartitions(lane, BARS_SCRATCH, BARS);
    }
    return ticks;
  } finally {
    await lane.command(`DROP TABLE IF EXISTS ${TICKS_SCRATCH}`);
    await lane.command(`DROP TABLE IF EXISTS ${BARS_SCRATCH}`);
  }
}
