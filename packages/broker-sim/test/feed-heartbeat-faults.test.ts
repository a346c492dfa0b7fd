import { buildSubscriptionRequests, RequestCode } from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeedServer, type FeedServerOptions, startFeedServer } from '../src/feed/index.js';
import { INX_EQ_FIRST_ID, MarketModel } from '../src/market/index.js';
import { TestClient, upgradeOutcome } from './feed-test-client.js';

const servers: FeedServer[] = [];
const clients: TestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(
  extra: Partial<FeedServerOptions> = {},
  clientOptions: { autoPong?: boolean } = {},
): Promise<{ server: FeedServer; client: TestClient; id: number }> {
  const model = new MarketModel({ seed: 2, instruments: 100 });
  const server = await startFeedServer({ model, port: 0, ticks: 'manual', ...extra });
  servers.push(server);
  const client = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'), clientOptions);
  clients.push(client);
  await client.waitOpen();
  const id = server.listConnections()[0]?.id ?? -1;
  return { server, client, id };
}

describe('heartbeat', () => {
  it('pings every pingIntervalMs and keeps a connection that answers', async () => {
    const { server, client } = await setup({ pingIntervalMs: 40 });
    await waitFor(() => client.pings >= 6, 5_000, 'six pings');
    expect(client.closed).toBeUndefined();
    expect(server.listConnections()[0]?.missedPings).toBe(0);
    expect(server.stats().pingTimeouts).toBe(0);
  });

  it('closes a connection after 4 consecutive unanswered pings', async () => {
    const { server, client } = await setup({ pingIntervalMs: 40 }, { autoPong: false });
    const closed = await client.waitClosed();
    // Terminated without a close frame: the peer was silent, no handshake is attempted.
    expect(closed.code).toBe(1006);
    expect(client.pings).toBe(4);
    expect(server.stats().pingTimeouts).toBe(1);
    expect(server.listConnections()).toHaveLength(0);
  });

  it('honours a configured number of missed pings', async () => {
    const { client } = await setup({ pingIntervalMs: 40, maxMissedPings: 2 }, { autoPong: false });
    await client.waitClosed();
    expect(client.pings).toBe(2);
  });
});

describe('fault injection', () => {
  it('abort: the client sees an abnormal close (1006)', async () => {
    const { server, client, id } = await setup();
    server.faults.abort(id);
    expect((await client.waitClosed()).code).toBe(1006);
  });

  it('ignorePings: the server stops answering client pings, data still flows', async () => {
    const { server, client, id } = await setup();
    let pongs = 0;
    client.ws.on('pong', () => {
      pongs++;
    });
    client.ws.ping();
    await waitFor(() => pongs === 1, 2_000, 'first pong');
    server.faults.ignorePings(id);
    client.ws.ping();
    client.ws.ping();
    for (const text of buildSubscriptionRequests(RequestCode.SubscribeTrade, [
      { exchangeSegment: 'INX_EQ', securityId: String(INX_EQ_FIRST_ID) },
    ])) {
      client.send(text);
    }
    await client.waitPackets(4);
    await new Promise((r) => setTimeout(r, 50));
    expect(pongs).toBe(1);
    server.faults.ignorePings(id, false);
    client.ws.ping();
    await waitFor(() => pongs === 2, 2_000, 'pong after the fault is lifted');
  });

  it('stall: nothing is sent, not even pings, while the connection stays up', async () => {
    const { server, client, id } = await setup({ pingIntervalMs: 30, tradesPerSecond: 10 });
    for (const text of buildSubscriptionRequests(RequestCode.SubscribeTrade, [
      { exchangeSegment: 'INX_EQ', securityId: String(INX_EQ_FIRST_ID + 1) },
    ])) {
      client.send(text);
    }
    await client.waitPackets(4);
    server.faults.stall(id);
    // What the server sent before the stall may still be on its way: count from when it has landed
    // (the counts held still for two looks in a row; bounded, a deadline only).
    let last = '';
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 40));
      const now = `${client.pings}/${client.packetCount()}`;
      if (now === last) break;
      last = now;
    }
    const pings = client.pings;
    const packets = client.packetCount();
    for (let n = 0; n < 5; n++) server.step();
    await new Promise((r) => setTimeout(r, 150));
    expect(client.pings).toBe(pings);
    expect(client.packetCount()).toBe(packets);
    expect(client.closed).toBeUndefined();
    server.faults.stall(id, false);
    server.step();
    await client.waitPackets(packets + 1);
  });

  it('sendTruncatedFrame: a message whose packet runs past its end', async () => {
    const { server, client, id } = await setup();
    server.faults.sendTruncatedFrame(id);
    await waitFor(() => client.messages.length === 1, 2_000, 'truncated frame');
    const m = client.messages[0] as Uint8Array;
    expect(m.length).toBe(20);
    expect(m[9]).toBe(27);
    expect(m[10]).toBe(1);
    expect(client.closed).toBeUndefined();
  });

  it('sendGarbageFrame: a message of arbitrary bytes, deterministic per seed and connection', async () => {
    const { server, client, id } = await setup();
    server.faults.sendGarbageFrame(id, 100);
    server.faults.sendGarbageFrame(id, 100);
    await waitFor(() => client.messages.length === 2, 2_000, 'garbage frames');
    expect(client.messages[0]).toHaveLength(100);
    expect(client.messages[0]).toEqual(client.messages[1]);
    expect(new Set(client.messages[0]).size).toBeGreaterThan(20);
  });

  it.each([805, 806, 807, 808, 809] as const)(
    'sendErrorAndClose(%i): an Error packet alone, then close',
    async (code) => {
      const { server, client, id } = await setup({ tradesPerSecond: 10 });
      for (const text of buildSubscriptionRequests(RequestCode.SubscribeTrade, [
        { exchangeSegment: 'INX_EQ', securityId: String(INX_EQ_FIRST_ID + 2) },
      ])) {
        client.send(text);
      }
      await client.waitPackets(4);
      server.faults.sendErrorAndClose(id, code);
      await client.waitClosed();
      const last = client.messages.at(-1) as Uint8Array;
      expect(last).toHaveLength(13);
      expect(client.records().at(-1)).toEqual({ type: 'error', segment: 0, securityId: 0, code });
      expect(server.listConnections()).toHaveLength(0);
    },
  );

  it('refuseUpgrades: handshakes fail (EOF or 503) for a while, open connections stay', async () => {
    const { server, client } = await setup();
    const url = server.connectUrl('1000000002', 'sim-token-1000000002');
    server.faults.refuseUpgrades(300);
    expect(await upgradeOutcome(url)).toBe('eof');
    server.faults.refuseUpgrades(300, 'http-503');
    expect(await upgradeOutcome(url)).toBe(503);
    expect(client.closed).toBeUndefined();
    await new Promise((r) => setTimeout(r, 350));
    expect(await upgradeOutcome(url)).toBe('open');
    expect(server.stats().upgrades.refusedByFault).toBe(2);
  });

  it('rejects faults for unknown connections with a coded error', async () => {
    const { server } = await setup();
    expect(() => server.faults.abort(9_999)).toThrow(expect.objectContaining({ code: 'UNKNOWN_CONNECTION' }));
  });
});
