/**
 * The ledger of gaps beyond the connections' own states, against the simulator and a real Kafka
 * broker: an instrument with no trade while the market is open goes `stale` (from when it could
 * first have traded to its next trade), and reading paused because the pipeline is full is a
 * `backpressure` gap of every live connection, from the pause to the resume. And a token renewed
 * ahead of expiry under load: every connection drains (what the server sent on the old token is
 * read to its close), comes back with the new one, its gap is a `token_renewal`, and each trade
 * reaches Kafka once although every resubscription's snapshot repeats the last one.
 */
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, SIM_CLIENT, settle, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;

afterEach(async () => {
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
});

interface GapValue {
  type: string;
  securityId: number;
  subscription: string;
  cause: string;
  startedAt: number;
  endedAt: number;
  connection: number;
}

async function gapRecords(topic: string, cause: string, atLeast: number): Promise<GapValue[]> {
  let gaps: GapValue[] = [];
  await waitFor(
    async () => {
      const records = await readTopic(brokers, topic);
      gaps = records
        .map((r) => r.value as unknown as GapValue)
        .filter((v) => v.type === 'gap' && v.cause === cause);
      return gaps.length >= atLeast;
    },
    30_000,
    () => `${atLeast} ${cause} gap records, saw ${gaps.length}`,
    500,
  );
  return gaps;
}

describe('stale instruments', () => {
  it('an instrument with no trade while the market is open is a stale gap until its next trade', async () => {
    // The model's clock drives the session (a cycle anchored at 0): pre-open until it is moved on.
    const clock = { t: 500 };
    const model = new MarketModel({
      seed: 41,
      instruments: 200,
      now: () => clock.t,
      sessions: { preOpenMs: 1_000, openMs: 10_000_000, closedMs: 1_000 },
    });
    // Live mode with no trades at all: every instrument is quiet until the load starts below.
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 0, tickIntervalMs: 20 });
    const feed = server;
    const ids = inxIds(model, 20);
    const topics = topicsFor(uniqueName('stale'));
    ingestor = createFeedIngestor(
      {
        feedUrl: feed.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: ids },
        workers: 1,
        staleAfterMs: 1_500,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => feed.stats().subscribedInstruments === 20, 15_000, 'subscriptions');
    // Pre-open: quiet instruments are not stale, however long.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(running.stats().gaps.stale).toBe(0);

    const openedAt = Date.now();
    clock.t = 1_500;
    await waitFor(() => running.stats().marketStatus === 2, 10_000, 'the market open status');
    await waitFor(() => running.stats().gaps.stale === 20, 15_000, 'every instrument stale');
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(1_500);

    const tradingAt = Date.now();
    feed.setLoad({ packetsPerSecond: 2_000, tickIntervalMs: 5 });
    await waitFor(() => running.stats().gaps.stale === 0, 15_000, 'every stale gap ended by a trade');
    const endedBy = Date.now();

    const gaps = await gapRecords(topics.status, 'stale', 20);
    expect(gaps).toHaveLength(20);
    expect(new Set(gaps.map((g) => String(g.securityId)))).toEqual(new Set(ids));
    for (const gap of gaps) {
      expect(gap.subscription).toBe('trade');
      // From the open (the subscriptions were live and the snapshots older) to the first trade.
      expect(gap.startedAt).toBeGreaterThanOrEqual(openedAt * 1000);
      expect(gap.startedAt).toBeLessThan(tradingAt * 1000);
      expect(gap.endedAt).toBeGreaterThanOrEqual(tradingAt * 1000);
      expect(gap.endedAt).toBeLessThanOrEqual(endedBy * 1000);
      expect(gap.endedAt - gap.startedAt).toBeGreaterThanOrEqual(1_500_000);
    }
    // Trading instruments do not go stale again (100 trades a second each).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(running.stats().gaps.stale).toBe(0);
    const metrics = await running.registry.metrics();
    expect(metrics).toContain('ingestor_gaps_total{cause="stale"} 20');
  });
});

