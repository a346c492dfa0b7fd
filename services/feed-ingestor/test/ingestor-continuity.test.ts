/**
 * Unattended operation against the simulator and a real Kafka broker: a refused token is renewed
 * and every connection comes back with it (nothing received is lost), a token nothing can renew is
 * fatal with a message that says what to do, and every interval in which subscriptions were not
 * live lands in the ledger of gaps with its cause and bounds: a token renewal, an 805 eviction, a
 * dropped connection, the ingestor's own downtime.
 */
import { join } from 'node:path';
import type { TokenSource } from '@feedpipe/broker-api';
import { type FeedServer, MarketModel, startFeedServer } from '@feedpipe/broker-sim';
import { readTopic, tempDir, uniqueName, waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createFeedIngestor, type FeedIngestor } from '../src/index.js';
import { inxIds, settle, topicsFor } from './fixtures/feed-fixtures.js';

const brokers = inject('kafkaBrokers');
const CLIENT = '1000000001';
let server: FeedServer | undefined;
let ingestor: FeedIngestor | undefined;

afterEach(async () => {
  await ingestor?.stop().catch(() => undefined);
  await server?.close().catch(() => undefined);
  ingestor = undefined;
  server = undefined;
});

/** A token source that renews on request, as a real one would (one token valid at a time). */
class RenewingSource implements TokenSource {
  current = 'tok-1';
  renewals = 0;
  async getToken(): Promise<string> {
    return this.current;
  }
  async tokenRejected(rejected: string): Promise<string> {
    if (rejected === this.current) {
      this.renewals += 1;
      this.current = `tok-${this.renewals + 1}`;
    }
    return this.current;
  }
}

/** The simulator accepts exactly the tokens in `valid`; any other gets 807 (expired). */
async function simWithTokens(valid: Set<string>, model: MarketModel, presented: string[] = []) {
  return startFeedServer({
    model,
    port: 0,
    tradesPerSecond: 20,
    tickIntervalMs: 20,
    // Tokens checked at connect only (the tests end them with 807 themselves): `presented` counts
    // connection attempts, not also a re-check per open connection each second, which a loaded
    // machine slow between two asserts would add.
    tokenCheckIntervalMs: 0,
    authenticate: (_clientId, token) => {
      presented.push(token);
      return valid.has(token) ? { ok: true } : { ok: false, code: 807 };
    },
  });
}

interface GapValue {
  type: string;
  securityId: number;
  subscription: string;
  cause: string;
  startedAt: number;
  endedAt: number;
  connection: number;
}

async function gapRecords(topic: string, expected: number): Promise<GapValue[]> {
  let gaps: GapValue[] = [];
  await waitFor(
    async () => {
      const records = await readTopic(brokers, topic);
      gaps = records.map((r) => r.value as unknown as GapValue).filter((v) => v.type === 'gap');
      return gaps.length >= expected;
    },
    30_000,
    () => `${expected} gap records, saw ${gaps.length}`,
    500,
  );
  return gaps;
}

const subscribedOnServer = (feed: FeedServer): number =>
  feed.listConnections().reduce((s, c) => s + c.tradeSubscriptions, 0);

