import { join } from 'node:path';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readCapture } from '@feedpipe/codec';
import { type LocalKafka, startLocalKafka } from '@feedpipe/local-kafka';
import { startOpsServer } from '@feedpipe/service-kit';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor, replayCapture } from '../src/index.js';
import { inxIds, recordsWithoutHeaders, SIM_CLIENT, settle, topicsFor } from './fixtures/feed-fixtures.js';

const sharedBrokers = inject('kafkaBrokers');
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let kafka: LocalKafka | undefined;

afterEach(async () => {
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  await kafka?.stop().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
  kafka = undefined;
});

describe('ingestor resilience', () => {
  it('holds what it receives while Kafka is down for 10 s and delivers all of it, in order, afterwards', async () => {
    kafka = await startLocalKafka({ dataDir: join(tempDir('outage'), 'kafka'), heap: '384m' });
    const model = new MarketModel({ seed: 21, instruments: 1_000 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 10, tickIntervalMs: 20 });
    const ids = inxIds(model, 200);
    const topics = topicsFor(uniqueName('outage'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers: kafka.brokers,
        topics,
        partitions: 3,
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
    const feedIngestor = ingestor;
    await waitFor(() => feedIngestor.stats().produced > 0, 30_000, 'records produced before the outage');

    await kafka.stop();
    await new Promise((r) => setTimeout(r, 10_000));
    const during = ingestor.stats();
    // The sockets stayed up and kept receiving; what arrived is held, not dropped.
    expect(during.connections.every((c) => c.state === 'open')).toBe(true);
    expect(during.bufferedBytes).toBeGreaterThan(0);
    await kafka.restart();
    await new Promise((r) => setTimeout(r, 1_000));
    server.pause();
    await settle(server, ingestor, 90_000);

    const stats = ingestor.stats();
    expect(stats.produceRetries).toBeGreaterThan(0);
    expect(stats.packets).toBe(server.stats().packets);
    const records = await readTopic(kafka.brokers, topics.trades);
    const byId = new Map<number, number[]>();
    for (const r of records) {
      const list = byId.get(r.value.securityId as number) ?? [];
      list.push(r.value.volume as number);
      byId.set(r.value.securityId as number, list);
    }
    for (const id of ids) {
      const volumes = byId.get(Number(id)) ?? [];
      expect(volumes.length, `trades of ${id}`).toBe(server.sentFor(Number(id)).trade);
      for (let i = 1; i < volumes.length; i++)
        expect(volumes[i]! > volumes[i - 1]!, `order of ${id}`).toBe(true);
    }
  });

  it('detects a silent connection and reconnects', async () => {
    const model = new MarketModel({ seed: 2, instruments: 300 });
    server = await startFeedServer({ model, port: 0, pingIntervalMs: 100 });
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers: sharedBrokers,
        topics: topicsFor(uniqueName('stale')),
        partitions: 1,
        connections: 1,
        instruments: { trade: inxIds(model, 10) },
        workers: 1,
        connection: { staleTimeoutMs: 600 },
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    await waitFor(() => server!.listConnections().length === 1, 10_000, 'connection');
    const first = server.listConnections()[0]!;
    server.faults.stall(first.id);
    await waitFor(
      () => server!.listConnections().some((c) => c.id !== first.id && c.tradeSubscriptions === 10),
      15_000,
      'a new connection with the subscriptions',
    );
    expect(ingestor.stats().connections[0]?.reconnects).toBe(1);
  });

  it('reconnects with a renewed token and re-subscribes', async () => {
    const model = new MarketModel({ seed: 4, instruments: 300 });
    const presented: string[] = [];
    server = await startFeedServer({
      model,
      port: 0,
      // Tokens checked at connect only: `presented` counts connection attempts. The periodic
      // re-check would add an entry per open connection each second, and a loaded machine that
      // takes over a second between two asserts would count those too.
      tokenCheckIntervalMs: 0,
      authenticate: (_clientId, token) => {
        presented.push(token);
        return token === 'old-token' || token === 'new-token' ? { ok: true } : { ok: false, code: 809 };
      },
    });
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers: sharedBrokers,
        topics: topicsFor(uniqueName('renew')),
        partitions: 1,
        connections: 2,
        instruments: { trade: inxIds(model, 20) },
        workers: 1,
      },
      {
        credentials: { clientId: '1000000001', token: 'old-token', authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    await waitFor(
      () => server!.listConnections().reduce((s, c) => s + c.tradeSubscriptions, 0) === 20,
      10_000,
      'subscriptions',
    );
    const before = new Set(server.listConnections().map((c) => c.id));
    expect(presented).toEqual(['old-token', 'old-token']);
    ingestor.updateToken('new-token');
    await waitFor(
      () => {
        const now = server!.listConnections();
        return (
          now.length === 2 &&
          now.every((c) => !before.has(c.id)) &&
          now.reduce((s, c) => s + c.tradeSubscriptions, 0) === 20
        );
      },
      10_000,
      'two new connections with all subscriptions',
    );
    expect(presented.slice(2)).toEqual(['new-token', 'new-token']);
    expect(ingestor.stats().fatal).toBeUndefined();
  });

  it('records frames to a capture file and replays them into Kafka', async () => {
    const model = new MarketModel({ seed: 8, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const dir = tempDir('capture');
    const captureFile = join(dir, 'feed.cap');
    const live = topicsFor(uniqueName('live'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers: sharedBrokers,
        topics: live,
        partitions: 2,
        connections: 1,
        instruments: { trade: inxIds(model, 30), ohlc: inxIds(model, 5) },
        workers: 1,
        captureFile,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    await new Promise((r) => setTimeout(r, 800));
    server.pause();
    await settle(server, ingestor);
    const produced = ingestor.stats().produced;
    const frames = ingestor.stats().frames;
    await ingestor.stop();
    ingestor = undefined;

    let captured = 0;
    for await (const _ of readCapture(captureFile)) captured += 1;
    expect(captured).toBe(frames);

    const replayed = topicsFor(uniqueName('replay'));
    const result = await replayCapture({
      file: captureFile,
      brokers: sharedBrokers,
      topics: replayed,
      workers: 1,
    });
    expect(result.frames).toBe(frames);
    expect(result.produced).toBe(produced);
    const original = await readTopic(sharedBrokers, live.trades);
    const again = await readTopic(sharedBrokers, replayed.trades);
    const key = (r: { value: Record<string, unknown> }) => JSON.stringify(r.value);
    expect(again.map(key).sort()).toEqual(original.map(key).sort());
    expect(recordsWithoutHeaders(again, 'trades')).toEqual([]);
    expect(recordsWithoutHeaders(await readTopic(sharedBrokers, replayed.ohlc), 'ohlc')).toEqual([]);
  });

  it('exports metrics, health and readiness', async () => {
    const model = new MarketModel({ seed: 9, instruments: 200 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers: sharedBrokers,
        topics: topicsFor(uniqueName('metrics')),
        partitions: 1,
        connections: 2,
        instruments: { trade: inxIds(model, 20) },
        workers: 1,
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    await ingestor.start();
    const feedIngestor = ingestor;
    const ops = await startOpsServer({
      registries: [feedIngestor.registry],
      ready: () => ({
        ready: feedIngestor.stats().connections.some((c) => c.state === 'open'),
        detail: null,
      }),
    });
    try {
      await waitFor(() => feedIngestor.stats().produced > 0, 10_000, 'records produced');
      const metrics = await (await fetch(`${ops.url}/metrics`)).text();
      for (const name of [
        'ingestor_frames_total',
        'ingestor_packets_total{type="trade"}',
        'ingestor_records_produced_total',
        'ingestor_connections{state="open"} 2',
        'ingestor_subscriptions{kind="trade"} 20',
        'ingestor_receive_to_ack_seconds_bucket',
      ]) {
        expect(metrics).toContain(name);
      }
      expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${ops.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${ops.url}/nope`)).status).toBe(404);
    } finally {
      await ops.close();
    }
  });
});