describe('backpressure', () => {
  it('reading paused for a full pipeline is a backpressure gap from the pause to the resume, nothing lost', async () => {
    const model = new MarketModel({ seed: 42, instruments: 500 });
    server = await startFeedServer({
      model,
      port: 0,
      load: { packetsPerSecond: 60_000, tickIntervalMs: 5 },
      // Room on the server for everything the paused client does not read: nothing is skipped.
      maxBufferedBytes: 256 * 1024 * 1024,
    });
    const feed = server;
    feed.pause();
    const ids = inxIds(model, 100);
    const topics = topicsFor(uniqueName('pressure'));
    ingestor = createFeedIngestor(
      {
        feedUrl: feed.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: ids },
        workers: 1,
        // Two 16 KiB chunks: every Kafka round trip fills it at this rate.
        chunkBytes: 16 * 1024,
        maxBufferedBytes: 32 * 1024,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => feed.stats().subscribedInstruments === 100, 15_000, 'subscriptions');
    const startedAt = Date.now();
    feed.resume();
    await waitFor(() => running.stats().bufferFullEvents >= 3, 30_000, 'the pipeline full a few times');
    feed.pause();
    await settle(feed, running, 60_000);
    const endedBy = Date.now();
    const stats = running.stats();
    expect(feed.stats().skipped).toBe(0);

    const gaps = await gapRecords(topics.status, 'backpressure', 1);
    // One interval per live connection and pause: records of one interval share its bounds.
    const intervals = new Map<string, GapValue>();
    for (const g of gaps) intervals.set(`${g.connection}/${g.startedAt}/${g.endedAt}`, g);
    expect(intervals.size).toBeGreaterThanOrEqual(1);
    expect(intervals.size).toBeLessThanOrEqual(stats.bufferFullEvents * 2);
    for (const gap of intervals.values()) {
      expect(gap.startedAt).toBeGreaterThanOrEqual(startedAt * 1000);
      expect(gap.endedAt).toBeGreaterThanOrEqual(gap.startedAt);
      expect(gap.endedAt).toBeLessThanOrEqual(endedBy * 1000);
      // Every instrument the connection held is in the interval.
      expect(
        gaps.filter((g) => g.connection === gap.connection && g.startedAt === gap.startedAt),
      ).toHaveLength(50);
    }
    // Paused reading is TCP backpressure, not loss: every trade the simulator sent reached Kafka.
    const trades = await readTopic(brokers, topics.trades);
    const sent = ids.reduce((s, id) => s + feed.sentFor(Number(id)).distinctTrade, 0);
    expect(trades).toHaveLength(sent);
  });
});

describe('token renewed ahead of expiry', () => {
  it('drains every connection, reconnects with the new token, loses and repeats nothing, and records token_renewal gaps', async () => {
    const model = new MarketModel({ seed: 43, instruments: 500 });
    const accepted = new Set(['old-token']);
    server = await startFeedServer({
      model,
      port: 0,
      load: { packetsPerSecond: 20_000, tickIntervalMs: 5 },
      maxBufferedBytes: 256 * 1024 * 1024,
      authenticate: (_clientId, token) => (accepted.has(token) ? { ok: true } : { ok: false, code: 807 }),
    });
    const feed = server;
    feed.pause();
    const ids = inxIds(model, 100);
    const topics = topicsFor(uniqueName('renewed'));
    ingestor = createFeedIngestor(
      {
        feedUrl: feed.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: ids },
        workers: 1,
      },
      {
        credentials: { clientId: SIM_CLIENT.clientId, token: 'old-token', authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => feed.stats().subscribedInstruments === 100, 15_000, 'subscriptions');
    feed.resume();
    await new Promise((r) => setTimeout(r, 1_000));
    const before = new Set(feed.listConnections().map((c) => c.id));
    const renewedAt = Date.now();
    // Both tokens work for a while (the old one is ended by the server later): the switch is ours.
    accepted.add('new-token');
    running.updateToken('new-token');
    await waitFor(
      () => {
        const now = feed.listConnections();
        return (
          now.length === 2 &&
          now.every((c) => !before.has(c.id)) &&
          feed.stats().subscribedInstruments === 100
        );
      },
      15_000,
      'two new connections holding every subscription',
    );
    const backAt = Date.now();
    await new Promise((r) => setTimeout(r, 1_000));
    feed.pause();
    await settle(feed, running, 60_000);
    expect(feed.stats().skipped).toBe(0);
    const stats = running.stats();
    expect(stats.feedErrors).toEqual({});
    expect(stats.repeatedTrades).toBeGreaterThan(0);
    expect(stats.connections.reduce((s, c) => s + c.reconnects, 0)).toBe(2);

    // Each trade once, in order: nothing sent on the old sockets dropped, no snapshot stored twice.
    const byId = new Map<number, number[]>();
    for (const r of await readTopic(brokers, topics.trades)) {
      const list = byId.get(r.value.securityId as number) ?? [];
      list.push(r.value.volume as number);
      byId.set(r.value.securityId as number, list);
    }
    for (const id of ids) {
      const volumes = byId.get(Number(id)) ?? [];
      expect(volumes.length, `trades of ${id}`).toBe(feed.sentFor(Number(id)).distinctTrade);
      for (let i = 1; i < volumes.length; i++)
        expect(volumes[i]! > volumes[i - 1]!, `order of ${id}`).toBe(true);
    }
    const gaps = await gapRecords(topics.status, 'token_renewal', 100);
    expect(gaps).toHaveLength(100);
    expect(new Set(gaps.map((g) => String(g.securityId)))).toEqual(new Set(ids));
    for (const gap of gaps) {
      expect(gap.startedAt).toBeGreaterThanOrEqual(renewedAt * 1000);
      expect(gap.endedAt).toBeGreaterThanOrEqual(gap.startedAt);
      expect(gap.endedAt).toBeLessThanOrEqual(backAt * 1000);
    }
  });
});
