import {
  buildDisconnectRequest,
  buildSubscriptionRequests,
  type FeedRecord,
  RequestCode,
} from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedServer, type FeedServerOptions, startFeedServer } from '../src/feed/index.js';
import { INX_EQ_FIRST_ID, MarketModel } from '../src/market/index.js';
import { countPackets, decodeAll, TestClient } from './feed-test-client.js';

const T0 = Date.UTC(2024, 5, 3, 14, 0, 0);
const servers: FeedServer[] = [];
const clients: TestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(
  extra: Partial<FeedServerOptions> = {},
  seed = 1,
  instruments = 6_000,
): Promise<{ server: FeedServer; model: MarketModel; client: TestClient; clock: { t: number } }> {
  const clock = { t: T0 };
  const model = new MarketModel({ seed, instruments, now: () => clock.t });
  const server = await startFeedServer({ model, port: 0, ticks: 'manual', ...extra });
  servers.push(server);
  const client = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
  clients.push(client);
  await client.waitOpen();
  return { server, model, client, clock };
}

function refs(ids: number[]): { exchangeSegment: 'INX_EQ'; securityId: string }[] {
  return ids.map((id) => ({ exchangeSegment: 'INX_EQ', securityId: String(id) }));
}

function subscribe(client: TestClient, code: 15 | 16 | 17 | 18, ids: number[]): void {
  for (const text of buildSubscriptionRequests(code, refs(ids))) client.send(text);
}

const f32 = Math.fround;

/** `count` INX_EQ ids from `from` on whose reference values are known (no zero-filled packets). */
function withReference(model: MarketModel, from: number, count: number): number[] {
  const ids: number[] = [];
  for (let id = from; ids.length < count; id++) if (model.hasReference(model.indexOf(id))) ids.push(id);
  return ids;
}

