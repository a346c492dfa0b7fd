/**
 * Exactly once into Kafka at the edges where it broke: a fresh topic, several connections whose
 * subscription snapshots are produced at once, and retriable errors on the first produce requests
 * (partitions answered "not leader" while others of the same request were appended, and answers
 * lost although the broker appended). Every record is then read back and checked per instrument:
 * no record twice (same value to the microsecond of receipt, same source identity), none missing.
 */
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readSourceIdentity, SOURCE_HEADER } from '@feedpipe/contracts';
import {
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

describe('exactly once into Kafka', () => {
  it('produces every snapshot and trade once through retriable errors on a fresh topic', async () => {
    const model = new MarketModel({ seed: 23, instruments: 2_000 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 10, tickIntervalMs: 20 });
    const ids = inxIds(model, 1_000);
    const topics = topicsFor(uniqueName('eo'));
    proxy = await startKafkaFaultProxy(brokers[0] as string, {
      topics: [topics.trades, topics.reference],
      requests: 8,
    });
    ingestor = createFeedIngestor({
      feedUrl: server.url,
      credentials: SIM_CLIENT,
      brokers: [proxy.address],
      topics,
      partitions: 6,
      connections: 5,
      maxSubscriptionsPerConnection: 200,
      instruments: { trade: ids },
      // One worker: the chunks of all five connections share one producer, as they do per worker.
      workers: 1,
      log: () => undefined,
    });
    await ingestor.start();
    await waitFor(() => server!.stats().subscribedInstruments >= 1_000, 20_000, 'subscriptions');
    await new Promise((r) => setTimeout(r, 1_500));
    server.pause();
    await settle(server, ingestor, 60_000);
    expect(proxy.injected.drop + proxy.injected.lose).toBe(8);

    const trades = await readTopic(brokers, topics.trades);
    expect(duplicatesOf(trades)).toEqual([]);
    const sentTrades = ids.reduce((s, id) => s + server!.sentFor(Number(id)).trade, 0);
    expect(trades.length).toBe(sentTrades);
    const reference = await readTopic(brokers, topics.reference);
    expect(duplicatesOf(reference)).toEqual([]);
    for (const id of ids) {
      const volumes = trades.filter((r) => r.key === id).map((r) => r.value.volume as number);
      expect(volumes.length, `trades of ${id}`).toBe(server.sentFor(Number(id)).trade);
      for (let i = 1; i < volumes.length; i++)
        expect(volumes[i]! >= volumes[i - 1]!, `order of ${id}`).toBe(true);
    }
  });
});