describe('token renewal', () => {
  it('renews a token refused with 807 once, reconnects every connection with it, loses nothing and records the gap', async () => {
    const model = new MarketModel({ seed: 31, instruments: 500 });
    const valid = new Set(['tok-1']);
    const presented: string[] = [];
    server = await simWithTokens(valid, model, presented);
    const feed = server;
    const source = new RenewingSource();
    const ids = inxIds(model, 30);
    const topics = topicsFor(uniqueName('renew807'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 2,
        connections: 3,
        instruments: { trade: ids },
        workers: 1,
      },
      {
        credentials: { clientId: CLIENT, token: source, authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => subscribedOnServer(feed) === 30, 15_000, 'subscriptions on tok-1');
    await waitFor(() => running.stats().producedTrades > 0, 15_000, 'trades before the expiry');
    const before = new Set(feed.listConnections().map((c) => c.id));

    // The token expires: the service refuses it from now on and ends every connection with 807.
    const expiredAt = Date.now();
    valid.clear();
    valid.add('tok-2');
    expect(feed.faults.sendErrorToClient(CLIENT, 807)).toBe(3);
    await waitFor(
      () => {
        const now = feed.listConnections();
        return now.length === 3 && now.every((c) => !before.has(c.id)) && subscribedOnServer(feed) === 30;
      },
      20_000,
      'three new connections holding all 30 subscriptions',
    );
    const reconnectedAt = Date.now();
    expect(source.renewals).toBe(1);
    expect(presented.filter((t) => t === 'tok-2')).toHaveLength(3);
    const stats = running.stats();
    expect(stats.fatal).toBeUndefined();
    expect(stats.tokenRenewals).toBe(1);
    expect(stats.connections.every((c) => c.state === 'open')).toBe(true);

    // Nothing received before or after is lost: Kafka holds every trade the simulator sent.
    await new Promise((r) => setTimeout(r, 500));
    feed.pause();
    await settle(feed, running);
    const trades = await readTopic(brokers, topics.trades);
    for (const id of ids) {
      const got = trades.filter((r) => r.value.securityId === Number(id)).length;
      // Each trade once: the resubscription's snapshot repeating the last trade is not produced again.
      expect(got, `trades of ${id}`).toBe(feed.sentFor(Number(id)).distinctTrade);
    }

    // One gap per instrument, cause token_renewal, inside the window of the expiry and the return.
    const gaps = await gapRecords(topics.status, 30);
    expect(gaps).toHaveLength(30);
    expect(new Set(gaps.map((g) => String(g.securityId)))).toEqual(new Set(ids));
    for (const gap of gaps) {
      expect(gap).toMatchObject({ cause: 'token_renewal', subscription: 'trade' });
      expect(gap.startedAt).toBeGreaterThanOrEqual(expiredAt * 1000);
      expect(gap.endedAt).toBeGreaterThanOrEqual(gap.startedAt);
      expect(gap.endedAt).toBeLessThanOrEqual(reconnectedAt * 1000);
    }
    expect(new Set(gaps.map((g) => g.connection))).toEqual(new Set([0, 1, 2]));
  });

  it('stops with a message saying what to do when nothing can renew the token', async () => {
    const model = new MarketModel({ seed: 32, instruments: 300 });
    const valid = new Set(['fixed-token']);
    server = await simWithTokens(valid, model);
    const feed = server;
    const lines: string[] = [];
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics: topicsFor(uniqueName('unrenewable')),
        partitions: 1,
        connections: 2,
        instruments: { trade: inxIds(model, 10) },
        workers: 1,
      },
      {
        credentials: { clientId: CLIENT, token: 'fixed-token', authType: 2 },
        log: (m) => lines.push(m),
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(() => subscribedOnServer(feed) === 10, 15_000, 'subscriptions');
    valid.clear();
    feed.faults.sendErrorToClient(CLIENT, 807);
    await waitFor(() => running.stats().fatal !== undefined, 10_000, 'the fatal verdict');
    expect(running.stats().fatal).toContain('nothing can renew it');
    expect(
      lines.some((l) => l.startsWith('TOKEN REFUSED, NO RENEWAL') && l.includes('docs/operations.md')),
    ).toBe(true);
    const metrics = await running.registry.metrics();
    expect(metrics).toContain('ingestor_token_unrenewable 1');
    expect(metrics).toContain('ingestor_token_renewals_total{outcome="failed"} 1');
    // No attempt follows a fatal verdict.
    await new Promise((r) => setTimeout(r, 500));
    expect(feed.listConnections()).toHaveLength(0);
  });
});

describe('ledger of gaps', () => {
  it('records an 805 eviction and a dropped connection with their causes and bounds', async () => {
    const model = new MarketModel({ seed: 33, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 10, tickIntervalMs: 20 });
    const feed = server;
    const topics = topicsFor(uniqueName('gaps'));
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics,
        partitions: 2,
        connections: 2,
        instruments: { trade: inxIds(model, 20) },
        workers: 1,
        connection: { evictionBackoffMs: 300, evictionJitterMs: 0 },
      },
      {
        credentials: { clientId: CLIENT, token: 'sim-token-1000000001', authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    await waitFor(
      () => feed.listConnections().length === 2 && subscribedOnServer(feed) === 20,
      15_000,
      'two connections with 20 subscriptions',
    );
    const [evicted, dropped] = feed.listConnections();
    const faultAt = Date.now();
    feed.faults.sendErrorAndClose(evicted!.id, 805);
    feed.faults.abort(dropped!.id);
    await waitFor(
      () =>
        running.stats().gaps.recent.length === 2 &&
        feed.listConnections().length === 2 &&
        subscribedOnServer(feed) === 20,
      20_000,
      () => `both connections back, gaps ${JSON.stringify(running.stats().gaps)}`,
    );
    const backAt = Date.now();
    const intervals = running.stats().gaps.recent;
    expect(intervals.map((g) => g.cause).sort()).toEqual(['connection_down', 'eviction']);
    expect(new Set(intervals.map((g) => g.connection)).size).toBe(2);
    for (const g of intervals) {
      expect(g.startedAtMs).toBeGreaterThanOrEqual(faultAt);
      expect(g.endedAtMs).toBeGreaterThanOrEqual(g.startedAtMs);
      expect(g.endedAtMs).toBeLessThanOrEqual(backAt);
    }
    // The eviction waits at least its backoff; the drop reconnects without one.
    const eviction = intervals.find((g) => g.cause === 'eviction')!;
    expect(eviction.endedAtMs - eviction.startedAtMs).toBeGreaterThanOrEqual(300);

    const gaps = await gapRecords(topics.status, 20);
    const byCause = (cause: string) => gaps.filter((g) => g.cause === cause);
    expect(byCause('eviction')).toHaveLength(evicted!.tradeSubscriptions);
    expect(byCause('connection_down')).toHaveLength(dropped!.tradeSubscriptions);
    for (const gap of gaps) {
      const interval = intervals.find((g) => g.cause === gap.cause)!;
      expect(gap.connection).toBe(interval.connection);
      expect(gap.startedAt).toBe(interval.startedAtMs * 1000);
      expect(gap.endedAt).toBe(interval.endedAtMs * 1000);
    }
  });

  it("records the ingestor's own downtime as process_stopped at the next start", async () => {
    const model = new MarketModel({ seed: 34, instruments: 300 });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 10, tickIntervalMs: 20 });
    const feed = server;
    const stateFile = join(tempDir('run-state'), 'ingestor.state.json');
    const topics = topicsFor(uniqueName('downtime'));
    const make = (trade: string[]) =>
      createFeedIngestor(
        {
          feedUrl: feed.url,
          brokers,
          topics,
          partitions: 1,
          connections: 1,
          instruments: { trade },
          workers: 1,
          stateFile,
        },
        {
          credentials: { clientId: CLIENT, token: 'sim-token-1000000001', authType: 2 },
          log: () => undefined,
        },
      );
    const ids = inxIds(model, 8);
    const first = make(ids.slice(0, 6));
    await first.start();
    await waitFor(() => subscribedOnServer(feed) === 6, 15_000, 'first run subscribed');
    const stopCalledAt = Date.now();
    await first.stop();
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 400));

    // The second run holds 4 of the first run's instruments and 2 new ones.
    ingestor = make(ids.slice(2, 8));
    await ingestor.start();
    await waitFor(() => subscribedOnServer(feed) === 6, 15_000, 'second run subscribed');
    const liveBy = Date.now();
    const gaps = await gapRecords(topics.status, 4);
    expect(gaps).toHaveLength(4);
    expect(new Set(gaps.map((g) => String(g.securityId)))).toEqual(new Set(ids.slice(2, 6)));
    for (const gap of gaps) {
      expect(gap.cause).toBe('process_stopped');
      expect(gap.startedAt).toBeGreaterThanOrEqual(stopCalledAt * 1000);
      expect(gap.startedAt).toBeLessThanOrEqual(stoppedAt * 1000);
      expect(gap.endedAt).toBeGreaterThanOrEqual((stoppedAt + 400) * 1000);
      expect(gap.endedAt).toBeLessThanOrEqual(liveBy * 1000);
    }
  });
});

