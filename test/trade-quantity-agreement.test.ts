/**
 * The ingestor's published quantity and the sink's stored one agree (issue #30): a generated
 * stream of one connection's trades (a few instruments over days, volumes stepping back, repeats,
 * late and unpopulated trade times, each received at the stream's clock) goes through the decode
 * path's ChunkEncoder in chunks of any size, each with the bases the one before it left, with a
 * cold restart of the ingestor anywhere in it; the sink's own reckoning (services/feed-sink's TradeQuantities) of the produced trades, in the
 * same order, equals every quantity the ingestor published. Null is allowed (never wrong), a
 * different number is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuantityBases } from '../services/feed-ingestor/src/pipeline/quantity-bases.js';
import {
  DAY,
  encodeTrades,
  type Published,
  T0,
  tradeOf,
} from '../services/feed-ingestor/test/fixtures/trade-chunks.js';
import { TradeQuantities } from '../services/feed-sink/src/trade-quantities.js';

/** A generated stream of one connection's trades: a few instruments over two days. */
const streamArb = fc
  .array(
    fc.record({
      securityId: fc.integer({ min: 1, max: 4 }),
      step: fc.integer({ min: -20, max: 200 }),
      seconds: fc.integer({ min: 0, max: 600 }),
      nextDay: fc.boolean(),
      late: fc.integer({ min: 0, max: 30 }),
    }),
    { minLength: 1, maxLength: 120 },
  )
  .map((steps) => {
    // Volumes mostly grow within a day (sometimes step back); a new day starts them again; a few
    // trades carry an earlier day's time (late) or no time at all.
    const state = new Map<number, { volume: number; ltt: number }>();
    return steps.map(({ securityId, step, seconds, nextDay, late }) => {
      const last = state.get(securityId) ?? { volume: 0, ltt: T0 };
      const newDay = nextDay && step % 7 === 0;
      const ltt = newDay ? (Math.floor(last.ltt / DAY) + 1) * DAY + seconds : last.ltt + seconds;
      const volume = newDay ? Math.abs(step) : Math.max(0, last.volume + step);
      state.set(securityId, { volume, ltt });
      if (late === 0) return tradeOf(securityId, volume, ltt - DAY);
      if (late === 1) return tradeOf(securityId, volume, 0);
      return tradeOf(securityId, volume, ltt);
    });
  });

describe('the ingestor and the sink agree', () => {
  it('every published quantity is the one the sink stores, over any stream cut into chunks, with a restart', () => {
    let known = 0;
    let unknown = 0;
    fc.assert(
      fc.property(
        streamArb,
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 120 }),
        (stream, cuts, restartAt) => {
          // The ingestor: chunk after chunk of one connection, each with the bases the previous one
          // left; at `restartAt` a cold start (no bases: a new process without state).
          const connection = new QuantityBases();
          const published: Published[] = [];
          // Each trade is received at the stream's clock: the latest trade time so far (a late or
          // unpopulated one is received later than its time says, none before it).
          const clock: number[] = [];
          for (const t of stream) clock.push(Math.max(clock.at(-1) ?? 0, t.type === 'trade' ? t.ltt : 0));
          const encode = (from: number, to: number) =>
            encodeTrades(
              stream.slice(from, to),
              connection.ship(0),
              undefined,
              (_t, i) => clock[from + i] as number,
            );
          let at = 0;
          let cut = 0;
          while (at < stream.length) {
            const end = Math.min(stream.length, at + (cuts[cut++ % cuts.length] as number));
            if (at <= restartAt && restartAt < end) {
              // The chunk before the restart ends at it; the next starts a run that knows nothing.
              const before = encode(at, restartAt);
              published.push(...before.published);
              connection.clear(0);
              at = restartAt;
              if (at === end) continue;
            }
            const chunk = encode(at, end);
            connection.settle(0, chunk.moved);
            published.push(...chunk.published);
            at = end;
          }
          // The sink: every produced trade in the same order, its own reckoning.
          const sink = new TradeQuantities();
          for (const p of published) {
            const stored = sink.next(p.securityId, p.ltt, p.volume);
            if (p.quantity === null) unknown += 1;
            else {
              known += 1;
              expect(p.quantity).toBe(stored);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    // Not vacuous: most trades are known (each instrument's first of a run, late ones and a
    // provisional base's new days are not).
    expect(known).toBeGreaterThan(unknown / 4);
  });
});
