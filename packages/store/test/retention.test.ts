/**
 * Retention on embedded chDB: migration 009 installs the default TTLs (and nothing else differs
 * from the rules), the STORE_TTL_*_DAYS variables change them as metadata only (no mutation, the
 * parts that exist are the same parts afterwards), expired partitions of a table with a short TTL
 * leave once merged, and tables kept longer or forever keep rows just as old.
 *
 * The test tier pauses TTL deletes (vitest.config.ts); this store runs them, as production does.
 */
import { FEED_TABLES, HISTORY_TABLES } from '@feedpipe/contracts';
import { tempDir, waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ttlDeletesOf } from '../src/config.js';
import {
  applyRetention,
  createStore,
  defaultRetention,
  RAW_FEED_DAYS,
  RETENTION_RULES,
  retentionFromEnv,
  runMigrations,
  type Store,
  StoreError,
  ttlDaysOf,
} from '../src/index.js';

const TICKS = FEED_TABLES.ticks.name;
const BARS = FEED_TABLES.bars1m.name;
const DAILY = HISTORY_TABLES.candlesDaily.name;

let store: Store;

beforeAll(async () => {
  store = createStore({ dataDir: tempDir('retention'), ttlDeletes: 'run' });
  await runMigrations(store.internal);
});
afterAll(async () => {
  await store.close();
});

async function count(sql: string): Promise<number> {
  const [row] = await store.internal.rows<{ n: string | number }>(sql);
  return Number(row?.n);
}

async function engineFull(table: string): Promise<string> {
  const [database, name] = table.split('.');
  const [row] = await store.internal.rows<{ e: string }>(
    'SELECT engine_full AS e FROM system.tables WHERE database = {db:String} AND name = {name:String}',
    { db: database ?? '', name: name ?? '' },
  );
  return row?.e ?? '';
}

/** Active part names of a table: the same names before and after means nothing was rewritten. */
async function parts(table: string): Promise<string[]> {
  const [database, name] = table.split('.');
  const rows = await store.internal.rows<{ name: string }>(
    'SELECT name FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active ORDER BY name',
    { db: database ?? '', t: name ?? '' },
  );
  return rows.map((r) => r.name);
}

/** Ticks received `daysAgo` days before now: `rows` of them, one per security id. */
async function insertTicks(daysAgo: number, rows: number, firstId: number): Promise<void> {
  await store.internal.command(
    `INSERT INTO ${TICKS} (security_id, segment, ltp, volume, ltt, lut, received_at, kafka_partition, kafka_offset, kafka_cluster)
     SELECT ${firstId} + number, 1, 100, 1, toDateTime(now() - INTERVAL ${daysAgo} DAY), toDateTime(now() - INTERVAL ${daysAgo} DAY),
            now64(6) - INTERVAL ${daysAgo} DAY, 0, ${firstId} + number, 'retention-test'
     FROM numbers(${rows})`,
  );
}

