import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, type TopicRecord, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, recordsWithoutHeaders, SIM_CLIENT, settle, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;

afterEach(async () => {
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
});

/** Per instrument: the trade records in Kafka order, with their volumes strictly increasing. */
function tradesByInstrument(records: TopicRecord[]): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const r of records) {
    if (r.value.type !== 'trade') continue;
    const list = map.get(r.value.securityId as number) ?? [];
    list.push(r.value.volume as number);
    map.set(r.value.securityId as number, list);
  }
  return map;
}

function expectOrderedAndComplete(feed: FeedServer, ids: string[], trades: Map<number, number[]>): void {
  for (const id of ids) {
    const volumes = trades.get(Number(id)) ?? [];
    // Each trade once: a re-subscribe's snapshot repeating the last trade is not produced again.
    expect(volumes.length, `trades of ${id}`).toBe(feed.sentFor(Number(id)).distinctTrade);
    for (let i = 1; i < volumes.length; i++) {
      expect(volumes[i]! > volumes[i - 1]!, `order of ${id} at ${i}`).toBe(true);
    }
  }
}

describe('feed ingestor against the simulator', () => {
  it('shards 1,200 instruments over 3 connections and delivers every packet to Kafka in order', async () => {
    const model = new MarketModel({ seed: 7, instruments: 2_000 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const ids = inxIds(model, 1_200);
    const topics = topicsFor(uniqueName('ing'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 4,
        connections: 3,
        maxSubscriptionsPerConnection: 420,
        instruments: { trade: ids, ohlc: ids.slice(0, 50) },
        workers: 1,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    await waitFor(() => server!.stats().subscribedInstruments >= 1_200, 20_000, 'subscriptions');
    const conns = server.listConnections();
    expect(conns).toHaveLength(3);
    expect(conns.map((c) => c.tradeSubscriptions + c.ohlcSubscriptions).sort()).toEqual([416, 417, 417]);
    await new Promise((r) => setTimeout(r, 1_500));
    server.pause();
    await settle(server, ingestor);

    const stats = ingestor.stats();
    expect(stats.packets).toBe(server.stats().packets);
    expect(stats.malformed).toBe(0);
    const trades = await readTopic(brokers, topics.trades);
    expectOrderedAndComplete(server, ids, tradesByInstrument(trades));
    const ohlc = await readTopic(brokers, topics.ohlc);
    expect(ohlc.length).toBe(ids.slice(0, 50).reduce((s, id) => s + server!.sentFor(Number(id)).ohlc, 0));
    const reference = await readTopic(brokers, topics.reference);
    expect(reference.length).toBeGreaterThanOrEqual(ids.length);
    expect(new Set(trades.map((r) => r.key)).size).toBe(1_200);
    // Every record names its source and its schema (read back by a client other than the producer's).
    expect(recordsWithoutHeaders(trades, 'trades')).toEqual([]);
    expect(recordsWithoutHeaders(ohlc, 'ohlc')).toEqual([]);
    expect(recordsWithoutHeaders(reference, 'reference')).toEqual([]);
  });

  it('reconnects after an abnormal close and re-subscribes exactly what the connection held', async () => {
    const model = new MarketModel({ seed: 11, instruments: 1_000 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const ids = inxIds(model, 300);
    const topics = topicsFor(uniqueName('reconn'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: ids },
        workers: 1,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    await waitFor(() => server!.stats().subscribedInstruments >= 300, 20_000, 'subscriptions');
    await new Promise((r) => setTimeout(r, 500));
    server.pause();
    await settle(server, ingestor);

    const victim = server.listConnections()[0]!;
    server.faults.abort(victim.id);
    await waitFor(
      () => {
        const now = server!.listConnections();
        return (
          now.length === 2 &&
          now.every((c) => c.id !== victim.id) &&
          now.reduce((s, c) => s + c.tradeSubscriptions, 0) === 300
        );
      },
      20_000,
      'the aborted connection to come back with its subscriptions',
    );
    expect(server.listConnections().reduce((s, c) => s + c.tradeSubscriptions, 0)).toBe(300);
    server.resume();
    await new Promise((r) => setTimeout(r, 1_000));
    server.pause();
    await settle(server, ingestor);

    expect(ingestor.stats().connections.reduce((s, c) => s + c.reconnects, 0)).toBe(1);
    const trades = tradesByInstrument(await readTopic(brokers, topics.trades));
    expectOrderedAndComplete(server, ids, trades);
  });

  it('treats 805 as a lost slot: reports it and backs off instead of fighting', async () => {
    const model = new MarketModel({ seed: 3, instruments: 500 });
    server = await startFeedServer({ model, port: 0 });
    const topics = topicsFor(uniqueName('evict'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 1,
        connections: 5,
        instruments: { trade: inxIds(model, 50) },
        workers: 1,
        connection: { evictionBackoffMs: 60_000 },
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    await waitFor(() => server!.listConnections().length === 5, 20_000, 'five connections');
    const intruder = new WebSocket(server.connectUrl(SIM_CLIENT.clientId, SIM_CLIENT.token), {
      perMessageDeflate: false,
    });
    await new Promise((resolve, reject) => {
      intruder.once('open', resolve);
      intruder.once('error', reject);
    });
    await waitFor(() => ingestor!.stats().feedErrors['805'] === 1, 10_000, 'the 805 error');
    expect(ingestor.stats().recentFeedErrors.map((e) => e.code)).toEqual([805]);
    await waitFor(
      () => ingestor!.stats().connections.some((c) => c.state === 'evicted'),
      10_000,
      'evicted state',
    );
    const acceptedAfter = server.stats().upgrades.accepted;
    await new Promise((r) => setTimeout(r, 1_500));
    // No reconnect attempt within the eviction back-off: the intruder keeps its slot.
    expect(server.stats().upgrades.accepted).toBe(acceptedAfter);
    expect(server.listConnections()).toHaveLength(5);
    expect(ingestor.stats().connections.filter((c) => c.state === 'open')).toHaveLength(4);
    intruder.terminate();
    // The 805 packet itself is a record of the status topic, with its source and schema headers.
    await ingestor.drain();
    const status = await readTopic(brokers, topics.status);
    expect(status.map((r) => r.value.code)).toContain(805);
    expect(recordsWithoutHeaders(status, 'status')).toEqual([]);
  });

  it('stops reconnecting for good on a refused credential (808) and on an HTTP 400 upgrade', async () => {
    const model = new MarketModel({ seed: 5, instruments: 200 });
    server = await startFeedServer({ model, port: 0 });
    for (const credentials of [
      { clientId: '1000000001', token: 'wrong-token', authType: 2 as const },
      { clientId: '', token: 'x', authType: 2 as const },
    ]) {
      const attemptsBefore = server.stats().upgrades.accepted + server.stats().upgrades.badRequest;
      const fatal = createFeedIngestor(
        {
          feedUrl: server.url,
          brokers,
          topics: topicsFor(uniqueName('fatal')),
          partitions: 1,
          connections: 2,
          instruments: { trade: inxIds(model, 10) },
          workers: 1,
        },
        {
          credentials,
          log: () => undefined,
        },
      );
      ingestor = fatal;
      await fatal.start();
      await waitFor(() => fatal.stats().fatal !== undefined, 10_000, 'the fatal verdict');
      await new Promise((r) => setTimeout(r, 2_000));
      const attempts = server.stats().upgrades.accepted + server.stats().upgrades.badRequest - attemptsBefore;
      // One attempt per connection at most, and none after the verdict.
      expect(attempts).toBeLessThanOrEqual(2);
      expect(fatal.stats().connections.every((c) => c.state === 'fatal' || c.state === 'stopped')).toBe(true);
      await fatal.stop();
      ingestor = undefined;
    }
  });
});
