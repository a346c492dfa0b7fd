/**
 * Migration 015 on a store that already holds ticks and bars: every 1-minute bar's exact open and
 * close (open_exact, close_exact) are those of bars computed from its ticks, ordered by receive
 * time then Kafka offset, through ties in receive time and ticks that arrive after their minute,
 * before the migration (rebuilt) and after it (the view); a minute whose ticks are no longer all
 * stored keeps the bar it had.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { tempDir } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, runMigrations, type Store } from '../src/index.js';
import { migrationsBefore } from './migrations-before.js';

const TICKS = FEED_TABLES.ticks.name;
const BARS = FEED_TABLES.bars1m.name;
const COLUMNS = FEED_TABLES.ticks.columns.join(', ');
const BASE = "toDateTime('2024-03-04 09:00:00', 'UTC')";
/** A minute of instrument 8 whose ticks are partly deleted before the migration. */
const THINNED = "(8, toDateTime('2024-03-04 09:01:00', 'UTC'))";
/** Instrument 9 lives in February alone, and all its ticks are deleted (a month past retention). */
const GONE = 9;

/**
 * `n` ticks of `sid` from `firstOffset`, three to each receive time (a packet's worth: ties broken
 * by offset alone), each with its own price, five seconds apart from `lttStart`, received `lag`
 * seconds after their trade time; inserted highest offset first, so an order by receive time alone
 * meets the wrong member of a tie first.
 */
function ticksSql(sid: number, n: number, firstOffset: number, lttStart: string, lag: number): string {
  return `INSERT INTO ${TICKS} (${COLUMNS})
    SELECT ${sid}, 14, toFloat32(100 + (number * 7) % 11 + ${sid}), toInt32((number + 1) * 10), toUInt32(10),
           ${lttStart} + intDiv(number, 3) * 5 AS t, t,
           toDateTime64(t, 6, 'UTC') + toIntervalMicrosecond(${lag} * 1000000 + 500000),
           toUInt16(${sid} % 2), ${firstOffset} + number, 'test'
    FROM numbers(${n}) ORDER BY number DESC`;
}

/** Bars of the table and bars computed from the ticks (as BARS_SQL does) that differ, outside the thinned and gone minutes. */
const MISMATCHES = `
SELECT count() AS n FROM (
    SELECT security_id, minute, argMinMerge(open_exact) AS o, max(high) AS h, min(low) AS l,
           argMaxMerge(close_exact) AS c, sum(quantity) AS q, sum(turnover) AS t, sum(trades) AS k
    FROM ${BARS} GROUP BY security_id, minute) AS b
FULL JOIN (
    SELECT security_id, toStartOfMinute(ltt) AS minute, argMin(ltp, (received_at, kafka_offset)) AS o,
           max(ltp) AS h, min(ltp) AS l, argMax(ltp, (received_at, kafka_offset)) AS c, sum(quantity) AS q,
           sum(toFloat64(ltp) * quantity) AS t, count() AS k
    FROM ${TICKS} GROUP BY security_id, minute) AS x
USING (security_id, minute)
WHERE (security_id, minute) != ${THINNED} AND security_id != ${GONE}
  AND (b.o != x.o OR b.h != x.h OR b.l != x.l OR b.c != x.c OR b.q != x.q OR b.t != x.t OR b.k != x.k)`;

async function count(store: Store, sql: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: string | number }>(sql);
  return Number(row?.n);
}

