/**
 * Issue #33 item 6 against a feed server written from the spec alone (reconnect/spec-feed-server.ts,
 * which shares nothing with the simulator or the codec): instruments added through the ingestor's
 * ops route while it runs are subscribed in requests of at most 100 instruments (the server reads no
 * more than 100 of a request, as the spec's limit allows it to) and their trades are in Kafka within
 * seconds.
 */
import { prefixedTopics } from '@feedpipe/contracts';
import {
  createFeedIngestor,
  type FeedIngestor,
  type OpsRouteServer,
  SUBSCRIPTIONS_PATH,
  startOpsRouteServer,
} from '@feedpipe/feed-ingestor';
import { readTopic, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type SpecFeedServer, startSpecFeedServer } from './reconnect/spec-feed-server.js';

const brokers = inject('kafkaBrokers');
const KEY = 'spec-feed-live-subscriptions-key';
/**
 * "Within seconds": how long the added instruments may take from the request to trades acknowledged
 * by Kafka (a bound for a loaded test machine, not a speed goal).
 */
const WITHIN_MS = 15_000;

let server: SpecFeedServer | undefined;
let ingestor: FeedIngestor | undefined;
let route: OpsRouteServer | undefined;

afterEach(async () => {
  await route?.close();
  await ingestor?.stop().catch(() => undefined);
  await server?.close();
  route = undefined;
  ingestor = undefined;
  server = undefined;
});

const range = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(from + i));

describe('subscriptions while running, against the spec-only feed server', () => {
  it('adds 150 instruments live in requests of at most 100; each is in Kafka within seconds', async () => {
    server = await startSpecFeedServer({ tradesPerTick: 20, hotTradesPerTick: 1 });
    const feed = server;
    const topics = prefixedTopics(uniqueName('livespec'));
    ingestor = createFeedIngestor(
      {
        feedUrl: feed.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: range(3_500_001, 50) },
        workers: 1,
      },
      {
        credentials: { clientId: '1000000001', token: 'spec-token', authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    route = await startOpsRouteServer({ ingestor, key: KEY, log: () => undefined });
    await waitFor(() => feed.subscribed() === 50, 15_000, 'the universe subscribed');

    const added = range(3_600_001, 150);
    const askedAt = Date.now();
    const answer = await fetch(`${route.url}${SUBSCRIPTIONS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ kind: 'trade', add: added.map(Number) }),
    });
    expect(answer.status).toBe(200);
    // All 150 taken: a request of more than 100 would have lost its tail at this server.
    await waitFor(
      () => feed.subscribed() === 200,
      WITHIN_MS,
      () => `subscribed ${feed.subscribed()} of 200`,
    );
    const running = ingestor;
    const left = (): number => Math.max(1, askedAt + WITHIN_MS - Date.now());
    await waitFor(
      () => added.every((id) => feed.lastSequence(Number(id)) > 0),
      left(),
      'a trade of each sent',
    );
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
    for (const r of await readTopic(brokers, topics.trades))
      if (r.value.type === 'trade' && added.includes(r.key)) seen.add(r.key);
    expect(seen.size, 'added instruments with a trade in Kafka').toBe(150);
    expect(ingestor.stats().malformed).toBe(0);
    expect(ingestor.stats().recentFeedErrors).toEqual([]);
  });
});
