/**
 * Unit tier: each trade's traded quantity on the ingestor's decode path (ChunkEncoder, which the
 * decode workers run, and the main thread's per-connection bases that go with each chunk): the
 * rule's edge cases (a day's first trade, a new day, a volume stepping back, a repeat, a late trade,
 * an unpopulated trade time, an instrument whose predecessor is unknown, firm and provisional
 * bases). The ingestor's and the sink's reckonings are held equal over generated streams in
 * test/trade-quantity-agreement.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { BASE_STRIDE } from '../src/pipeline/chunk-quantities.js';
import { type BaseEntry, QuantityBases } from '../src/pipeline/quantity-bases.js';
import { TradeMemory } from '../src/pipeline/trade-memory.js';

import { DAY, encodeTrades as encode, T0, tradeOf as trade } from './fixtures/trade-chunks.js';

const quantities = (published: readonly { quantity: number | null }[]) => published.map((p) => p.quantity);
/** Bases ([securityId, day, volume]) trusted for any later day (firmFrom 0), as a connection's. */
const basesOf = (...triples: Array<[number, number, number]>) => {
  const bases = new QuantityBases();
  bases.adopt(
    0,
    triples.map(([id, day, volume]): BaseEntry => [id, day, volume, 0]),
  );
  return bases.of(0);
};

describe('traded quantity on the decode path', () => {
  it("reckons from the connection's bases: same day, a new day, a step back, a repeat", () => {
    const bases = basesOf([7, 19_675, 1_000], [9, 19_674, 80]);
    const { published, moved, unknown } = encode(
      [
        trade(7, 1_250, T0 + 100), // 250 more than the base
        trade(9, 30, T0 + 110), // 9's base is yesterday's: today's first trade counts all
        trade(7, 1_240, T0 + 120), // volume stepped back: 0, and the next step starts there
        trade(7, 1_300, T0 + 130),
        trade(7, 1_300, T0 + 130), // a repeat within the chunk: not produced
        trade(7, 1_300, T0 + 131), // same volume, later: produced, traded nothing
      ],
      bases,
    );
    expect(published.map((p) => [p.securityId, p.volume, p.quantity])).toEqual([
      [7, 1_250, 250],
      [9, 30, 30],
      [7, 1_240, 0],
      [7, 1_300, 60],
      [7, 1_300, 0],
    ]);
    expect(unknown).toBe(0);
    expect([...moved]).toEqual([7, 19_675, 1_300, 0, 9, 19_675, 30, 0]);
  });

  it("publishes null where the predecessor is unknown, and reckons that day's next trades from it", () => {
    const { published, moved, unknown } = encode([
      trade(3, 500, T0 + 10), // no base: the first trade after a cold start
      trade(3, 540, T0 + 20),
      trade(4, 90, 0), // unpopulated time, no base: unknown, starts nothing
      trade(4, 95, T0 + 30), // still unknown: this one starts a provisional base
      trade(4, 99, T0 + 40),
      // 3's next day: the sink may hold that day of 3 from before the cold start (a trade time may
      // run ahead of its receipt near midnight), so its first trade there is unknown too...
      trade(3, 10, T0 + DAY + 5),
      trade(3, 25, T0 + DAY + 6),
      // ...but from two days after the base's first trade was received, nothing stored before it
      // can be of that day: a new day's first trade counts all.
      trade(3, 7, T0 + 2 * DAY + 1),
    ]);
    expect(quantities(published)).toEqual([null, 40, null, null, 4, null, 15, 7]);
    expect(unknown).toBe(4);
    // firmFrom: two days after the receive day (here the trade day) of each base's first trade.
    expect([...moved]).toEqual([3, 19_677, 7, 19_677, 4, 19_675, 99, 19_677]);
  });

  it('publishes null for a late trade (an earlier day than the base) and keeps the base', () => {
    const { published, moved } = encode(
      [trade(5, 20, T0 - DAY + 50), trade(5, 130, T0 + 60), trade(5, 140, 1)],
      basesOf([5, 19_675, 100]),
    );
    expect(quantities(published)).toEqual([null, 30, null]);
    expect([...moved]).toEqual([5, 19_675, 130, 0]);
  });

  it("drops the guard's repeats before reckoning: a snapshot repeating the last trade is not counted", () => {
    const guard = Float64Array.from([5, 100, T0 + 50]);
    const { published } = encode(
      [trade(5, 100, T0 + 50), trade(5, 112, T0 + 70)],
      basesOf([5, 19_675, 100]),
      guard,
    );
    expect(published.map((p) => [p.volume, p.quantity])).toEqual([[112, 12]]);
  });

  it("moves the connection's bases: those the chunk traded replaced, the rest kept, sorted by id", () => {
    const connection = new QuantityBases();
    connection.adopt(0, [
      [8, 19_675, 3, 1],
      [2, 19_675, 1, 1],
    ]);
    const { moved } = encode([trade(4, 10, T0), trade(12, 5, T0), trade(8, 9, T0 + 1)], connection.ship(0));
    connection.settle(0, moved);
    expect(connection.of(0).length).toBe(4 * BASE_STRIDE);
    expect([...connection.of(0)]).toEqual([
      2, 19_675, 1, 1, 4, 19_675, 10, 19_677, 8, 19_675, 9, 1, 12, 19_675, 5, 19_677,
    ]);
  });
});

