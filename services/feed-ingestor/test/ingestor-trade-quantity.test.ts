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
import { inxIds, SIM_INGESTOR_DEPS, simIngestorConfig, topicsFor } from './fixtures/feed-fixtures.js';
import { checkQuantities } from './fixtures/quantity-check.js';

const brokers = inject('kafkaBrokers');
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
});

/** Two runs of an ingestor over the same instruments, one after the other; the trades topic read back. */
async function twoRuns(stateFile: string | undefined): Promise<{ ids: string[]; records: TopicRecord[] }> {
  const model = new MarketModel({ seed: 30, instruments: 300 });
  const server = await startFeedServer({ model, port: 0, tradesPerSecond: 200, tickIntervalMs: 10 });
  stops.push(() => server.close());
  const topics = topicsFor(uniqueName('quantity'));
  const ids = inxIds(model, 12);
  const make = (): FeedIngestor =>
    createFeedIngestor(
      {
        ...simIngestorConfig(server, brokers, topics, ids),
        partitions: 3,
        workers: 2,
        ...(stateFile ? { stateFile } : {}),
      },
      SIM_INGESTOR_DEPS,
    );
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

describe('traded quantity on the trades topic', () => {
  it("is the volume step from the previous trade of the day, or null on a run's first trade after a cold start", async () => {
    const { ids, records } = await twoRuns(undefined);
    const check = checkQuantities(records);
    expect(check.wrong).toEqual([]);
    expect(check.absent).toBe(0);
    expect(check.firstOfRun.size).toBe(ids.length);
    // Each run's first trade of each instrument is unknown to it: exactly those, nothing else.
    for (const [securityId, firsts] of check.firstOfRun)
      expect([...firsts.values()], `${securityId}`).toEqual([null, null]);
    expect(check.unknown).toBe(2 * ids.length);
    expect(check.known).toBe(records.length - 2 * ids.length);
  }, 90_000);

  it("reckons the restarted run's first trades from a clean stop's state file: none unknown", async () => {
    const stateFile = join(tempDir('quantity-state'), 'ingestor.state.json');
    const { ids, records } = await twoRuns(stateFile);
    const check = checkQuantities(records);
    expect(check.wrong).toEqual([]);
    expect(check.firstOfRun.size).toBe(ids.length);
    // Only the first run's first trades are unknown. The second run's first trade of each is the
    // resubscription snapshot (the instrument's latest trade, which may have traded since the
    // stop): known, reckoned from the first run's last, and exact (no wrong one above).
    expect(check.unknown).toBe(ids.length);
    for (const [securityId, firsts] of check.firstOfRun) {
      const [first, second] = [...firsts.values()];
      expect(first, `${securityId}`).toBeNull();
      expect(second, `${securityId}`).toEqual(expect.any(Number));
    }
  }, 90_000);
});
