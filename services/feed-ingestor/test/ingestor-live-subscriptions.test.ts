/**
 * Subscriptions changed while the ingestor runs, against the simulator and a real Kafka broker: an
 * instrument added through the ops route is in Kafka within seconds; a removal unsubscribes it on
 * the feed; a change that does not fit is refused whole; the changes are counted, survive a restart
 * and are in the ledger of gaps (the downtime of an instrument added live is a process_stopped gap);
 * an edit of the watched universe file is applied like a route change.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor, type FeedIngestorConfig } from '../src/index.js';
import { type OpsRouteServer, startOpsRouteServer } from '../src/ops/ops-route-server.js';
import { UniverseWatch } from '../src/subscriptions/universe-watch.js';
import { inxIds, SIM_INGESTOR_DEPS, simIngestorConfig, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
const KEY = 'live-subscriptions-test-key-0123';
/**
 * "Within seconds": how long an added instrument may take from the request to a trade acknowledged
 * by Kafka (a bound for a loaded test machine, not a speed goal).
 */
const WITHIN_MS = 15_000;

let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let route: OpsRouteServer | undefined;
let watch: UniverseWatch | undefined;

afterEach(async () => {
  watch?.stop();
  await route?.close();
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  watch = undefined;
  route = undefined;
  ingestor = undefined;
  server = undefined;
});

/**
 * Waits (within WITHIN_MS of `askedAt`) until the feed has sent a trade of each of `ids` and the
 * ingestor has it acknowledged by Kafka; then the instruments with a trade in the topic. Leaves the
 * feed paused.
 */
async function tradesInKafka(
  feed: FeedServer,
  running: FeedIngestor,
  topic: string,
  ids: readonly string[],
  askedAt: number,
): Promise<Set<string>> {
  const left = (): number => Math.max(1, askedAt + WITHIN_MS - Date.now());
  await waitFor(() => ids.every((id) => feed.sentFor(Number(id)).trade > 0), left(), 'a trade of each sent');
  // A feed that keeps streaming never leaves the pipeline idle: pause it, then drain what it sent.
  feed.pause();
  await waitFor(() => running.stats().frames >= feed.stats().messages, left(), 'every message received');
  await Promise.race([
    running.drain(),
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`not acknowledged within ${WITHIN_MS} ms`)), left()),
    ),
  ]);
  const seen = new Set<string>();
  for (const r of await readTopic(brokers, topic))
    if (r.value.type === 'trade' && ids.includes(r.key)) seen.add(r.key);
  return seen;
}

async function change(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${route?.url}/v1/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify(body),
  });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

const subscribedOnFeed = (feed: FeedServer): number =>
  feed.listConnections().reduce((sum, c) => sum + c.tradeSubscriptions, 0);

