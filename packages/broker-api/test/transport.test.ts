import { afterEach, describe, expect, it } from 'vitest';
import { BrokerApiError, BrokerClient, isBrokerApiError } from '../src/index.js';
import { sendJson, startServer, type TestServer } from './helpers.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMDAwMDAwMDAxIn0.c2VjcmV0LXNpZ25hdHVyZQ';
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

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(url: string, extra: Record<string, unknown> = {}): BrokerClient {
  return new BrokerClient({
    baseUrl: url,
    authUrl: `${url}/auth`,
    clientId: '1000000001',
    accessToken: TOKEN,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    timeoutMs: 2000,
    ...extra,
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

describe('transport', () => {
  it('sends access-token always, client-id on snapshot calls, JSON bodies under /v2', async () => {
    server = await startServer((req, res) => {
      if (req.url.pathname === '/v2/fundlimit')
        sendJson(res, 200, { svcClientId: '1000000001', availabelBalance: 5 });
      else sendJson(res, 200, { data: { NSE_EQ: { '11536': { last_price: 10 } } }, status: 'success' });
    });
    const c = client(server.url);
    const funds = await c.funds.fundLimit();
    expect(funds.availabelBalance).toBe(5);
    const ltp = await c.marketData.ltp({ NSE_EQ: [11536] });
    expect(ltp.NSE_EQ?.['11536']?.last_price).toBe(10);
    const [first, second] = server.requests;
    expect(first?.headers['access-token']).toBe(TOKEN);
    expect(first?.headers['client-id']).toBeUndefined();
    expect(second?.url.pathname).toBe('/v2/marketfeed/ltp');
    expect(second?.headers['client-id']).toBe('1000000001');
    expect(second?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(second?.body ?? '')).toEqual({ NSE_EQ: [11536] });
  });

  it('sends form bodies when configured', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { message: 'ok', status: 'SUCCESS' }));
    await client(server.url, { bodyEncoding: 'form' }).account.setIp({ ip: '127.0.0.1', ipFlag: 'PRIMARY' });
    const req = server.requests[0];
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(req?.body))).toEqual({
      svcClientId: '1000000001',
      ip: '127.0.0.1',
      ipFlag: 'PRIMARY',
    });
  });

  it('keeps the service error shape and the HTTP status', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 400, {
        errorType: 'Input_Exception',
        errorCode: 'DH-905',
        errorMessage: 'Missing field quantity',
      }),
    );
    const error = await failure(client(server.url).orders.list());
    expect(error).toMatchObject({
      code: 'HTTP_ERROR',
      status: 400,
      errorType: 'Input_Exception',
      errorCode: 'DH-905',
      errorMessage: 'Missing field quantity',
      retryable: false,
      route: 'GET /orders',
    });
    expect(error.message).toContain('DH-905');
    expect(server.requests).toHaveLength(1);
  });

  it('never puts the token, PIN, TOTP or secrets in error messages, even when the service echoes them', async () => {
    server = await startServer((req, res) => {
      const echo = `${req.headers['access-token'] ?? ''} ${req.url.search} ${req.headers.app_secret ?? ''}`;
      sendJson(res, 401, {
        errorType: 'Invalid_Authentication',
        errorCode: 'DH-901',
        errorMessage: `bad ${echo}`,
      });
    });
    const c = client(server.url);
    const errors = [
      await failure(c.account.profile()),
      await failure(c.auth.generateToken({ svcClientId: '1000000001', pin: '123456', totp: '654321' })),
      await failure(c.auth.generateConsent('sim-app-1', 'super-secret-app-key', '1000000001')),
      await failure(c.auth.renewToken(TOKEN, '1000000001')),
    ];
    for (const error of errors) {
      const text = `${error.message} ${error.errorMessage ?? ''} ${JSON.stringify(error)}`;
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('123456');
      expect(text).not.toContain('654321');
      expect(text).not.toContain('super-secret-app-key');
      expect(error.status).toBe(401);
    }
  });

  it('times out with TIMEOUT and retries idempotent reads', async () => {
    server = await startServer(() => {
      // Never answers.
    });
    const error = await failure(client(server.url, { timeoutMs: 100, maxRetries: 1 }).orders.list());
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  it('backs off and retries on 429 / DH-904, then succeeds', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      n++;
      if (n <= 2) {
        sendJson(res, 429, {
          errorType: 'Rate_Limit',
          errorCode: 'DH-904',
          errorMessage: 'Too many requests',
        });
      } else sendJson(res, 200, { orderId: '1', orderStatus: 'TRANSIT' });
    });
    // Order placement is retried on 429: the service refused it, so nothing was placed.
    const ack = await client(server.url).orders.place(ORDER);
    expect(ack).toEqual({ orderId: '1', orderStatus: 'TRANSIT' });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up with RATE_LIMITED after maxRetries', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 429, { errorType: 'Rate_Limit', errorCode: 'DH-904', errorMessage: 'Too many requests' }),
    );
    const error = await failure(client(server.url, { maxRetries: 2 }).funds.fundLimit());
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, errorCode: 'DH-904', retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it('never retries order placement after a lost answer, and says how to find the order', async () => {
    server = await startServer((_req, _res, raw) => raw.socket.destroy());
    const error = await failure(client(server.url).orders.place({ ...ORDER, correlationId: 'my-order-7' }));
    expect(error.code).toBe('NETWORK');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('my-order-7');
    expect(server.requests).toHaveLength(1);
  });

  it('retries idempotent calls after network errors and 5xx', async () => {
    let n = 0;
    server = await startServer((_req, res, raw) => {
      n++;
      if (n === 1) raw.socket.destroy();
      else if (n === 2)
        sendJson(res, 503, { errorType: 'Internal', errorCode: 'DH-908', errorMessage: 'busy' });
      else sendJson(res, 200, []);
    });
    await expect(client(server.url).portfolio.holdings()).resolves.toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 5xx of a non-idempotent call', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 500, { errorType: 'Internal', errorCode: 'DH-908', errorMessage: 'oops' }),
    );
    const error = await failure(client(server.url).orders.place(ORDER));
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 500, errorCode: 'DH-908' });
    expect(error.message).toContain('correlationId');
    expect(server.requests).toHaveLength(1);
  });

  it('reads 202 without body as success and refuses non-JSON answers', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      n++;
      if (n === 1) {
        res.writeHead(202);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>gateway</html>');
      }
    });
    const c = client(server.url);
    await expect(c.portfolio.exitAll()).resolves.toBeUndefined();
    expect((await failure(c.funds.fundLimit())).code).toBe('INVALID_RESPONSE');
  });

  it('refuses an answer of the wrong shape', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { not: 'a list' }));
    expect((await failure(client(server.url).orders.list())).code).toBe('INVALID_RESPONSE');
  });

  it('fails with NETWORK when nothing listens', async () => {
    server = await startServer(() => undefined);
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await failure(client(url, { maxRetries: 0 }).funds.fundLimit());
    expect(error.code).toBe('NETWORK');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('checks input before sending anything', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, {}));
    const c = client(server.url);
    expect((await failure(c.orders.place({ ...ORDER, quantity: 0 }))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(c.orders.place({ ...ORDER, correlationId: 'x'.repeat(31) }))).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await failure(c.trades.history('2024-13-01', '2024-12-01'))).code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toHaveLength(0);
  });

  it('reports ABORTED when the caller aborts while the call waits for a slot', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { data: {}, status: 'success' }));
    const c = client(server.url);
    await c.marketData.ltp({ NSE_EQ: [1] });
    const controller = new AbortController();
    const pending = c.marketData.ltp({ NSE_EQ: [2] }, controller.signal);
    controller.abort();
    expect((await failure(pending)).code).toBe('ABORTED');
    expect(server.requests).toHaveLength(1);
  });

  it('validates options once, rejecting unknown keys', () => {
    expect(() => new BrokerClient({ baseUrl: 'http://127.0.0.1:1', retries: 3 } as never)).toThrow(
      'BrokerClient options: unknown option "retries" (allowed: baseUrl, authUrl, clientId, accessToken, timeoutMs, maxRetries, retryBaseDelayMs, retryMaxDelayMs, bodyEncoding, rateLimiter, clock, fetch)',
    );
    expect(() => new BrokerClient({ baseUrl: 'ftp://x' })).toThrow(/baseUrl/);
    expect(() => new BrokerClient({ baseUrl: 'http://127.0.0.1:1/?a=1' })).toThrow(
      '"baseUrl" must not carry a query or fragment',
    );
    expect(() => new BrokerClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => new BrokerClient({ baseUrl: 'http://127.0.0.1:1', bodyEncoding: 'xml' } as never)).toThrow(
      /bodyEncoding/,
    );
    expect(new BrokerClient({ baseUrl: 'http://127.0.0.1:1/' }).apiRoot).toBe('http://127.0.0.1:1/v2');
  });

  it('counts modifications per order and refuses the 26th without sending it', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { orderId: '9', orderStatus: 'PENDING' }));
    // A roomier order window keeps this test quick; pacing itself is tested with a manual clock.
    const c = client(server.url, { rateLimiter: { limits: { order: [{ windowMs: 1000, max: 100 }] } } });
    for (let i = 0; i < 25; i++) await c.orders.modify('9', { orderType: 'LIMIT', price: 100 + i });
    const error = await failure(c.orders.modify('9', { orderType: 'LIMIT', price: 1 }));
    expect(error.code).toBe('MODIFICATION_LIMIT');
    expect(server.requests).toHaveLength(25);
    expect(error).toBeInstanceOf(BrokerApiError);
  });
});
