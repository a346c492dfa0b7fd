/**
 * A gateway over the REST simulator on loopback, for the tests of routes end to end: the
 * simulator with TCS at 3,500 and a US stock at 100, a broker client of the first test account,
 * the gateway (helpers.ts' harness, its keys) with both instruments known, and `call` to inject a
 * request with a key.
 */
import { BrokerClient } from '@feedpipe/broker-api';
import { MarketModel } from '@feedpipe/broker-sim';
import type { LightMyRequestResponse } from 'fastify';
import { SIM_TEST_ACCOUNTS } from '../../../packages/broker-sim/src/accounts/seeds.js';
import type { RestServerOptions } from '../../../packages/broker-sim/src/rest/options.js';
import { ScriptedMarket } from '../../../packages/broker-sim/src/rest/scripted-market.js';
import { createRestServer, type RestServer } from '../../../packages/broker-sim/src/rest/server.js';
import type { TradingGatewayConfig } from '../src/index.js';
import { type Harness, startHarness } from './helpers.js';

export const ACCOUNT = SIM_TEST_ACCOUNTS[0] as (typeof SIM_TEST_ACCOUNTS)[number];
export const TCS = 11536;

/** A regular day order for TCS on NSE; `over` sets the rest (type, quantity, price). */
export function tcsOrder(over: Record<string, unknown>): Record<string, unknown> {
  return {
    transactionType: 'BUY',
    exchangeSegment: 'NSE_EQ',
    productType: 'INTRADAY',
    validity: 'DAY',
    securityId: String(TCS),
    ...over,
  };
}

export interface SimHarness extends Harness {
  sim: RestServer;
  /** A client of the same account, to compare the gateway's answers with the service's. */
  broker: BrokerClient;
  /** A US stock of the simulated universe. */
  usId: string;
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

export async function startSimHarness(options: {
  seed: number;
  now: () => number;
  sim?: Omit<RestServerOptions, 'model' | 'now'>;
  gateway: TradingGatewayConfig;
}): Promise<SimHarness> {
  const model = new MarketModel({ seed: options.seed, instruments: 50 });
  const market = new ScriptedMarket(model);
  market.setLtp(TCS, 3500);
  const usId = String(model.universe.find((i) => i.exchangeSegment === 'INX_EQ')?.securityId);
  market.setLtp(Number(usId), 100);
  const sim = await createRestServer({
    rateLimits: false,
    matchIntervalMs: 20,
    ...options.sim,
    model: market,
    now: options.now,
  });
  const client = () =>
    new BrokerClient({
      baseUrl: sim.baseUrl,
      clientId: ACCOUNT.clientId,
      accessToken: ACCOUNT.webToken,
      retryBaseDelayMs: 10,
    });
  const h = await startHarness(options.gateway, {
    broker: client(),
    now: options.now,
    instruments: [
      { securityId: TCS, segment: 'NSE_EQ', lastPrice: 3500 },
      { securityId: Number(usId), segment: 'INX_EQ', lastPrice: 100 },
    ],
  });
  return {
    ...h,
    sim,
    broker: client(),
    usId,
    call: (method, url, payload, headers = h.trade) =>
      h.gateway.app.inject({
        method,
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      }),
    async close() {
      await h.close();
      await sim.close();
    },
  };
}