describe('migration 015 makes the 1-minute bars exact', () => {
  let store: Store;
  let thinnedBefore: { o: number; c: number; k: number } | undefined;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('exact-bars'), ttlDeletes: 'paused' });
    await runMigrations(store.internal, migrationsBefore(15));
    await store.internal.command(ticksSql(7, 120, 1_000, BASE, 0));
    await store.internal.command(ticksSql(8, 120, 2_000, BASE, 0));
    // Late ticks: trade times in the first minutes, received ten minutes on (so they close them).
    await store.internal.command(ticksSql(7, 9, 3_000, BASE, 600));
    await store.internal.command(ticksSql(GONE, 90, 4_000, "toDateTime('2024-02-12 09:00:00', 'UTC')", 0));
    const [thinned] = await store.internal.rows<{ o: number; c: number; k: string }>(
      `SELECT argMinMerge(open) AS o, argMaxMerge(close) AS c, sum(trades) AS k FROM ${BARS}
       WHERE (security_id, minute) = ${THINNED}`,
    );
    thinnedBefore = thinned && { o: thinned.o, c: thinned.c, k: Number(thinned.k) };
    await store.internal.command(
      `ALTER TABLE ${TICKS} DELETE WHERE (security_id, toStartOfMinute(ltt)) = ${THINNED} AND ltt % 10 = 0
       OR security_id = ${GONE} SETTINGS mutations_sync = 2`,
    );
  });
  afterAll(async () => {
    await store?.close();
  });

  it('rebuilds the bars stored before it exactly as bars from their ticks', async () => {
    const result = await runMigrations(store.internal);
    expect(result.applied).toEqual([15]);
    expect(
      await count(store, `SELECT count() AS n FROM ${TICKS} WHERE security_id IN (7, 8)`),
    ).toBeGreaterThan(200);
    expect(await count(store, MISMATCHES)).toBe(0);
    // The fixture holds real ties: ordered by receive time alone, some bars open elsewhere.
    expect(
      await count(
        store,
        `SELECT count() AS n FROM (SELECT argMinMerge(open) AS a, argMinMerge(open_exact) AS b FROM ${BARS}
         WHERE security_id IN (7, 8) GROUP BY security_id, minute) WHERE a != b`,
      ),
    ).toBeGreaterThan(0);
    // Late ticks closed their minute.
    expect(
      await count(
        store,
        `SELECT count() AS n FROM (SELECT argMaxMerge(close_exact) AS c FROM ${BARS}
         WHERE security_id = 7 AND minute = ${BASE}) WHERE c = (
           SELECT argMax(ltp, (received_at, kafka_offset)) FROM ${TICKS} WHERE kafka_offset >= 3000)`,
      ),
    ).toBe(1);
    const [left] = await store.internal.rows<{ n: string }>(
      "SELECT count() AS n FROM system.tables WHERE database = 'market' AND name LIKE 'bars_1m_exact%'",
    );
    expect(Number(left?.n)).toBe(0);
  });

  it('keeps a bar whose ticks are gone, with its open and close as exact states', async () => {
    expect(thinnedBefore?.k).toBeGreaterThan(0);
    const [thinned] = await store.internal.rows<{ o: number; c: number; k: string }>(
      `SELECT argMinMerge(open_exact) AS o, argMaxMerge(close_exact) AS c, sum(trades) AS k FROM ${BARS}
       WHERE (security_id, minute) = ${THINNED}`,
    );
    expect({ o: thinned?.o, c: thinned?.c, k: Number(thinned?.k) }).toEqual(thinnedBefore);
    expect(await count(store, `SELECT count() AS n FROM ${TICKS} WHERE security_id = ${GONE}`)).toBe(0);
    expect(
      await count(
        store,
        `SELECT count() AS n FROM (SELECT sum(trades) AS k, argMinMerge(open_exact) AS o FROM ${BARS}
         WHERE security_id = ${GONE} GROUP BY minute) WHERE k > 0 AND o > 0`,
      ),
    ).toBe(3);
  });

  it('keeps the bars exact as ticks arrive after it, late and tied', async () => {
    await store.internal.command(ticksSql(8, 60, 5_000, `${BASE} + 300`, 0));
    await store.internal.command(ticksSql(8, 12, 6_000, BASE, 900));
    expect(await count(store, MISMATCHES)).toBe(0);
    expect(await count(store, `SELECT count() AS n FROM ${TICKS} WHERE kafka_offset >= 5000`)).toBe(72);
  });
});
