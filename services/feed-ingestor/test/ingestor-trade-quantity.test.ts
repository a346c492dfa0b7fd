/**
 * The traded quantity on the trades topic, end to end against the simulator and a real Kafka
 * broker: an ingestor runs, stops, and a new one (a cold start: no state) takes the same
 * instruments over; read back in partition order, every trade's published quantity is the step of
 * cumulative volume from the instrument's previous record of the same UTC trade day (the whole
 * volume for a day's first), or null, which only the first trade of an instrument in a run may be.
 * The first trade after the restart is the resubscription snapshot, a repeat of the last one
 * produced: null, never a number reckoned from nothing.
 */
import { MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, type TopicRecord, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, SIM_CLIENT, settle, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
const DAY_SECONDS = 86_400;
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
});

interface TradeValue {
  securityId: number;
  volume: number;
  ltt: number;
  quantity?: number | null;
}

/** Each instrument's trades in the order the topic holds them (one partition per instrument). */
function byInstrument(records: readonly TopicRecord[]): Map<number, Array<TradeValue & { run: number }>> {
  const out = new Map<number, Array<TradeValue & { run: number }>>();
  const sorted = [...records].sort(
    (a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset),
  );
  for (const r of sorted) {
    const value = r.value as unknown as TradeValue;
    const run = r.headers['fp-src']?.readUInt32BE(0) ?? -1;
    const list = out.get(value.securityId) ?? [];
    list.push({ ...value, run });
    out.set(value.securityId, list);
  }
  return out;
}

describe('traded quantity on the trades topic', () => {
  it("is the volume step from the previous trade of the day, or null on a run's first trade; never wrong across a restart", async () => {
    const model = new MarketModel({ seed: 30, instruments: 300 });
    const server = await startFeedServer({ model, port: 0, tradesPerSecond: 200, tickIntervalMs: 10 });
    stops.push(() => server.close());
    const topics = topicsFor(uniqueName('quantity'));
    const ids = inxIds(model, 12);
    const make = (): FeedIngestor =>
      createFeedIngestor({
        feedUrl: server.url,
        credentials: SIM_CLIENT,
        brokers,
        topics,
        partitions: 3,
        connections: 2,
        instruments: { trade: ids },
        workers: 2,
        log: () => undefined,
      });
    const produced = (ingestor: FeedIngestor) => ingestor.stats().producedTrades;

    const first = make();
    stops.push(() => first.stop());
    await first.start();
    await waitFor(() => produced(first) >= 300, 20_000, 'the first run to produce 300 trades');
    await settle(server, first);
    await first.stop();

    const second = make();
    stops.push(() => second.stop());
    await second.start();
    await waitFor(() => produced(second) >= 300, 20_000, 'the second run to produce 300 trades');
    await settle(server, second);
    await second.stop();

    const records = await readTopic(brokers, topics.trades);
    const trades = byInstrument(records);
    expect(trades.size).toBe(ids.length);
    let known = 0;
    for (const [securityId, list] of trades) {
      const lastOfDay = new Map<number, number>();
      const seenInRun = new Set<number>();
      for (const [i, t] of list.entries()) {
        const day = Math.floor(t.ltt / DAY_SECONDS);
        const expected = Math.max(t.volume - (lastOfDay.get(day) ?? 0), 0);
        lastOfDay.set(day, t.volume);
        const where = `instrument ${securityId}, trade ${i} (run ${t.run}, volume ${t.volume})`;
        expect(t.quantity, where).not.toBeUndefined();
        if (t.quantity === null) {
          // Only an instrument's first trade in a run is unknown (one day's data here).
          expect(seenInRun.has(t.run), where).toBe(false);
        } else {
          expect(t.quantity, where).toBe(expected);
          known += 1;
        }
        seenInRun.add(t.run);
      }
      // Both runs produced the instrument; each run's first trade of it was unknown to that run.
      const runs = [...new Set(list.map((t) => t.run))];
      expect(runs, `instrument ${securityId}`).toHaveLength(2);
      for (const run of runs) expect(list.find((t) => t.run === run)?.quantity, `${securityId}`).toBeNull();
    }
    expect(records.length - known).toBe(2 * ids.length);
  }, 90_000);
});
