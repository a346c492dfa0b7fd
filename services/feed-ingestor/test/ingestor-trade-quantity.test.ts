/**
 * The traded quantity on the trades topic, end to end against the simulator and a real Kafka
 * broker: an ingestor runs, stops, and a new one (a cold start: no state) takes the same
 * instruments over; read back in partition order, every trade's published quantity is the step of
 * cumulative volume from the instrument's previous record of the same UTC trade day (the whole
 * volume for a day's first), or null, which only the first trade of an instrument in a run may be.
 * The first trade after the restart is the resubscription snapshot, a repeat of the last one
 * produced: null after a cold start, never a number reckoned from nothing; with the state file of
 * a clean stop (INGESTOR_STATE_FILE), known, reckoned from where the first run stopped.
 */
import { join } from 'node:path';
import { MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, type TopicRecord, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, SIM_CLIENT, topicsFor } from './fixtures/feed-fixtures.js';

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

/** Two runs of an ingestor over the same instruments, one after the other; the trades topic read back. */
async function twoRuns(stateFile: string | undefined): Promise<{ ids: string[]; records: TopicRecord[] }> {
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
      ...(stateFile ? { stateFile } : {}),
      log: () => undefined,
    });
  for (const run of ['first', 'second']) {
    const ingestor = make();
    stops.push(() => ingestor.stop());
    await ingestor.start();
    await waitFor(
      () => ingestor.stats().producedTrades >= 300,
      20_000,
      `the ${run} run to produce 300 trades`,
    );
    await ingestor.drain();
    await ingestor.stop();
  }
  return { ids, records: await readTopic(brokers, topics.trades) };
}

/**
 * Checks every trade's quantity against the volume step in the topic's order; returns, per
 * instrument, the quantity of each run's first trade of it.
 */
function checkQuantities(records: readonly TopicRecord[]): Map<number, Array<number | null | undefined>> {
  const firsts = new Map<number, Array<number | null | undefined>>();
  for (const [securityId, list] of byInstrument(records)) {
    const lastOfDay = new Map<number, number>();
    const seenInRun = new Set<number>();
    const runFirsts: Array<number | null | undefined> = [];
    for (const [i, t] of list.entries()) {
      const day = Math.floor(t.ltt / DAY_SECONDS);
      const expected = Math.max(t.volume - (lastOfDay.get(day) ?? 0), 0);
      lastOfDay.set(day, t.volume);
      const where = `instrument ${securityId}, trade ${i} (run ${t.run}, volume ${t.volume})`;
      expect(t.quantity, where).not.toBeUndefined();
      // Unknown only on an instrument's first trade in a run (one day's data here); else exact.
      if (t.quantity === null) expect(seenInRun.has(t.run), where).toBe(false);
      else expect(t.quantity, where).toBe(expected);
      if (!seenInRun.has(t.run)) runFirsts.push(t.quantity);
      seenInRun.add(t.run);
    }
    firsts.set(securityId, runFirsts);
  }
  return firsts;
}

describe('traded quantity on the trades topic', () => {
  it("is the volume step from the previous trade of the day, or null on a run's first trade after a cold start", async () => {
    const { ids, records } = await twoRuns(undefined);
    const firsts = checkQuantities(records);
    expect(firsts.size).toBe(ids.length);
    // Each run's first trade of each instrument is unknown to it: exactly those, nothing else.
    for (const [securityId, runFirsts] of firsts) expect(runFirsts, `${securityId}`).toEqual([null, null]);
    const unknown = records.filter((r) => (r.value as unknown as TradeValue).quantity === null);
    expect(unknown).toHaveLength(2 * ids.length);
  }, 90_000);

  it("reckons the restarted run's first trades from a clean stop's state file: none unknown", async () => {
    const stateFile = join(tempDir('quantity-state'), 'ingestor.state.json');
    const { ids, records } = await twoRuns(stateFile);
    const firsts = checkQuantities(records);
    expect(firsts.size).toBe(ids.length);
    for (const [securityId, runFirsts] of firsts) {
      expect(runFirsts[0], `${securityId}`).toBeNull();
      // The second run's first trade is the resubscription snapshot (the instrument's latest trade,
      // which may have traded since the stop): known, reckoned from the first run's last (checked
      // exact above).
      expect(runFirsts[1], `${securityId}`).toEqual(expect.any(Number));
    }
  }, 90_000);
});
