/**
 * A trade's stored quantity (trade-quantities.ts): the edge cases one by one, then generated
 * streams (out-of-order trade times, late trades of the day before, repeats, volumes that step back,
 * a restart in the middle) held equal to the window function bars used to run over the ticks.
 */
import { FEED_TABLES } from '@feedpipe/contracts';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { tempDir } from '@feedpipe/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TradeQuantities } from '../src/trade-quantities.js';

const DAY = 86_400;
/** 2024-03-04 00:00:00 UTC. */
const MONDAY = 1_709_510_400;

describe('trade quantities, case by case', () => {
  it("counts the day's first trade whole, then each trade's step of the cumulative volume", () => {
    const q = new TradeQuantities();
    expect(q.next(7, MONDAY + 100, 500)).toBe(500);
    expect(q.next(7, MONDAY + 101, 530)).toBe(30);
    expect(q.next(7, MONDAY + 99, 600)).toBe(70); // an earlier trade time, received later: still the next step
  });

  it('counts a repeat (a resubscription snapshot of a trade already stored) as 0', () => {
    const q = new TradeQuantities();
    q.next(7, MONDAY + 100, 500);
    expect(q.next(7, MONDAY + 100, 500)).toBe(0);
    expect(q.next(7, MONDAY + 130, 520)).toBe(20);
  });

  it('counts a volume below its predecessor as 0 and measures the next trade from it', () => {
    const q = new TradeQuantities();
    q.next(7, MONDAY + 100, 500);
    expect(q.next(7, MONDAY + 101, 480)).toBe(0);
    // As lagInFrame did: the step from the trade received just before, not from the day's highest.
    expect(q.next(7, MONDAY + 102, 510)).toBe(30);
    expect(q.next(8, MONDAY + 102, -5)).toBe(0);
  });

  it("starts each UTC day afresh and still takes a late trade of the day before from that day's last", () => {
    const q = new TradeQuantities();
    q.next(7, MONDAY + DAY - 10, 9_000);
    expect(q.next(7, MONDAY + DAY + 5, 40)).toBe(40);
    expect(q.next(7, MONDAY + DAY - 2, 9_100)).toBe(100);
    expect(q.next(7, MONDAY + DAY + 9, 70)).toBe(30);
  });

  it('keeps instruments apart', () => {
    const q = new TradeQuantities();
    q.next(7, MONDAY + 100, 500);
    expect(q.next(8, MONDAY + 100, 200)).toBe(200);
    expect(q.next(7, MONDAY + 101, 510)).toBe(10);
  });
});

interface GenTrade {
  sid: number;
  ltt: number;
  volume: number;
  /** Receive time, epoch seconds: after the trade time, never decreasing. */
  received: number;
}

/**
 * Trades of three instruments over three UTC days in receive order: trade times jitter backwards,
 * a trade of the day before arrives after midnight, volumes repeat and step back now and then.
 */
const trades = fc
  .array(
    fc.record({
      sid: fc.constantFrom(11, 12, 13),
      advance: fc.integer({ min: 0, max: 1_500 }),
      jitter: fc.integer({ min: -3_600, max: 60 }),
      step: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.constant(0), fc.integer({ min: -300, max: -1 })),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((steps) => {
    let clock = MONDAY + DAY - 20_000;
    const volume = new Map<number, number>();
    const out: GenTrade[] = [];
    for (const s of steps) {
      clock += s.advance;
      const ltt = Math.max(MONDAY, clock + s.jitter);
      const v = Math.max(0, (volume.get(s.sid) ?? 0) + s.step);
      volume.set(s.sid, v);
      out.push({ sid: s.sid, ltt, volume: v, received: clock + 60 });
    }
    return out;
  });

describe('trade quantities against the window function over the stored ticks', () => {
  let store: Store;
  let run = 0;
  beforeAll(async () => {
    store = createStore({ dataDir: tempDir('quantities') });
    await runMigrations(store.internal);
  });
  afterAll(async () => {
    await store.close();
  });

  /** Stores the trades (offsets from `firstOffset`, cluster `cluster`) with the quantities given. */
  async function insert(
    cluster: string,
    firstOffset: number,
    rows: GenTrade[],
    qty: number[],
  ): Promise<void> {
    if (rows.length === 0) return;
    const values = rows
      .map(
        (t, i) =>
          `(${t.sid}, 14, 100, ${t.volume}, ${qty[i]}, ${t.ltt}, ${t.ltt}, ${t.received * 1_000_000 + firstOffset + i}, 0, ${firstOffset + i}, '${cluster}')`,
      )
      .join(',');
    await store.internal.command(
      `INSERT INTO ${FEED_TABLES.ticks.name} (security_id, segment, ltp, volume, quantity, ltt, lut, received_at, kafka_partition, kafka_offset, kafka_cluster)
       SELECT c1, c2, c3, c4, c5, toDateTime(c6, 'UTC'), toDateTime(c7, 'UTC'), fromUnixTimestamp64Micro(toInt64(c8), 'UTC'), c9, c10, c11
       FROM values(${values})`,
    );
  }

  /** Each stored trade's quantity beside the one the window function gives, in offset order. */
  async function compared(cluster: string): Promise<Array<{ stored: number; window: number }>> {
    const rows = await store.internal.rows<{ stored: number | string; window: number | string }>(
      `SELECT quantity AS stored,
              greatest(toInt64(volume) - lagInFrame(toInt64(volume), 1, 0) OVER w, 0) AS window
       FROM ${FEED_TABLES.ticks.name} WHERE kafka_cluster = {cluster:String}
       WINDOW w AS (PARTITION BY security_id, toDate(ltt) ORDER BY received_at, kafka_offset
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
       ORDER BY kafka_offset`,
      { cluster },
    );
    return rows.map((r) => ({ stored: Number(r.stored), window: Number(r.window) }));
  }

  it('stores what the window computed, across a restart that reloads the state from the store', async () => {
    await fc.assert(
      fc.asyncProperty(trades, fc.nat(), async (stream, cut) => {
        // Instruments of their own per run: the state is loaded from every stored trade.
        const base = 100 * ++run;
        const cluster = `q${run}`;
        const own = stream.map((t) => ({ ...t, sid: base + t.sid }));
        const at = cut % (own.length + 1);
        // The first sink stores the trades up to `at`, then stops; the next one starts from the store.
        const before = new TradeQuantities();
        const first = own.slice(0, at);
        await insert(
          cluster,
          0,
          first,
          first.map((t) => before.next(t.sid, t.ltt, t.volume)),
        );
        // Restarted, days later by the clock: the state follows the stored data, not the clock.
        const after = new TradeQuantities();
        await after.load(store.internal, cluster);
        const rest = own.slice(at);
        await insert(
          cluster,
          at,
          rest,
          rest.map((t) => after.next(t.sid, t.ltt, t.volume)),
        );
        for (const row of await compared(cluster)) expect(row.stored).toBe(row.window);
      }),
      { numRuns: 25 },
    );
  });
});
