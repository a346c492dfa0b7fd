/**
 * REST 401 DH-901 (the token expired or was replaced): the transport asks its TokenSource for a
 * fresh token once and sends the call once more; a source that cannot renew leaves the refusal (or
 * its TOKEN_EXPIRED) to the caller. Against a real loopback HTTP server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerApiError, BrokerClient, isBrokerApiError, type TokenSource } from '../src/index.js';
import { sendJson, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ORDER = {
  transactionType: 'BUY',
  exchangeSegment: 'NSE_EQ',
  productType: 'INTRADAY',
  orderType: 'LIMIT',
  validity: 'DAY',
  securityId: '1333',
  quantity: 5,
  price: 100,
} as const;

/** Accepts only the tokens in `valid`; everything else gets the service's 401 DH-901. */
async function serveTokens(valid: Set<string>, code = 'DH-901'): Promise<TestServer> {
  return startServer((req, res) => {
    if (!valid.has(req.headers['access-token'] ?? '')) {
      sendJson(res, 401, {
        errorType: 'Invalid_Authentication',
        errorCode: code,
        errorMessage: 'Access token expired',
      });
    } else if (req.url.pathname === '/v2/orders')
      sendJson(res, 200, { orderId: '1', orderStatus: 'TRANSIT' });
    else sendJson(res, 200, { svcClientId: '1000000001', availabelBalance: 5 });
  });
}

/** A source holding `current`; tokenRejected answers `next` (counting the calls). */
function rotatingSource(current: string, next: string | BrokerApiError) {
  const state = { current, rejections: [] as string[] };
  const source: TokenSource = {
    getToken: async () => state.current,
    tokenRejected: async (rejected) => {
      state.rejections.push(rejected);
      if (next instanceof BrokerApiError) throw next;
      state.current = next;
      return next;
    },
  };
  return { source, state };
}

function client(url: string, accessToken: string | TokenSource): BrokerClient {
  return new BrokerClient({
    baseUrl: url,
    clientId: '1000000001',
    accessToken,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    timeoutMs: 5_000,
  });
}

async function failure(promise: Promise<unknown>): Promise<BrokerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBrokerApiError(error)) throw new Error(`expected a BrokerApiError, got ${String(error)}`);
  return error;
}

describe('REST 401 DH-901 -> one fresh token, one retry', () => {
  it('retries a read once with the fresh token', async () => {
    server = await serveTokens(new Set(['fresh-token']));
    const { source, state } = rotatingSource('old-token', 'fresh-token');
    const funds = await client(server.url, source).funds.fundLimit();
    expect(funds.availabelBalance).toBe(5);
    expect(state.rejections).toEqual(['old-token']);
    expect(server.requests.map((r) => r.headers['access-token'])).toEqual(['old-token', 'fresh-token']);
  });

  it('retries an order placement too: a 401 means the service did nothing', async () => {
    server = await serveTokens(new Set(['fresh-token']));
    const { source } = rotatingSource('old-token', 'fresh-token');
    const placed = await client(server.url, source).orders.place({ ...ORDER });
    expect(placed.orderId).toBe('1');
    expect(server.requests.filter((r) => r.url.pathname === '/v2/orders')).toHaveLength(2);
  });

  it('retries only once: a second refusal is the caller’s error', async () => {
    server = await serveTokens(new Set());
    const { source, state } = rotatingSource('old-token', 'also-refused');
    const error = await failure(client(server.url, source).funds.fundLimit());
    expect(error.status).toBe(401);
    expect(error.errorCode).toBe('DH-901');
    expect(state.rejections).toEqual(['old-token']);
    expect(server.requests).toHaveLength(2);
    expect(error.message).not.toContain('old-token');
    expect(error.message).not.toContain('also-refused');
  });

  it('a fixed token (no renewal path) gets the 401 as before, sent once', async () => {
    server = await serveTokens(new Set());
    const error = await failure(client(server.url, 'fixed-token').funds.fundLimit());
    expect(error.code).toBe('HTTP_ERROR');
    expect(error.status).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  it('a source that cannot renew answers TOKEN_EXPIRED, and nothing is sent again', async () => {
    server = await serveTokens(new Set());
    const expired = new BrokerApiError({
      code: 'TOKEN_EXPIRED',
      message: 'no renewal path: set a TOTP secret',
    });
    const { source } = rotatingSource('old-token', expired);
    const error = await failure(client(server.url, source).funds.fundLimit());
    expect(error.code).toBe('TOKEN_EXPIRED');
    expect(error.message).toContain('no renewal path');
    expect(server.requests).toHaveLength(1);
  });

  it('other 401 codes are not token refusals', async () => {
    server = await serveTokens(new Set(), 'DH-902');
    const { source, state } = rotatingSource('old-token', 'fresh-token');
    const error = await failure(client(server.url, source).funds.fundLimit());
    expect(error.errorCode).toBe('DH-902');
    expect(state.rejections).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});