describe('subscribe trade', () => {
  it('sends Trade, Previous Close, Circuit Limit and 52-Week once per instrument, in order', async () => {
    const { model, client } = await setup();
    const ids = [INX_EQ_FIRST_ID, INX_EQ_FIRST_ID + 1, INX_EQ_FIRST_ID + 2].filter(
      (id) => model.quote(id)?.upperCircuit !== 0,
    );
    subscribe(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(ids.length * 4);
    // One request's snapshots travel together: several packets per WebSocket message.
    expect(client.messages).toHaveLength(1);
    const records = client.records();
    expect(records.map((r) => r.type)).toEqual(
      ids.flatMap(() => ['trade', 'prev_close', 'circuit_limit', 'week52']),
    );
    ids.forEach((id, n) => {
      const q = model.quote(id);
      if (q === undefined) throw new Error('no quote');
      expect(records.slice(n * 4, n * 4 + 4)).toEqual([
        {
          type: 'trade',
          segment: 14,
          securityId: id,
          ltp: f32(q.ltp),
          volume: q.volume,
          ltt: q.lastTradeTime,
          lut: q.lastUpdateTime,
        },
        { type: 'prev_close', segment: 14, securityId: id, prevClose: f32(q.prevClose) },
        {
          type: 'circuit_limit',
          segment: 14,
          securityId: id,
          upper: f32(q.upperCircuit),
          lower: f32(q.lowerCircuit),
        },
        { type: 'week52', segment: 14, securityId: id, high: f32(q.week52High), low: f32(q.week52Low) },
      ]);
    });
  });

  it('then sends live trades only, batched, with volumes that strictly increase per instrument', async () => {
    const { server, model, client, clock } = await setup({ tradesPerSecond: 10 });
    const ids = withReference(model, INX_EQ_FIRST_ID, 100);
    subscribe(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(400);
    const before = client.messages.length;
    for (let n = 0; n < 5; n++) {
      clock.t += 100;
      server.step();
    }
    // tradesPerSecond 10 at a 100 ms tick: every instrument trades every tick.
    await client.waitPackets(400 + 5 * 100);
    const live = decodeAll(client.messages.slice(before));
    expect(client.messages.length - before).toBe(5);
    const trades = live.filter((r): r is Extract<FeedRecord, { type: 'trade' }> => r.type === 'trade');
    expect(trades).toHaveLength(500);
    const lastVolume = new Map<number, number>();
    for (const t of trades) {
      expect(t.volume).toBeGreaterThan(lastVolume.get(t.securityId) ?? 0);
      lastVolume.set(t.securityId, t.volume);
      expect(t.ltt).toBe(Math.floor(clock.t / 1000));
    }
    expect(live.filter((r) => r.type === 'prev_close')).toHaveLength(0);
    expect(server.sentFor(ids[0] ?? 0).trade).toBe(6);
    expect(server.sentFor(ids[0] ?? 0).distinctTrade).toBe(6);
  });

  it('counts a repeated subscription snapshot as a packet sent, not as another distinct trade', async () => {
    const { server, model, client, clock } = await setup({ tradesPerSecond: 10 });
    const ids = withReference(model, INX_EQ_FIRST_ID, 10);
    subscribe(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(40);
    // The same subscription again: the snapshot repeats the last trade (nothing traded since).
    subscribe(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(80);
    clock.t += 100;
    server.step();
    await client.waitPackets(90);
    const sent = server.sentFor(ids[0] ?? 0);
    expect(sent.trade).toBe(3);
    expect(sent.distinctTrade).toBe(2);
  });

  it('splits a batch into messages of at most maxPacketsPerMessage packets', async () => {
    const { client } = await setup({ maxPacketsPerMessage: 50 });
    subscribe(
      client,
      RequestCode.SubscribeTrade,
      Array.from({ length: 100 }, (_, n) => INX_EQ_FIRST_ID + 200 + n),
    );
    await client.waitPackets(400);
    expect(client.messages.length).toBeGreaterThanOrEqual(8);
    for (const m of client.messages) expect(countPackets(m)).toBeLessThanOrEqual(50);
  });

  it('sends zero-filled Circuit Limit and 52-Week (security id 0) until the model has values', async () => {
    const { server, model, client, clock } = await setup({ tradesPerSecond: 10 });
    const pending = model.universe.find(
      (i) => i.exchangeSegment === 'INX_EQ' && !model.hasReference(model.indexOf(i.securityId)),
    );
    if (pending === undefined) throw new Error('the universe has no instrument without reference values');
    const id = pending.securityId;
    subscribe(client, RequestCode.SubscribeTrade, [id]);
    await client.waitPackets(4);
    expect(client.records()).toEqual([
      expect.objectContaining({ type: 'trade', securityId: id }),
      expect.objectContaining({ type: 'prev_close', securityId: id }),
      { type: 'circuit_limit', segment: 14, securityId: 0, upper: 0, lower: 0 },
      { type: 'week52', segment: 14, securityId: 0, high: 0, low: 0 },
    ]);
    clock.t += 100;
    server.step();
    await client.waitPackets(7);
    const q = model.quote(id);
    const after = client.records().slice(4);
    expect(after).toEqual([
      expect.objectContaining({ type: 'trade', securityId: id }),
      {
        type: 'circuit_limit',
        segment: 14,
        securityId: id,
        upper: f32(q?.upperCircuit ?? 0),
        lower: f32(q?.lowerCircuit ?? 0),
      },
      {
        type: 'week52',
        segment: 14,
        securityId: id,
        high: f32(q?.week52High ?? 0),
        low: f32(q?.week52Low ?? 0),
      },
    ]);
    expect(q?.upperCircuit).toBeGreaterThan(0);
    // Sent once: the next trade comes alone.
    clock.t += 100;
    server.step();
    await client.waitPackets(8);
    expect(
      client
        .records()
        .slice(7)
        .map((r) => r.type),
    ).toEqual(['trade']);
  });
});

describe('subscribe OHLC', () => {
  it('sends an OHLC snapshot, then live OHLC updates that follow the trades', async () => {
    const { server, model, client, clock } = await setup({ tradesPerSecond: 10 });
    const id = INX_EQ_FIRST_ID + 5;
    subscribe(client, RequestCode.SubscribeOhlc, [id]);
    await client.waitPackets(1);
    const q0 = model.quote(id);
    expect(client.records()).toEqual([
      {
        type: 'ohlc',
        segment: 14,
        securityId: id,
        open: f32(q0?.open ?? 0),
        close: f32(q0?.ltp ?? 0),
        high: f32(q0?.high ?? 0),
        low: f32(q0?.low ?? 0),
      },
    ]);
    for (let n = 0; n < 3; n++) {
      clock.t += 100;
      server.step();
    }
    await client.waitPackets(4);
    const q = model.quote(id);
    const records = client.records();
    expect(records.map((r) => r.type)).toEqual(['ohlc', 'ohlc', 'ohlc', 'ohlc']);
    expect(records[3]).toEqual({
      type: 'ohlc',
      segment: 14,
      securityId: id,
      open: f32(q?.open ?? 0),
      close: f32(q?.ltp ?? 0),
      high: f32(q?.high ?? 0),
      low: f32(q?.low ?? 0),
    });
  });

  it('keeps trade and OHLC subscriptions independent, and unsubscribe stops each', async () => {
    const { server, model, client, clock } = await setup({ tradesPerSecond: 10 });
    const id = withReference(model, INX_EQ_FIRST_ID + 6, 1)[0] ?? 0;
    subscribe(client, RequestCode.SubscribeTrade, [id]);
    subscribe(client, RequestCode.SubscribeOhlc, [id]);
    await client.waitPackets(5);
    clock.t += 100;
    server.step();
    await client.waitPackets(7);
    expect(
      client
        .records()
        .slice(5)
        .map((r) => r.type),
    ).toEqual(['trade', 'ohlc']);
    subscribe(client, RequestCode.UnsubscribeTrade, [id]);
    await waitFor(() => server.listConnections()[0]?.tradeSubscriptions === 0, 2_000, 'unsubscribe');
    clock.t += 100;
    server.step();
    await client.waitPackets(8);
    expect(
      client
        .records()
        .slice(7)
        .map((r) => r.type),
    ).toEqual(['ohlc']);
    subscribe(client, RequestCode.UnsubscribeOhlc, [id]);
    await waitFor(() => server.stats().subscribedInstruments === 0, 2_000, 'unsubscribe ohlc');
    clock.t += 100;
    server.step();
    await new Promise((r) => setTimeout(r, 50));
    expect(client.packetCount()).toBe(8);
  });
});

describe('request limits and refusals', () => {
  it('refuses more than 100 instruments in one request with a clear close reason', async () => {
    const { server, client } = await setup();
    const list = refs(Array.from({ length: 101 }, (_, n) => INX_EQ_FIRST_ID + n));
    client.send(JSON.stringify({ requestCode: 15, instrumentCount: 101, instrumentList: list }));
    const closed = await client.waitClosed();
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/100/);
    expect(server.stats().refusedRequests).toBe(1);
  });

  it('allows 5000 subscriptions per connection and refuses the request that would exceed them', async () => {
    const { server, client } = await setup();
    const trade = Array.from({ length: 4_000 }, (_, n) => INX_EQ_FIRST_ID + n);
    const ohlc = Array.from({ length: 1_000 }, (_, n) => INX_EQ_FIRST_ID + n);
    subscribe(client, RequestCode.SubscribeTrade, trade);
    subscribe(client, RequestCode.SubscribeOhlc, ohlc);
    await waitFor(
      () =>
        server.listConnections()[0]?.tradeSubscriptions === 4_000 &&
        server.listConnections()[0]?.ohlcSubscriptions === 1_000,
      10_000,
      '5000 subscriptions',
    );
    expect(client.closed).toBeUndefined();
    // Re-subscribing what is held is not a new subscription.
    subscribe(client, RequestCode.SubscribeTrade, [INX_EQ_FIRST_ID]);
    subscribe(client, RequestCode.SubscribeTrade, [INX_EQ_FIRST_ID + 4_500]);
    const closed = await client.waitClosed(10_000);
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/subscription limit/);
  });

  it.each([
    ['malformed JSON', '{"requestCode": 15,'],
    ['an unknown request code', '{"requestCode": 99}'],
    [
      'a count mismatch',
      JSON.stringify({ requestCode: 15, instrumentCount: 2, instrumentList: refs([INX_EQ_FIRST_ID]) }),
    ],
    [
      'a wrong segment',
      JSON.stringify({
        requestCode: 15,
        instrumentCount: 1,
        instrumentList: [{ exchangeSegment: 'NSE_EQ', securityId: '1' }],
      }),
    ],
  ])('refuses %s and keeps serving other connections', async (_what, text) => {
    const { server, client } = await setup();
    client.send(text);
    const closed = await client.waitClosed();
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/^request refused: /);
    const other = new TestClient(server.connectUrl('1000000002', 'sim-token-1000000002'));
    clients.push(other);
    await other.waitOpen();
    subscribe(other, RequestCode.SubscribeTrade, [INX_EQ_FIRST_ID]);
    await other.waitPackets(4);
  });

  it('refuses binary requests with 1003 and closes on request 12 with 1000', async () => {
    const { server, client } = await setup();
    client.ws.send(Buffer.from([1, 2, 3]));
    expect((await client.waitClosed()).code).toBe(1003);
    const other = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
    clients.push(other);
    await other.waitOpen();
    other.send(buildDisconnectRequest());
    expect((await other.waitClosed()).code).toBe(1000);
  });

  it('ignores ids outside the INX_EQ universe', async () => {
    const { server, client } = await setup();
    subscribe(client, RequestCode.SubscribeTrade, [13, 999_999, INX_EQ_FIRST_ID]);
    await client.waitPackets(4);
    expect(server.stats().unknownInstruments).toBe(2);
    expect(server.listConnections()[0]?.tradeSubscriptions).toBe(1);
  });
});

describe('fresh trades (a service that streams the moment a subscribe request lands)', () => {
  it('trades each just-subscribed instrument right after its snapshot, then at the fresh rate for forMs', async () => {
    const { model, server, client, clock } = await setup({
      tradesPerSecond: 0,
      freshTrades: { perSecond: 200, forMs: 500 },
    });
    const ids = withReference(model, INX_EQ_FIRST_ID, 3);
    subscribe(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(ids.length * 5);
    // The answer to the request: each instrument's snapshot, then at once its first fresh trade.
    expect(client.records().map((r) => r.type)).toEqual(
      ids.flatMap(() => ['trade', 'prev_close', 'circuit_limit', 'week52', 'trade']),
    );
    const volumesOf = (id: number): number[] =>
      client
        .records()
        .filter((r) => r.type === 'trade' && r.securityId === id)
        .map((r) => (r.type === 'trade' ? r.volume : 0));
    // 100 ms at 200 a second: 20 more trades each, in order, while fresh.
    clock.t += 100;
    server.step(100);
    await client.waitPackets(ids.length * 25);
    for (const id of ids) {
      const volumes = volumesOf(id);
      expect(volumes).toHaveLength(22);
      expect([...volumes].sort((a, b) => a - b)).toEqual(volumes);
    }
    // Past forMs the instruments are no longer fresh: with no live rate, nothing more.
    clock.t += 500;
    server.step(100);
    clock.t += 100;
    server.step(100);
    // Both steps' output (none) has had a round trip's time to arrive: a later message would be a bug.
    await client.waitPackets(ids.length * 25);
    expect(client.packetCount()).toBe(ids.length * 25);
    expect(server.stats().messages).toBe(client.messages.length);
  });

  it('rejects a fresh-trade option without a rate or with an unknown key', () => {
    const model = new MarketModel({ seed: 1, instruments: 100 });
    expect(() => new FeedServer({ model, freshTrades: {} as never })).toThrow(
      'FeedServer.freshTrades: "perSecond" is required',
    );
    expect(() => new FeedServer({ model, freshTrades: { perSecond: 1, burst: 2 } as never })).toThrow(
      /burst/,
    );
  });
});
