import {
  buildSubscriptionRequests,
  RequestCode,
  type SubscriptionRequestCode,
  type TradeRecord,
} from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeedServer, type FeedServerOptions, startFeedServer } from '../src/feed/index.js';
import { INX_EQ_FIRST_ID, MarketModel } from '../src/market/index.js';
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

async function startLoad(
  extra: Partial<FeedServerOptions>,
): Promise<{ server: FeedServer; model: MarketModel }> {
  const model = new MarketModel({ seed: 4, instruments: 2_000 });
  const server = await startFeedServer({ model, port: 0, ...extra });
  servers.push(server);
  return { server, model };
}

/** `count` INX_EQ ids from `from` on that have reference values (exactly 4 snapshot packets each). */
function withReference(model: MarketModel, from: number, count: number): number[] {
  const ids: number[] = [];
  for (let id = from; ids.length < count; id++) if (model.hasReference(model.indexOf(id))) ids.push(id);
  return ids;
}

async function connect(server: FeedServer): Promise<TestClient> {
  const client = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
  clients.push(client);
  await client.waitOpen();
  return client;
}

/**
 * Trades per instrument; with `gapFree`, checks that each instrument's volume goes up by exactly one
 * lot per trade (load mode's sequence numbering).
 */
function tradeSequences(client: TestClient, gapFree = true): Map<number, number> {
  const counts = new Map<number, number>();
  const lastVolume = new Map<number, number>();
  for (const r of client.records()) {
    if (r.type !== 'trade') continue;
    const t = r as TradeRecord;
    const previous = lastVolume.get(t.securityId);
    // The first trade of each instrument is the snapshot; from there on each live trade adds one lot.
    if (gapFree && previous !== undefined && t.volume !== previous + 1) {
      throw new Error(`instrument ${t.securityId}: volume ${previous} then ${t.volume} (gap or duplicate)`);
    }
    lastVolume.set(t.securityId, t.volume);
    counts.set(t.securityId, (counts.get(t.securityId) ?? 0) + 1);
  }
  return counts;
}

describe('load mode', () => {
  it('sends at a target rate with per-instrument counters that match what the client received', async () => {
    const { server } = await startLoad({ load: { packetsPerSecond: 200_000, tickIntervalMs: 2 } });
    const client = await connect(server);
    const ids = Array.from({ length: 500 }, (_, n) => INX_EQ_FIRST_ID + n);
    send(client, RequestCode.SubscribeTrade, ids);
    send(client, RequestCode.SubscribeOhlc, ids.slice(0, 50));
    await waitFor(() => server.stats().generatedTrades > 40_000, 20_000, 'load traffic');
    server.pause();
    const stats = server.stats();
    await waitFor(() => client.packetCount() === stats.packets, 10_000, 'client caught up');
    // Batched: far fewer messages than packets, none above the per-message cap.
    expect(stats.messages).toBeLessThan(stats.packets / 20);
    const received = tradeSequences(client);
    for (const id of ids) expect(received.get(id) ?? 0).toBe(server.sentFor(id).trade);
    const ohlc = client.records().filter((r) => r.type === 'ohlc').length;
    expect(ohlc).toBe(ids.slice(0, 50).reduce((sum, id) => sum + server.sentFor(id).ohlc, 0));
    expect(stats.skipped).toBe(0);
  });

  it('bounds memory for a client that stops reading and accounts for every packet', async () => {
    const maxBufferedBytes = 64 * 1024;
    const { server, model } = await startLoad({
      load: { packetsPerSecond: 400_000, tickIntervalMs: 2 },
      maxBufferedBytes,
    });
    const fast = await connect(server);
    const slow = await connect(server);
    const ids = withReference(model, INX_EQ_FIRST_ID + 100, 200);
    send(fast, RequestCode.SubscribeTrade, ids);
    send(slow, RequestCode.SubscribeTrade, ids);
    await waitFor(
      () => server.listConnections().every((c) => c.tradeSubscriptions === 200),
      5_000,
      'subscriptions',
    );
    slow.ws.pause();
    let maxSeen = 0;
    await waitFor(
      () => {
        const info = server.listConnections().find((c) => c.counters.skipped > 0);
        for (const c of server.listConnections()) maxSeen = Math.max(maxSeen, c.bufferedBytes);
        return info !== undefined && info.counters.skipped > 20_000;
      },
      20_000,
      'the slow client to fall behind',
    );
    // One tick may overshoot the bound, never more: at 400 000/s a 50 ms budget is 20 000 packets.
    expect(maxSeen).toBeLessThan(maxBufferedBytes + 20_001 * 27 + 4096);
    server.pause();
    slow.ws.resume();
    const [fastInfo, slowInfo] = server.listConnections().sort((a, b) => a.id - b.id);
    if (fastInfo === undefined || slowInfo === undefined) throw new Error('connections missing');
    await waitFor(
      () =>
        fast.packetCount() === fastInfo.counters.packets && slow.packetCount() === slowInfo.counters.packets,
      10_000,
      'both clients caught up',
    );
    // The fast client got every trade the model generated for the feed; the slow one missed exactly
    // the ones counted as skipped.
    const generated = server.stats().generatedTrades;
    expect(fastInfo.counters.packets).toBe(200 * 4 + generated);
    expect(slowInfo.counters.packets + slowInfo.counters.skipped).toBe(200 * 4 + generated);
    const fastTrades = tradeSequences(fast);
    const slowTrades = tradeSequences(slow, false);
    for (const id of ids) {
      expect((fastTrades.get(id) ?? 0) + (slowTrades.get(id) ?? 0)).toBe(server.sentFor(id).trade);
    }
  });

  it('generates nothing for a lone subscriber that cannot take data (no gaps for it later)', async () => {
    const { server } = await startLoad({
      load: { packetsPerSecond: 400_000, tickIntervalMs: 2 },
      maxBufferedBytes: 32 * 1024,
    });
    const client = await connect(server);
    const ids = Array.from({ length: 100 }, (_, n) => INX_EQ_FIRST_ID + 500 + n);
    send(client, RequestCode.SubscribeTrade, ids);
    await client.waitPackets(400);
    client.ws.pause();
    await waitFor(() => server.stats().deferred > 1_000, 20_000, 'deferred generation');
    client.ws.resume();
    await waitFor(() => server.stats().generatedTrades > 60_000, 20_000, 'traffic after resuming');
    server.pause();
    const stats = server.stats();
    await waitFor(() => client.packetCount() === stats.packets, 10_000, 'client caught up');
    expect(stats.skipped).toBe(0);
    const received = tradeSequences(client);
    for (const id of ids) expect(received.get(id)).toBe(server.sentFor(id).trade);
  });
});
