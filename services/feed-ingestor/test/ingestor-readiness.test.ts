/**
 * The ingestor's readiness reflects market data flowing (not just an open socket), and text
 * messages on the binary feed are counted and skipped.
 */

import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { type OpsServer, startOpsServer } from '@feedpipe/service-kit';
import { uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, SIM_CLIENT, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let ops: OpsServer | undefined;

afterEach(async () => {
  await ops?.close().catch(() => undefined);
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  ops = undefined;
  ingestor = undefined;
  server = undefined;
});

async function readyz(url: string): Promise<{ status: number; body: { detail: { reasons: string[] } } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { detail: { reasons: string[] } } };
}

describe('ingestor readiness and text frames', () => {
  it('answers /readyz 503 with the reason while a connection is open but silent, 200 once data flows again', async () => {
    const model = new MarketModel({ seed: 41, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const feedIngestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics: topicsFor(uniqueName('ready')),
        partitions: 1,
        connections: 2,
        instruments: { trade: inxIds(model, 40) },
        workers: 1,
        silentAfterMs: 1_500,
        // Stale detection far away: the silence must be seen by readiness, not cured by a reconnect.
        connection: { staleTimeoutMs: 120_000 },
      },
      {
        credentials: SIM_CLIENT,
        log: () => undefined,
      },
    );
    ingestor = feedIngestor;
    await feedIngestor.start();
    ops = await startOpsServer({
      registries: [feedIngestor.registry],
      ready: () => {
        const verdict = feedIngestor.readiness();
        return { ready: verdict.ready, detail: verdict };
      },
    });
    const url = ops.url;
    await waitFor(async () => (await readyz(url)).status === 200, 30_000, 'ready with data flowing');

    const feed = server;
    const silenced = feed.listConnections()[0];
    if (!silenced) throw new Error('no connection');
    feed.faults.stall(silenced.id);
    await waitFor(async () => (await readyz(url)).status === 503, 30_000, 'not ready while silent');
    const { body } = await readyz(url);
    expect(body.detail.reasons.some((r) => /^connection \d open but no market data for \d+ s/.test(r))).toBe(
      true,
    );
    // The socket is open all along: an open socket alone no longer passes for ready.
    expect(feedIngestor.stats().connections.every((c) => c.state === 'open')).toBe(true);

    feed.faults.stall(silenced.id, false);
    await waitFor(async () => (await readyz(url)).status === 200, 30_000, 'ready again once data flows');
  });

  it('counts a text message in a metric, skips it, and keeps the connection', async () => {
    const model = new MarketModel({ seed: 42, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 20, tickIntervalMs: 20 });
    const logs: string[] = [];
    const feedIngestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics: topicsFor(uniqueName('text')),
        partitions: 1,
        connections: 1,
        instruments: { trade: inxIds(model, 10) },
        workers: 1,
      },
      {
        credentials: SIM_CLIENT,
        log: (m) => logs.push(m),
      },
    );
    ingestor = feedIngestor;
    await feedIngestor.start();
    const feed = server;
    await waitFor(() => feedIngestor.stats().produced > 0, 30_000, 'records produced');
    const connection = feed.listConnections()[0];
    if (!connection) throw new Error('no connection');
    const framesBefore = feedIngestor.stats().frames;
    feed.faults.sendTextFrame(connection.id, 'hello');
    feed.faults.sendTextFrame(connection.id, '{"not":"binary"}');
    await waitFor(() => feedIngestor.stats().textFrames === 2, 10_000, 'two text frames counted');
    const metric = await feedIngestor.registry.getSingleMetricAsString('ingestor_text_frames_total');
    expect(metric).toContain('ingestor_text_frames_total 2');
    // Read from the socket and not decoded: counted with their reason, every other reason stays 0.
    const undecoded = await feedIngestor.registry.getSingleMetricAsString('ingestor_frames_undecoded_total');
    expect(undecoded).toContain('ingestor_frames_undecoded_total{reason="text"} 2');
    for (const reason of ['malformed', 'stopped', 'dropped', 'worker_failed'])
      expect(undecoded).toContain(`ingestor_frames_undecoded_total{reason="${reason}"} 0`);
    expect(logs.filter((m) => m.includes('unexpected text message'))).toHaveLength(1);
    // Skipped, not decoded: they reach neither the frame count nor the pipeline as malformed data.
    await waitFor(() => feedIngestor.stats().frames > framesBefore, 10_000, 'binary frames keep coming');
    expect(feedIngestor.stats().malformed).toBe(0);
    expect(feed.listConnections().map((c) => c.id)).toEqual([connection.id]);
  });
});
