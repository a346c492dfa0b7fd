import { FEED_ERROR_CODES } from '@feedpipe/codec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FeedServer, startFeedServer } from '../src/feed/index.js';
import { MarketModel } from '../src/market/index.js';
import { TestClient, upgradeOutcome } from './feed-test-client.js';

let server: FeedServer;
const clients: TestClient[] = [];

function client(url: string): TestClient {
  const c = new TestClient(url);
  clients.push(c);
  return c;
}

beforeEach(async () => {
  const model = new MarketModel({ seed: 1, instruments: 100 });
  server = await startFeedServer({ model, port: 0, ticks: 'manual' });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

describe('feed authentication', () => {
  it('keeps a connection with valid credentials open', async () => {
    const c = client(server.connectUrl('1000000001', 'sim-token-1000000001'));
    await c.waitOpen();
    await new Promise((r) => setTimeout(r, 100));
    expect(c.closed).toBeUndefined();
    expect(c.messages).toHaveLength(0);
    expect(server.listConnections().map((i) => i.clientId)).toEqual(['1000000001']);
  });

  it.each([
    ['unknown client id', '9999999999', 'whatever', 2, 808],
    ['wrong token', '1000000001', 'sim-token-wrong', 2, 809],
    ['expired token', '1000000807', 'sim-token-1000000807', 2, 807],
    ['no data plan', '1000000806', 'sim-token-1000000806', 2, 806],
    ['wrong partner secret', 'partner-0001', 'nope', 3, 808],
  ] as const)(
    'answers %s with an Error packet alone, then closes',
    async (_what, id, token, authType, code) => {
      const c = client(server.connectUrl(id, token, authType));
      const closed = await c.waitClosed();
      expect(closed.code).toBe(1008);
      expect(c.messages).toHaveLength(1);
      expect(c.messages[0]).toHaveLength(13);
      expect(c.records()).toEqual([{ type: 'error', segment: 0, securityId: 0, code }]);
      expect(FEED_ERROR_CODES[code]).toBeDefined();
      expect(server.stats().authFailures).toBe(1);
    },
  );

  it('accepts partner credentials (authType 3) and a partner client (authType 1)', async () => {
    const partner = client(server.connectUrl('partner-0001', 'sim-partner-secret-0001', 3));
    const viaPartner = client(server.connectUrl('1000000002', 'sim-token-1000000002', 1));
    await partner.waitOpen();
    await viaPartner.waitOpen();
    await new Promise((r) => setTimeout(r, 50));
    expect(partner.closed).toBeUndefined();
    expect(viaPartner.closed).toBeUndefined();
  });

  it('uses an injected authenticate function', async () => {
    await server.close();
    const seen: string[] = [];
    server = await startFeedServer({
      model: new MarketModel({ seed: 1, instruments: 10 }),
      port: 0,
      ticks: 'manual',
      authenticate: (clientId, _token, authType) => {
        seen.push(`${clientId}/${authType}`);
        return clientId === 'rest-issued' ? { ok: true } : { ok: false, code: 809 };
      },
    });
    const good = client(server.connectUrl('rest-issued', 'jwt-ish', 2));
    const bad = client(server.connectUrl('1000000001', 'sim-token-1000000001', 2));
    await good.waitOpen();
    expect((await bad.waitClosed()).code).toBe(1008);
    expect(bad.records()).toEqual([{ type: 'error', segment: 0, securityId: 0, code: 809 }]);
    expect(seen.sort()).toEqual(['1000000001/2', 'rest-issued/2']);
  });
});

describe('feed connection parameters', () => {
  it.each([
    ['no parameters', ''],
    ['missing clientId', '?token=t&authType=2&version=2'],
    ['missing token', '?clientId=1000000001&authType=2&version=2'],
    ['authType out of range', '?clientId=1000000001&token=t&authType=4&version=2'],
    ['missing version', '?clientId=1000000001&token=t&authType=2'],
    ['wrong version', '?clientId=1000000001&token=t&authType=2&version=1'],
  ])('fails the upgrade with HTTP 400 on %s', async (_what, query) => {
    expect(await upgradeOutcome(`${server.url}${query}`)).toBe(400);
    expect(server.stats().upgrades.badRequest).toBe(1);
  });
});

describe('feed connection limits', () => {
  it('evicts the oldest of six connections of one client id with error 805', async () => {
    const url = server.connectUrl('1000000001', 'sim-token-1000000001');
    const first = client(url);
    await first.waitOpen();
    const others: TestClient[] = [];
    for (let n = 0; n < 4; n++) {
      const c = client(url);
      await c.waitOpen();
      others.push(c);
    }
    // Another client id does not count towards this client's limit.
    const stranger = client(server.connectUrl('1000000002', 'sim-token-1000000002'));
    await stranger.waitOpen();
    expect(server.listConnections()).toHaveLength(6);
    expect(first.closed).toBeUndefined();
    const sixth = client(url);
    await sixth.waitOpen();
    const closed = await first.waitClosed();
    expect(closed.code).toBe(1008);
    expect(first.messages).toHaveLength(1);
    expect(first.records()).toEqual([{ type: 'error', segment: 0, securityId: 0, code: 805 }]);
    await new Promise((r) => setTimeout(r, 50));
    for (const c of [...others, sixth, stranger]) expect(c.closed).toBeUndefined();
    expect(server.listConnections().filter((i) => i.clientId === '1000000001')).toHaveLength(5);
    expect(server.stats().evictions).toBe(1);
  });

  it('blocks an address after more than 10 invalid attempts, for the configured time', async () => {
    await server.close();
    server = await startFeedServer({
      model: new MarketModel({ seed: 1, instruments: 10 }),
      port: 0,
      ticks: 'manual',
      ipBlock: { blockMs: 400 },
    });
    const good = server.connectUrl('1000000001', 'sim-token-1000000001');
    for (let n = 0; n < 5; n++) expect(await upgradeOutcome(`${server.url}?version=2`)).toBe(400);
    for (let n = 0; n < 5; n++) {
      const c = client(server.connectUrl('1000000001', 'bad-token'));
      await c.waitClosed();
    }
    // Ten invalid attempts are tolerated.
    expect(await upgradeOutcome(good)).toBe('open');
    for (let n = 0; n < 10; n++) expect(await upgradeOutcome(`${server.url}?version=2`)).toBe(400);
    expect(await upgradeOutcome(`${server.url}?version=2`)).toBe(400);
    // The eleventh blocked the address: even valid credentials are refused now.
    expect(await upgradeOutcome(good)).toBe(429);
    expect(server.stats().ipBlocks).toBe(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await upgradeOutcome(good)).toBe('open');
  });
});