describe('QuantityBases', () => {
  it('forgets instruments subscribed anew, also in the result of a chunk that was out', () => {
    const bases = new QuantityBases();
    bases.adopt(1, [[5, 19_675, 10, 1]]);
    const shipped = bases.ship(1);
    bases.forget(1, [5]);
    expect(bases.of(1).length).toBe(0);
    // The chunk that was out comes back having moved 5's base: it is not taken.
    bases.settle(1, Float64Array.from([...shipped.subarray(0, 2), 11, 1, 6, 19_675, 2, 1]));
    expect([...bases.of(1)]).toEqual([6, 19_675, 2, 1]);
    // Forgotten with no chunk out: the next chunk may start 6 afresh.
    bases.forget(1, [6]);
    expect(bases.ship(1).length).toBe(0);
    bases.settle(1, Float64Array.from([6, 19_675, 9, 0]));
    expect([...bases.of(1)]).toEqual([6, 19_675, 9, 0]);
    expect(bases.entriesOf(1)).toEqual([[6, 19_675, 9, 0]]);
  });

  it('clears a connection whose chunk was given up', () => {
    const bases = new QuantityBases();
    bases.settle(2, Float64Array.from([5, 19_675, 10, 1]));
    bases.clear(2);
    expect(bases.of(2).length).toBe(0);
  });
});

describe('bases moving with the trade memory', () => {
  const holdings = new Map<number, Set<string>>([
    [0, new Set(['5', '6'])],
    [1, new Set(['7'])],
  ]);
  const memory = () => new TradeMemory({ instrumentsOf: (c) => holdings.get(c) ?? new Set() });

  it("takes a handover cut's bases, and none from a leader that sends none", () => {
    const trades = memory();
    trades.adopt(0, [[5, 100, T0]], [[5, 19_675, 100, 1]]);
    expect([...trades.bases.of(0)]).toEqual([5, 19_675, 100, 1]);
    trades.adopt(0, [[5, 100, T0]], undefined);
    expect(trades.bases.of(0).length).toBe(0);
  });

  it("writes a clean stop's bases of what each connection holds, and restores them where each is held next", () => {
    const trades = memory();
    trades.bases.settle(0, Float64Array.from([5, 19_675, 10, 1, 7, 19_675, 3, 1]));
    trades.bases.settle(1, Float64Array.from([7, 19_675, 4, 0]));
    // 7 moved to connection 1: connection 0's older base of it is not written.
    const stopped = trades.heldBases();
    expect(stopped).toEqual([
      [5, 19_675, 10, 1],
      [7, 19_675, 4, 0],
    ]);
    const next = memory();
    next.restoreBases(2, new Map(stopped.map((e) => [e[0], e])));
    expect([...next.bases.of(0)]).toEqual([5, 19_675, 10, 1]);
    expect([...next.bases.of(1)]).toEqual([7, 19_675, 4, 0]);
  });
});
