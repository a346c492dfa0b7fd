/**
 * Exactly once into Kafka at the edges where it broke: a fresh topic, several connections whose
 * subscription snapshots are produced at once, and retriable errors on the first produce requests
 * (partitions answered "not leader" while others of the same request were appended, and answers
 * lost although the broker appended; partitions answered "out of order sequence", the answer of a
 * broker that lost the producer's state, which only a new producer id gets past). Every record is
 * then read back and checked per instrument: no record twice (same value to the microsecond of
 * receipt, same source identity), none missing, in order.
 */
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readSourceIdentity, SOURCE_HEADER } from '@feedpipe/contracts';
import {
  type FaultPlan,
  type KafkaFaultProxy,
  readTopic,
  startKafkaFaultProxy,
  type TopicRecord,
  uniqueName,
  waitFor,
} from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, SIM_CLIENT, settle, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let proxy: KafkaFaultProxy | undefined;

afterEach(async () => {
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  await proxy?.close().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
  proxy = undefined;
});

/**
 * Records that are in the topic twice: the same source identity (connection, chunk, row: the
 * packet it was decoded from), or for real instruments the same value to the microsecond of receipt.
 * (Records keyed "0" - market status, errors - can repeat within a frame, so only identity tells
 * them apart; zero-filled "no data yet" reference packets never reach Kafka.)
 */
function duplicatesOf(records: TopicRecord[]): string[] {
  const identities = new Set<string>();
  const values = new Set<string>();
  const twice: string[] = [];
  for (const r of records) {
    const source = r.headers[SOURCE_HEADER];
    if (!source || !readSourceIdentity(source))
      throw new Error(`record without a source identity: ${r.offset}`);
    const identity = source.toString('hex');
    if (identities.has(identity)) twice.push(`identity ${identity}: ${JSON.stringify(r.value)}`);
    identities.add(identity);
    if (r.key === '0') continue;
    const value = `${r.key}|${JSON.stringify(r.value)}`;
    if (values.has(value)) twice.push(`value ${value}`);
    values.add(value);
  }
  return twice;
}

/** Runs 5 connections of 200 instruments through the proxy's faults; checks every record once, in order. */
async function produceThroughFaults(plan: Omit<FaultPlan, 'topics'>): Promise<FeedIngestor> {
  const model = new MarketModel({ seed: 23, instruments: 2_000 });
  server = await startFeedServer({ model, port: 0, tradesPerSecond: 10, tickIntervalMs: 20 });
  const feed = server;
  const ids = inxIds(model, 1_000);
  const topics = topicsFor(uniqueName('eo'));
  proxy = await startKafkaFaultProxy(brokers[0] as string, {
    ...plan,
    topics: [topics.trades, topics.reference],
  });
  const running = createFeedIngestor(
    {
      feedUrl: feed.url,
      brokers: [proxy.address],
      topics,
      partitions: 6,
      connections: 5,
      maxSubscriptionsPerConnection: 200,
      instruments: { trade: ids },
      // One worker: the chunks of all five connections share one producer, as they do per worker.
      workers: 1,
    },
    {
      credentials: SIM_CLIENT,
      log: () => undefined,
    },
  );
  ingestor = running;
  await running.start();
  await waitFor(() => feed.stats().subscribedInstruments >= 1_000, 20_000, 'subscriptions');
  await new Promise((r) => setTimeout(r, 1_500));
  feed.pause();
  await settle(feed, running, 60_000);
  expect(Object.values(proxy.injected).reduce((s, n) => s + n, 0)).toBe(plan.requests);

  const trades = await readTopic(brokers, topics.trades);
  expect(duplicatesOf(trades)).toEqual([]);
  const sentTrades = ids.reduce((s, id) => s + feed.sentFor(Number(id)).trade, 0);
  expect(trades.length).toBe(sentTrades);
  const reference = await readTopic(brokers, topics.reference);
  expect(duplicatesOf(reference)).toEqual([]);
  for (const id of ids) {
    const volumes = trades.filter((r) => r.key === id).map((r) => r.value.volume as number);
    expect(volumes.length, `trades of ${id}`).toBe(feed.sentFor(Number(id)).trade);
    for (let i = 1; i < volumes.length; i++)
      expect(volumes[i]! >= volumes[i - 1]!, `order of ${id}`).toBe(true);
  }
  return running;
}

describe('exactly once into Kafka', () => {
  it('produces every snapshot and trade once through retriable errors on a fresh topic', async () => {
    const running = await produceThroughFaults({ requests: 8 });
    expect(proxy?.injected.drop).toBe(4);
    expect(proxy?.injected.lose).toBe(4);
    // Retriable errors are retried under the same producer id: no reset, so no window for a copy.
    expect(running.stats().producerResets).toBe(0);
    expect(running.stats().produceRetries).toBeGreaterThanOrEqual(8);
  });

  it('starts over under a new producer id when the broker lost its state, and still produces everything once', async () => {
    const running = await produceThroughFaults({ requests: 3, kindOf: () => 'stateLost' });
    expect(proxy?.injected.stateLost).toBe(3);
    // One reset per answer that said the producer's sequences are gone, counted where operators see it.
    expect(running.stats().producerResets).toBe(3);
  });
});