describe('subscriptions while running, against the simulator', () => {
  it('adds through the ops route (in Kafka within seconds), removes, refuses what does not fit, and keeps the changes across a restart', async () => {
    const model = new MarketModel({ seed: 41, instruments: 600 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 200, tickIntervalMs: 20 });
    const feed = server;
    const ids = inxIds(model, 80);
    const universe = ids.slice(0, 40);
    const dir = tempDir('live-subs');
    const topics = topicsFor(uniqueName('livesubs'));
    const config: FeedIngestorConfig = {
      ...simIngestorConfig(feed, brokers, topics, universe),
      // 60 slots in all: room for the universe and 20 more.
      maxSubscriptionsPerConnection: 30,
      stateFile: join(dir, 'state.json'),
      subscriptionsFile: join(dir, 'subscriptions.json'),
    };
    ingestor = createFeedIngestor(config, SIM_INGESTOR_DEPS);
    await ingestor.start();
    route = await startOpsRouteServer({ ingestor, key: KEY, log: () => undefined });
    await waitFor(() => subscribedOnFeed(feed) === 40, 20_000, 'the universe subscribed');

    const added = ids.slice(40, 50);
    const askedAt = Date.now();
    const answer = await change({ add: added });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ kind: 'trade', added, removed: [], held: { trade: 50, ohlc: 0 } });
    const arrived = await tradesInKafka(feed, ingestor, topics.trades, added, askedAt);
    expect([...arrived].sort()).toEqual([...added].sort());
    // Placed within the per-connection limit, spread over both connections.
    const loads = feed.listConnections().map((c) => c.tradeSubscriptions);
    expect(loads.reduce((a, b) => a + b, 0)).toBe(50);
    expect(Math.max(...loads)).toBeLessThanOrEqual(30);
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);

    const removed = universe.slice(0, 5);
    expect((await change({ remove: removed })).status).toBe(200);
    await waitFor(() => subscribedOnFeed(feed) === 45, 10_000, 'the removal unsubscribed on the feed');
    // 45 held, 15 slots left: 20 more is refused whole, and nothing changes on the feed.
    const refused = await change({ add: ids.slice(50, 70) });
    expect(refused.status).toBe(409);
    expect((refused.json.error as { code: string }).code).toBe('SUBSCRIPTION_LIMIT');
    expect(ingestor.subscriptions().held.trade).toBe(45);
    await new Promise((r) => setTimeout(r, 300));
    expect(subscribedOnFeed(feed)).toBe(45);

    const changes = await ingestor.registry.getSingleMetric('ingestor_subscription_changes_total')?.get();
    const count = (action: string) =>
      changes?.values.find((v) => v.labels.action === action && v.labels.source === 'ops_route')?.value;
    expect([count('add'), count('remove')]).toEqual([10, 5]);

    // A restart with the same files: the changes are subscribed again, and the downtime of an
    // instrument added live is in the ledger of gaps.
    await route.close();
    route = undefined;
    await ingestor.stop();
    const stoppedAt = Date.now();
    ingestor = createFeedIngestor(config, SIM_INGESTOR_DEPS);
    await ingestor.start();
    await waitFor(() => subscribedOnFeed(feed) === 45, 20_000, 'the kept changes subscribed again');
    const held = ingestor.subscriptions();
    expect(held.held.trade).toBe(45);
    expect(held.overrides.trade.added.sort()).toEqual([...added].sort());
    expect(held.overrides.trade.removed.sort()).toEqual([...removed].sort());
    const restarted = ingestor;
    await waitFor(() => restarted.stats().gaps.written >= 45, 20_000, 'process_stopped gaps written');
    const gaps = (await readTopic(brokers, topics.status)).filter((r) => r.value.type === 'gap');
    const downtime = gaps.find((r) => r.key === added[0] && r.value.cause === 'process_stopped');
    expect(downtime, 'the added instrument has its downtime gap').toBeDefined();
    expect(downtime?.value.startedAt as number).toBeLessThanOrEqual(stoppedAt * 1000);
    expect(gaps.some((r) => r.key === removed[0] && r.value.cause === 'process_stopped')).toBe(false);
  });

  it('applies an edit of the watched universe file: new instruments reach Kafka, dropped ones are unsubscribed', async () => {
    const model = new MarketModel({ seed: 43, instruments: 400 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 200, tickIntervalMs: 20 });
    const feed = server;
    const ids = inxIds(model, 30);
    const dir = tempDir('universe');
    const file = join(dir, 'universe.json');
    writeFileSync(file, JSON.stringify(ids.slice(0, 20)));
    const topics = topicsFor(uniqueName('universe'));
    ingestor = createFeedIngestor(
      simIngestorConfig(feed, brokers, topics, ids.slice(0, 20)),
      SIM_INGESTOR_DEPS,
    );
    await ingestor.start();
    const running = ingestor;
    watch = new UniverseWatch({
      files: { trade: file },
      intervalMs: 100,
      apply: (kind, list) => running.setUniverse(kind, list),
      log: () => undefined,
    });
    watch.start();
    await waitFor(() => subscribedOnFeed(feed) === 20, 20_000, 'the universe subscribed');

    const editedAt = Date.now();
    writeFileSync(file, JSON.stringify(ids.slice(5, 30)));
    const arrived = await tradesInKafka(feed, running, topics.trades, ids.slice(20, 30), editedAt);
    expect(arrived.size).toBe(10);
    await waitFor(() => subscribedOnFeed(feed) === 25, 10_000, 'the dropped instruments unsubscribed');
    const changes = await ingestor.registry.getSingleMetric('ingestor_subscription_changes_total')?.get();
    const count = (action: string) =>
      changes?.values.find((v) => v.labels.action === action && v.labels.source === 'universe_file')?.value;
    expect([count('add'), count('remove')]).toEqual([10, 5]);
  });

  it("keeps the ledger right for changes made while a connection's gap is open", async () => {
    const model = new MarketModel({ seed: 45, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 50, tickIntervalMs: 20 });
    const feed = server;
    const ids = inxIds(model, 21);
    const topics = topicsFor(uniqueName('livegaps'));
    ingestor = createFeedIngestor(
      {
        ...simIngestorConfig(feed, brokers, topics, ids.slice(0, 20)),
        // The evicted connection stays down long enough to change its subscriptions meanwhile.
        connection: { evictionBackoffMs: 1_500, evictionJitterMs: 0 },
      },
      SIM_INGESTOR_DEPS,
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => subscribedOnFeed(feed) === 20, 15_000, 'the universe subscribed');
    feed.faults.sendErrorAndClose((feed.listConnections()[0] as { id: number }).id, 805);
    await waitFor(() => running.stats().gaps.open.length === 1, 5_000, 'the eviction gap open');
    const gap = running.stats().gaps.open[0] as { connection: number; startedAtMs: number };
    // Placed in turn on the roomiest connection: ids[0], ids[2], ... on 0; ids[1], ids[3], ... on 1.
    const removed = ids[gap.connection] as string;
    const kept = ids[gap.connection + 2] as string;
    const added = ids[20] as string;
    const removedAt = Date.now();
    running.changeSubscriptions('trade', { remove: [removed] });
    const addedAt = Date.now();
    running.changeSubscriptions('trade', { add: [added] });
    await waitFor(() => running.stats().gaps.recent.length >= 2, 20_000, 'the eviction gap closed');
    const closed = running.stats().gaps.recent.find((g) => g.cause === 'eviction' && g.only === undefined);
    expect(closed?.connection).toBe(gap.connection);
    await waitFor(() => running.stats().gaps.pending === 0, 10_000, 'gap records written');
    const records = (await readTopic(brokers, topics.status)).filter(
      (r) => r.value.type === 'gap' && r.value.cause === 'eviction',
    );
    const of = (id: string) => records.filter((r) => r.key === id).map((r) => r.value);
    // The removed instrument's gap ends at its removal; the added one's begins at its subscription.
    expect(of(removed)).toHaveLength(1);
    expect(of(removed)[0]?.startedAt).toBe(gap.startedAtMs * 1000);
    expect(of(removed)[0]?.endedAt as number).toBeGreaterThanOrEqual(removedAt * 1000);
    expect(of(removed)[0]?.endedAt as number).toBeLessThan((closed?.endedAtMs ?? 0) * 1000);
    expect(of(added)).toHaveLength(1);
    expect(of(added)[0]?.startedAt as number).toBeGreaterThanOrEqual(addedAt * 1000);
    expect(of(added)[0]?.endedAt).toBe((closed?.endedAtMs ?? 0) * 1000);
    expect(of(kept)).toEqual([
      expect.objectContaining({
        startedAt: gap.startedAtMs * 1000,
        endedAt: (closed?.endedAtMs ?? 0) * 1000,
      }),
    ]);
  });
});
