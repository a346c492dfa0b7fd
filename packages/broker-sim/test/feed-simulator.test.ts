import { buildSubscriptionRequests, RequestCode } from '@feedpipe/codec';
import { waitFor } from '@feedpipe/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, FeedServer, INX_EQ_FIRST_ID, MarketModel, type Simulator } from '../src/index.js';
import { TestClient } from './feed-test-client.js';

const sims: Simulator[] = [];
const clients: TestClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sims.splice(0)) await s.close();
});

describe('createSimulator', () => {
  it('starts the model and the feed, with the REST hook authenticating the feed', async () => {
    let restClosed = false;
    let hookSawModel: MarketModel | undefined;
    const sim = await createSimulator({
      seed: 9,
      instruments: 200,
      feed: { port: 0, ticks: 'manual' },
      rest: ({ model }) => {
        hookSawModel = model;
        return {
          baseUrl: 'http://127.0.0.1:1',
          authenticateFeed: (clientId, token) =>
            clientId === 'rest-client' && token === 'issued-by-rest'
              ? { ok: true }
              : { ok: false, code: 809 },
          close: async () => {
            restClosed = true;
          },
        };
      },
    });
    sims.push(sim);
    expect(hookSawModel).toBe(sim.model);
    expect(sim.model.seed).toBe(9);
    const good = new TestClient(sim.feed.connectUrl('rest-client', 'issued-by-rest'));
    const defaultAccount = new TestClient(sim.feed.connectUrl('1000000001', 'sim-token-1000000001'));
    clients.push(good, defaultAccount);
    await good.waitOpen();
    await defaultAccount.waitClosed();
    expect(defaultAccount.records()).toEqual([{ type: 'error', segment: 0, securityId: 0, code: 809 }]);
    await sim.close();
    sims.pop();
    expect(restClosed).toBe(true);
  });

  it('uses the default test credentials without a REST hook', async () => {
    const sim = await createSimulator({ instruments: 100, feed: { port: 0, ticks: 'manual' } });
    sims.push(sim);
    expect(sim.rest).toBeUndefined();
    const c = new TestClient(sim.feed.connectUrl('1000000001', 'sim-token-1000000001'));
    clients.push(c);
    await c.waitOpen();
  });

  it('closes the REST server again when the feed cannot start, and rejects unknown options', async () => {
    let restClosed = false;
    await expect(
      createSimulator({
        instruments: 10,
        feed: { port: 0, pingIntervalMs: -5 },
        rest: () => ({
          baseUrl: 'http://127.0.0.1:1',
          close: async () => {
            restClosed = true;
          },
        }),
      }),
    ).rejects.toThrow(/pingIntervalMs/);
    expect(restClosed).toBe(true);
    await expect(createSimulator({ seeds: 1 } as never)).rejects.toThrow(
      'createSimulator: unknown option "seeds" (allowed: seed, instruments, now, sessions, feed, rest)',
    );
  });
});

describe('feed server options', () => {
  const model = new MarketModel({ seed: 1, instruments: 10 });

  it('rejects unknown keys and bad values by name', () => {
    expect(() => new FeedServer({ model, prot: 1 } as never)).toThrow(
      'FeedServer: unknown option "prot" (allowed: model, host, port, authenticate, credentials, pingIntervalMs, maxMissedPings, maxConnectionsPerClient, maxConnections, maxSubscriptionsPerConnection, ipBlock, ticks, tickIntervalMs, tradesPerSecond, maxPacketsPerMessage, maxBufferedBytes, load, freshTrades, tokenCheckIntervalMs)',
    );
    expect(() => new FeedServer({ model, ipBlock: { window: 1 } as never })).toThrow(
      'unknown option "ipBlock.window" (allowed: maxInvalidAttempts, windowMs, blockMs)',
    );
    expect(() => new FeedServer({ model, freshTrades: {} as never })).toThrow(
      'FeedServer.freshTrades: "perSecond" is required',
    );
    expect(() => new FeedServer({ model, maxPacketsPerMessage: 2 })).toThrow(/maxPacketsPerMessage/);
    expect(() => new FeedServer({ model, load: { pps: 5 } as never })).toThrow(
      'FeedServer.load: unknown option "pps" (allowed: packetsPerSecond, tickIntervalMs)',
    );
    expect(() => new FeedServer({ model, ticks: 'sometimes' as never })).toThrow(/ticks/);
    expect(
      () =>
        new FeedServer({
          model,
          authenticate: () => ({ ok: true }),
          credentials: { clients: [], partners: [] },
        }),
    ).toThrow(/not both/);
    expect(
      () => new FeedServer({ model, credentials: { clients: [{ clientId: 'x', token: 'y' }] } as never }),
    ).toThrow(/unknown key "token"/);
  });

  it('switches from live mode to load mode at run time', async () => {
    const server = await new FeedServer({ model, port: 0, tradesPerSecond: 0 }).start();
    const c = new TestClient(server.connectUrl('1000000001', 'sim-token-1000000001'));
    clients.push(c);
    try {
      await c.waitOpen();
      for (const text of buildSubscriptionRequests(RequestCode.SubscribeTrade, [
        { exchangeSegment: 'INX_EQ', securityId: String(INX_EQ_FIRST_ID) },
      ])) {
        c.send(text);
      }
      await c.waitPackets(4);
      await new Promise((r) => setTimeout(r, 250));
      // Live mode at zero trades per second: nothing beyond the snapshot.
      expect(server.stats().generatedTrades).toBe(0);
      server.setLoad({ packetsPerSecond: 20_000 });
      await waitFor(() => c.packetCount() > 500, 5_000, 'load traffic');
      server.setLoad(undefined);
    } finally {
      await server.close();
    }
  });
});