describe('retention', () => {
  it('has the defaults installed by the migration: raw feed 90 days, the rest kept, whole parts dropped', async () => {
    expect(await applyRetention(store.internal, defaultRetention())).toEqual([]);
    for (const rule of RETENTION_RULES) {
      const full = await engineFull(rule.table);
      expect(ttlDaysOf(full, rule.column), rule.table).toBe(rule.defaultDays);
      expect(full, rule.table).toContain('ttl_only_drop_parts = 1');
    }
    expect(defaultRetention()[TICKS]).toBe(RAW_FEED_DAYS);
    expect(defaultRetention()[BARS]).toBe(0);
  });

  it('changes TTLs from the environment without rewriting a part, and only where they differ', async () => {
    await insertTicks(1, 50, 1);
    const before = await parts(TICKS);
    const policy = retentionFromEnv({ STORE_TTL_TICKS_DAYS: '30', STORE_TTL_BARS_1M_DAYS: ' 3650 ' });
    expect(await applyRetention(store.internal, policy)).toEqual([
      { table: TICKS, from: RAW_FEED_DAYS, to: 30 },
      { table: BARS, from: 0, to: 3650 },
    ]);
    expect(ttlDaysOf(await engineFull(TICKS), 'received_at')).toBe(30);
    expect(ttlDaysOf(await engineFull(BARS), 'minute')).toBe(3650);
    // Metadata only: no mutation was started and the parts are the very same parts.
    expect(await count(`SELECT count() AS n FROM system.mutations WHERE database = 'market'`)).toBe(0);
    expect(await parts(TICKS)).toEqual(before);
    // Idempotent: a second start changes nothing; back to forever removes the TTL.
    expect(await applyRetention(store.internal, policy)).toEqual([]);
    expect(await applyRetention(store.internal, { [BARS]: 0 })).toEqual([{ table: BARS, from: 3650, to: 0 }]);
    expect(ttlDaysOf(await engineFull(BARS), 'minute')).toBe(0);
  });

  it('drops expired partitions of a table with a short TTL and keeps tables kept longer', async () => {
    await applyRetention(store.internal, retentionFromEnv({ STORE_TTL_TICKS_DAYS: '30' }));
    // Two expired months (about 200 and 100 days back) and recent rows; the MV fills bars_1m.
    await insertTicks(200, 100, 1_000);
    await insertTicks(100, 100, 2_000);
    await insertTicks(2, 100, 3_000);
    await store.internal.command(
      `INSERT INTO ${DAILY} SELECT 7, 'NSE_EQ', toDateTime('2001-01-01 00:00:00', 'UTC') + toIntervalDay(number), 1, 1, 1, 1, 1, 0, now64(3) FROM numbers(20)`,
    );
    const barsBefore = await count(`SELECT count() AS n FROM ${BARS}`);
    const oldBars = await count(`SELECT count() AS n FROM ${BARS} WHERE minute < now() - INTERVAL 30 DAY`);
    expect(oldBars).toBeGreaterThan(0);
    const stale = `SELECT count() AS n FROM ${TICKS} WHERE received_at < now() - INTERVAL 30 DAY`;
    // A merge applies the TTL: expired parts go whole (the background may be first; bounded wait).
    await waitFor(
      async () => {
        await store.internal.command(`OPTIMIZE TABLE ${TICKS} FINAL`);
        return (await count(stale)) === 0;
      },
      60_000,
      'expired ticks to leave',
      500,
    );
    const months = await store.internal.rows<{ p: string }>(
      `SELECT DISTINCT partition AS p FROM system.parts WHERE database = 'market' AND table = 'ticks' AND active AND rows > 0`,
    );
    const expiredMonths = await store.internal.rows<{ p: string }>(
      `SELECT DISTINCT toString(toYYYYMM(now() - INTERVAL d DAY)) AS p FROM (SELECT arrayJoin([200, 100]) AS d)`,
    );
    for (const { p } of expiredMonths) expect(months.map((m) => m.p)).not.toContain(p);
    expect(await count(`SELECT count() AS n FROM ${TICKS} WHERE security_id >= 3000`)).toBe(100);
    // Kept tables: bars_1m (forever) and daily candles from 2001 are all still there.
    await store.internal.command(`OPTIMIZE TABLE ${BARS} FINAL`);
    await store.internal.command(`OPTIMIZE TABLE ${DAILY} FINAL`);
    expect(await count(`SELECT count() AS n FROM ${BARS} FINAL`)).toBe(barsBefore);
    expect(await count(`SELECT count() AS n FROM ${DAILY} FINAL`)).toBe(20);
  });

  it('refuses a bad variable, naming every one, and a table without a rule', async () => {
    const error = (() => {
      try {
        retentionFromEnv({
          STORE_TTL_TICKS_DAYS: '-1',
          STORE_TTL_FEED_GAPS_DAYS: '1.5',
          STORE_TTL_BARS_1M_DAYS: '99999',
        });
      } catch (e) {
        return e as StoreError;
      }
      throw new Error('accepted');
    })();
    expect(error.code).toBe('STORE_CONFIG_INVALID');
    expect(error.message).toContain('STORE_TTL_TICKS_DAYS');
    expect(error.message).toContain('STORE_TTL_FEED_GAPS_DAYS');
    expect(error.message).toContain('STORE_TTL_BARS_1M_DAYS');
    await expect(applyRetention(store.internal, { 'market.api_keys': 1 })).rejects.toMatchObject({
      code: 'STORE_CONFIG_INVALID',
    });
  });

  it('takes ttlDeletes from the option first, then STORE_TTL_DELETES, else runs them', () => {
    expect(ttlDeletesOf({}, {})).toBe('run');
    expect(ttlDeletesOf({}, { STORE_TTL_DELETES: 'paused' })).toBe('paused');
    expect(ttlDeletesOf({ ttlDeletes: 'run' }, { STORE_TTL_DELETES: 'paused' })).toBe('run');
    expect(() => ttlDeletesOf({}, { STORE_TTL_DELETES: 'off' })).toThrow(StoreError);
  });
});
