import { buildSubscriptionRequests, RequestCode, type SubscriptionRequestCode } from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeedServer, type FeedServerOptions, startFeedServer } from '../src/feed/index.js';
import { INX_EQ_FIRST_ID, MARKET_STATUS_CODE, MarketModel, type SessionCycle } from '../src/market/index.js';
import { TestClient } from './feed-test-client.js';

const servers: FeedServer[] = [];
const clients: TestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

function send(client: TestClient, code: SubscriptionRequestCode, ids: number[]): void {
  const list = ids.map((id) => ({ exchangeSegment: 'INX_EQ' as const, securityId: String(id) }));
  for (const text of buildSubscriptionRequests(code, list)) client.send(text);
}

interface Run {
  messages: Uint8Array[];
  server: FeedServer;
  client: TestClient;
}

/** One scripted session against a fresh simulator driven by a fake clock and manual ticks. */
async function scriptedRun(
  seed: number,
  feed: Partial<FeedServerOptions> = {},
  sessions?: SessionCycle,
  steps = 12,
): Promise<Run> {
  const clock = { t: 1_717_423_200_000 };
  const model = new MarketModel({
    seed,
    instruments: 500,
    now: () => clock.t,
    ...(sessions ? { sessions } : {}),
  });
  const server = await startFeedServer({ model, port: 0, ticks: 'manual', tradesPerSecond: 5, ...feed });
  servers.push(server);
  const client = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
  clients.push(client);
  await client.waitOpen();
  const synced = async (): Promise<void> =>
    waitFor(() => client.packetCount() === server.stats().packets, 5_000, 'client caught up with the server');
  send(
    client,
    RequestCode.SubscribeTrade,
    Array.from({ length: 150 }, (_, n) => INX_EQ_FIRST_ID + n),
  );
  await waitFor(() => server.listConnections()[0]?.tradeSubscriptions === 150, 5_000, 'trade subscriptions');
  send(
    client,
    RequestCode.SubscribeOhlc,
    Array.from({ length: 30 }, (_, n) => INX_EQ_FIRST_ID + 100 + n),
  );
  await waitFor(() => server.listConnections()[0]?.ohlcSubscriptions === 30, 5_000, 'ohlc subscriptions');
  await synced();
  for (let n = 0; n < steps; n++) {
    clock.t += 100;
    server.step(100);
    if (n === 5) {
      send(client, RequestCode.UnsubscribeTrade, [INX_EQ_FIRST_ID + 3, INX_EQ_FIRST_ID + 4]);
      await waitFor(() => server.listConnections()[0]?.tradeSubscriptions === 148, 5_000, 'unsubscribe');
    }
    await synced();
  }
  return { messages: client.messages, server, client };
}

function same(a: Uint8Array[], b: Uint8Array[]): boolean {
  return a.length === b.length && a.every((m, n) => Buffer.from(m).equals(Buffer.from(b[n] as Uint8Array)));
}

describe('determinism', () => {
  it('gives byte-identical streams for the same seed and the same requests', async () => {
    const a = await scriptedRun(77);
    const b = await scriptedRun(77);
    const c = await scriptedRun(78);
    expect(a.messages.length).toBeGreaterThan(12);
    // 5 trades/s on 150 instruments at 100 ms ticks: about 75 trades per tick after the snapshots.
    expect(a.server.stats().packets).toBeGreaterThan(150 * 4 + 30 + 12 * 50);
    expect(same(a.messages, b.messages)).toBe(true);
    expect(same(a.messages, c.messages)).toBe(false);
  });

  it('is byte-identical in load mode too', async () => {
    const load = { load: { packetsPerSecond: 50_000, tickIntervalMs: 5 } };
    const a = await scriptedRun(5, load, undefined, 6);
    const b = await scriptedRun(5, load, undefined, 6);
    // 6 ticks of 100 ms at 50 000 packets/s (the budget is capped at 50 ms worth per tick).
    expect(a.server.stats().generatedTrades).toBeGreaterThan(6 * 2_000);
    expect(same(a.messages, b.messages)).toBe(true);
  });
});

describe('market sessions on the feed', () => {
  it('pushes a Market Status packet at every session change and trades only while open', async () => {
    // The fake clock starts at 1_717_423_200_000, a multiple of the 1000 ms cycle: phase 0, pre-open.
    const cycle = { preOpenMs: 200, openMs: 500, closedMs: 300 };
    const run = await scriptedRun(3, {}, cycle, 20);
    const records = run.client.records();
    const statuses = records.filter((r) => r.type === 'market_status');
    // 20 ticks of 100 ms: open at 200, closed at 700, pre-open at 1000, open at 1200, closed at 1700,
    // pre-open at 2000.
    expect(statuses.map((s) => (s.type === 'market_status' ? s.status : -1))).toEqual([
      MARKET_STATUS_CODE.OPEN,
      MARKET_STATUS_CODE.CLOSED,
      MARKET_STATUS_CODE.PRE_OPEN,
      MARKET_STATUS_CODE.OPEN,
      MARKET_STATUS_CODE.CLOSED,
      MARKET_STATUS_CODE.PRE_OPEN,
    ]);
    expect(statuses[0]).toEqual({
      type: 'market_status',
      segment: 14,
      securityId: 0,
      marketType: [1, 0, 0],
      status: 2,
    });
    // Between the first close and the next open no trade is published.
    const firstClose = records.indexOf(statuses[1] as (typeof records)[number]);
    const reopen = records.indexOf(statuses[3] as (typeof records)[number]);
    expect(
      records.slice(firstClose + 1, reopen).filter((r) => r.type === 'trade' || r.type === 'ohlc'),
    ).toHaveLength(0);
    expect(records.slice(reopen + 1).some((r) => r.type === 'trade')).toBe(true);
  });
});

describe('session changes observed elsewhere first', () => {
  it('still pushes Market Status when a REST read of the model saw the change before the feed tick', async () => {
    const clock = { t: 1_717_423_200_000 };
    const model = new MarketModel({
      seed: 1,
      instruments: 10,
      now: () => clock.t,
      sessions: { preOpenMs: 200, openMs: 500, closedMs: 300 },
    });
    const server = await startFeedServer({ model, port: 0, ticks: 'manual' });
    servers.push(server);
    const client = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
    clients.push(client);
    await client.waitOpen();
    clock.t += 250;
    expect(model.quote(13)?.securityId).toBe(13);
    expect(model.syncSession()).toBeUndefined();
    server.step();
    await client.waitPackets(1);
    expect(client.records()).toEqual([
      {
        type: 'market_status',
        segment: 14,
        securityId: 0,
        marketType: [1, 0, 0],
        status: MARKET_STATUS_CODE.OPEN,
      },
    ]);
  });
});
