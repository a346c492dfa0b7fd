/**
 * Migration 013 on a store that already holds ticks: their quantity is filled as the window
 * function computed it, the 1-minute bars are rebuilt with exact quantity and turnover, and
 * nothing else of a tick changes.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, runMigrations, type Store } from '../src/index.js';
import { migrationsBefore } from './migrations-before.js';

const LEGACY_COLUMNS = FEED_TABLES.ticks.columns.filter((c) => c !== 'quantity');

describe('migration 013 fills the quantities of ticks stored before it', () => {
  let store: Store;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('fill-quantities') });
    // The schema as it was before 013.
    await runMigrations(store.internal, migrationsBefore(13));
    // Two instruments over a midnight and a month's end (two partitions), received out of trade
    // time order, with a repeat and a volume that steps back.
    await store.internal.command(`INSERT INTO ${FEED_TABLES.ticks.name} (${LEGACY_COLUMNS.join(', ')})
      SELECT 7 + number % 2, 14, toFloat32(100 + number % 7),
             toInt32(if(number % 11 = 5, 3, intDiv(number, 2) * (3 + number % 2) - if(number % 13 = 0, 2, 0))),
             toDateTime('2024-03-31 23:00:00', 'UTC') + intDiv(number, 2) * 30 - (cityHash64(number) % 90) AS t, t,
             toDateTime64('2024-03-31 23:00:00', 6, 'UTC') + toIntervalSecond(intDiv(number, 2) * 30), 0, number, 'legacy'
      FROM numbers(600)`);
  });
  afterAll(async () => {
    await store.close();
  });

  it('stores what the window computed and rebuilds the bars from it', async () => {
    const result = await runMigrations(store.internal);
    expect(result.applied).toContain(13);
    const [check] = await store.internal.rows<{ n: string; wrong: string; parts: string }>(
      `SELECT count() AS n, countIf(quantity != window) AS wrong, uniqExact(_partition_id) AS parts FROM (
         SELECT quantity, _partition_id,
                greatest(toInt64(volume) - lagInFrame(toInt64(volume), 1, 0) OVER w, 0) AS window
         FROM ${FEED_TABLES.ticks.name}
         WINDOW w AS (PARTITION BY security_id, toDate(ltt) ORDER BY received_at, kafka_offset
                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))`,
    );
    expect(Number(check?.n)).toBe(600);
    expect(Number(check?.parts)).toBe(2);
    expect(Number(check?.wrong)).toBe(0);
    const bars = await store.internal.rows<{ d: string }>(
      `SELECT count() AS d FROM (
         SELECT security_id, minute, sum(quantity) AS q, sum(turnover) AS t, sum(trades) AS n
         FROM ${FEED_TABLES.bars1m.name} GROUP BY security_id, minute) AS b
       FULL JOIN (
         SELECT security_id, toStartOfMinute(ltt) AS minute, sum(quantity) AS q, sum(toFloat64(ltp) * quantity) AS t, count() AS n
         FROM ${FEED_TABLES.ticks.name} GROUP BY security_id, minute) AS k
       USING (security_id, minute)
       WHERE b.q != k.q OR b.n != k.n OR abs(b.t - k.t) > 1e-9 * k.t`,
    );
    expect(Number(bars[0]?.d)).toBe(0);
    const [total] = await store.internal.rows<{ q: string }>(
      `SELECT sum(quantity) AS q FROM ${FEED_TABLES.bars1m.name}`,
    );
    expect(Number(total?.q)).toBeGreaterThan(0);
    // The rewrite leaves no scratch table behind.
    const [left] = await store.internal.rows<{ n: string }>(
      "SELECT count() AS n FROM system.tables WHERE database = 'market' AND name LIKE '%_quantity_fill'",
    );
    expect(Number(left?.n)).toBe(0);
  });
});