describe('market sessions', () => {
  it('records market-status changes and carries on across open -> close -> open without a restart', async () => {
    // Pre-open 300 ms, open 1.5 s, closed 1.2 s, repeating.
    const model = new MarketModel({
      seed: 35,
      instruments: 300,
      sessions: { preOpenMs: 300, openMs: 1_500, closedMs: 1_200 },
    });
    server = await startFeedServer({ model, port: 0, tradesPerSecond: 50, tickIntervalMs: 20 });
    const feed = server;
    ingestor = createFeedIngestor(
      {
        feedUrl: server.url,
        brokers,
        topics: topicsFor(uniqueName('sessions')),
        partitions: 1,
        connections: 2,
        instruments: { trade: inxIds(model, 20) },
        workers: 1,
      },
      {
        credentials: { clientId: CLIENT, token: 'sim-token-1000000001', authType: 2 },
        log: () => undefined,
      },
    );
    await ingestor.start();
    const running = ingestor;
    const opensAfterClose = (): boolean => {
      const seq = running.stats().marketStatusChanges.map((c) => c.status);
      const closed = seq.indexOf(0);
      return closed >= 0 && seq.indexOf(2, closed) > closed;
    };
    await waitFor(
      opensAfterClose,
      30_000,
      () => `open -> close -> open, saw ${JSON.stringify(running.stats().marketStatusChanges)}`,
      10,
    );
    // Trading resumes in the second open session, on the same connections.
    const resumedFrom = running.stats().packets;
    await waitFor(() => running.stats().packets > resumedFrom + 5, 10_000, 'packets in the new session');
    const stats = running.stats();
    expect(stats.fatal).toBeUndefined();
    expect(stats.connections.every((c) => c.state === 'open' && c.reconnects === 0)).toBe(true);
    expect(feed.listConnections()).toHaveLength(2);
    const statuses = stats.marketStatusChanges.map((c) => c.status);
    expect(statuses).toEqual(expect.arrayContaining([0, 2]));
    for (let i = 1; i < stats.marketStatusChanges.length; i++) {
      expect(stats.marketStatusChanges[i]!.status).not.toBe(stats.marketStatusChanges[i - 1]!.status);
      expect(stats.marketStatusChanges[i]!.at).toBeGreaterThanOrEqual(stats.marketStatusChanges[i - 1]!.at);
    }
    expect(await running.registry.metrics()).toMatch(/ingestor_market_status \d/);
    // A closed market is not a gap: no connection left its subscriptions.
    expect(stats.gaps.recent).toEqual([]);
  });
});
