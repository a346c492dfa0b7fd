/**
 * The traded quantity end to end (issue #30): simulator -> ingestor -> real Kafka -> sink ->
 * embedded ClickHouse, with a restart of both in the middle: the first ingestor run stops and a
 * cold one follows, the first sink stores what was there and stops, and a new sink of the same
 * group rebuilds its memory from the store and stores the rest. Every quantity the ingestor
 * published equals the one the sink stored for the same record (partition, offset), the sink counts
 * no disagreement, and only each run's first trade of an instrument went out null.
 */
import { MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { FEED_TABLES, prefixedTopics } from '@feedpipe/contracts';
import { createFeedIngestor } from '@feedpipe/feed-ingestor';
import { createSink, type Sink } from '@feedpipe/feed-sink';
import { createStore, runMigrations, type Store } from '@feedpipe/store';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  inxIds,
  SIM_INGESTOR_DEPS,
  simIngestorConfig,
} from '../services/feed-ingestor/test/fixtures/feed-fixtures.js';
import { checkQuantities } from '../services/feed-ingestor/test/fixtures/quantity-check.js';

const brokers = inject('kafkaBrokers');
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
});

async function storedTicks(store: Store): Promise<number> {
  const [row] = await store.internal.rows<{ n: number | string }>(
    `SELECT count() AS n FROM ${FEED_TABLES.ticks.name}`,
  );
  return Number(row?.n ?? 0);
}

describe('traded quantity, ingestor to store', () => {
  it('is published as the sink stores it, across a restart of the ingestor and of the sink', async () => {
    const model = new MarketModel({ seed: 31, instruments: 300 });
    const server = await startFeedServer({ model, port: 0, tradesPerSecond: 200, tickIntervalMs: 10 });
    stops.push(() => server.close());
    const store = createStore({ dataDir: tempDir('quantity-e2e') });
    stops.push(() => store.close());
    await runMigrations(store.internal);
    const topics = prefixedTopics(uniqueName('quantity-e2e'));
    const ids = inxIds(model, 10);
    const groupId = uniqueName('quantity-sink');
    const registries: Registry[] = [];

    for (const run of ['first', 'second']) {
      const ingestor = createFeedIngestor(
        { ...simIngestorConfig(server, brokers, topics, ids), partitions: 3 },
        SIM_INGESTOR_DEPS,
      );
      stops.push(() => ingestor.stop());
      await ingestor.start();
      await waitFor(() => ingestor.stats().producedTrades >= 200, 20_000, `the ${run} run to produce`);
      await ingestor.drain();
      await ingestor.stop();
      // A sink per run: the second starts from the group's committed offsets and the store.
      const registry = new Registry();
      registries.push(registry);
      const sink: Sink = createSink(
        { brokers, groupId, topics, maxBatchAgeMs: 100 },
        { store, registry, log: () => undefined },
      );
      stops.push(() => sink.stop());
      await sink.start();
      const published = (await readTopic(brokers, topics.trades)).length;
      await waitFor(async () => (await storedTicks(store)) >= published, 60_000, `the ${run} sink to store`);
      await sink.stop();
    }

    const records = await readTopic(brokers, topics.trades);
    const check = checkQuantities(records);
    expect(check.wrong).toEqual([]);
    expect(check.unknown).toBe(2 * ids.length);
    const stored = await store.internal.rows<{ p: number | string; o: number | string; q: number | string }>(
      `SELECT kafka_partition AS p, kafka_offset AS o, quantity AS q FROM ${FEED_TABLES.ticks.name}`,
    );
    expect(stored).toHaveLength(records.length);
    const storedAt = new Map(stored.map((r) => [`${r.p}:${r.o}`, Number(r.q)]));
    let compared = 0;
    for (const r of records) {
      const quantity = (r.value as { quantity?: number | null }).quantity;
      if (typeof quantity !== 'number') continue;
      expect(storedAt.get(`${r.partition}:${r.offset}`), `${r.partition}:${r.offset}`).toBe(quantity);
      compared += 1;
    }
    expect(compared).toBe(records.length - 2 * ids.length);
    for (const registry of registries) {
      const counter = registry.getSingleMetric('sink_trade_quantity_disagreements_total');
      expect(counter).toBeDefined();
      expect((await counter?.get())?.values.reduce((n, v) => n + v.value, 0)).toBe(0);
    }
  }, 180_000);
});
