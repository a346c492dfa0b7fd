/**
 * Shared setup of the client-against-simulator tests (test/api-sim-*.test.ts): the REST simulator
 * in-process on loopback, the documented test accounts, and a browser-login stand-in.
 */
import { BrokerClient, type BrokerClientOptions, isBrokerApiError, RateLimiter } from '@feedpipe/broker-api';
import { createRestServer, MarketModel, type RestServer, SIM_TEST_ACCOUNTS } from '@feedpipe/broker-sim';

export const ONE = SIM_TEST_ACCOUNTS[0]!;
export const TWO = SIM_TEST_ACCOUNTS[1]!;

export interface Sim {
  server: RestServer;
  model: MarketModel;
  /** One limiter per test file: the simulator counts per client id, so all clients share the budget. */
  limiter: RateLimiter;
  /** A client of account ONE with its web-console token, unless options say otherwise. */
  client(options?: Partial<BrokerClientOptions>): BrokerClient;
  close(): Promise<void>;
}

export async function startSim(extra: { now?: () => number; rateLimits?: boolean } = {}): Promise<Sim> {
  const model = new MarketModel({ seed: 1, instruments: 2000, ...(extra.now ? { now: extra.now } : {}) });
  const server = await createRestServer({ model, ...extra });
  const limiter = new RateLimiter();
  return {
    server,
    model,
    limiter,
    client: (options = {}) =>
      new BrokerClient({
        baseUrl: server.baseUrl,
        authUrl: server.authUrl,
        clientId: ONE.clientId,
        accessToken: ONE.webToken,
        retryBaseDelayMs: 20,
        rateLimiter: limiter,
        ...options,
      }),
    close: () => server.close(),
  };
}

/**
 * Does what the user's browser does on a login page: POSTs the form fields to the same URL and
 * returns the tokenId of the 302 redirect to the registered URL.
 */
export async function browserLogin(
  loginUrl: string,
  form: { clientId: string; pin: string; totp: string },
): Promise<{ status: number; location: string | null; tokenId: string | null }> {
  const page = await fetch(loginUrl);
  const html = await page.text();
  if (!html.includes('<form')) throw new Error(`login page has no form (HTTP ${page.status})`);
  const response = await fetch(loginUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  await response.text();
  const location = response.headers.get('location');
  const tokenId = location === null ? null : new URL(location).searchParams.get('tokenId');
  return { status: response.status, location, tokenId };
}

/** A controllable clock for the simulator (token expiry, IP lock, day budgets). */
export function movableNow(start = Date.now()): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => start + offset + (Date.now() - start),
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** The BrokerApiError a promise rejects with (fails the test if it resolves or throws something else). */
export async function errorOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBrokerApiError(error)) throw new Error(`expected a BrokerApiError, got ${String(error)}`);
  return error;
}

/** An Indian stock of the universe whose live quote exists, with its price and tick. */
export function stock(
  sim: Pick<Sim, 'model'>,
  segment: 'NSE_EQ' | 'BSE_EQ' = 'NSE_EQ',
  nth = 0,
): { securityId: string; ltp: number; tick: number; restingBuy: number } {
  const candidates = sim.model.universe.filter((i) => i.exchangeSegment === segment);
  const instrument = candidates[nth];
  if (instrument === undefined) throw new Error(`no ${segment} instrument #${nth}`);
  const quote = sim.model.quote(instrument.securityId);
  if (quote === undefined) throw new Error(`no quote for ${instrument.securityId}`);
  const tick = instrument.tickSize;
  // A BUY limit just above the lower circuit: accepted, and it rests unless the price crashes.
  const floor = quote.lowerCircuit > 0 ? quote.lowerCircuit : quote.ltp * 0.9;
  const restingBuy = Number(((Math.ceil(floor / tick) + 2) * tick).toFixed(2));
  return { securityId: String(instrument.securityId), ltp: quote.ltp, tick, restingBuy };
}
