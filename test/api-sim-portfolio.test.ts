import type { BrokerClient, PlaceOrderRequest } from '@feedpipe/broker-api';
import { waitFor } from '@feedpipe/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type Sim, startSim, stock, TWO } from './api-sim-helpers.js';

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim?.close();
});

function order(securityId: string, extra: Partial<PlaceOrderRequest> = {}): PlaceOrderRequest {
  return {
    transactionType: 'BUY',
    exchangeSegment: 'NSE_EQ',
    productType: 'INTRADAY',
    orderType: 'MARKET',
    validity: 'DAY',
    securityId,
    quantity: 4,
    price: 0,
    ...extra,
  };
}

async function filled(c: BrokerClient, request: PlaceOrderRequest): Promise<string> {
  const { orderId } = await c.orders.place(request);
  await waitFor(async () => (await c.orders.byId(orderId)).orderStatus === 'TRADED', 20_000, 'order traded');
  return orderId;
}

describe('funds and margin against the simulator', () => {
  it('reads the fund limit with the exact field spellings', async () => {
    const funds = await sim.client().funds.fundLimit();
    expect(funds.availabelBalance).toBeGreaterThan(0);
    expect(funds).toHaveProperty('receiveableAmount');
    expect(funds).toHaveProperty('withdrawableBalance');
  });

  it('calculates margin for one order and for several', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 10);
    const single = await c.funds.margin({
      exchangeSegment: 'NSE_EQ',
      transactionType: 'BUY',
      quantity: 10,
      productType: 'CNC',
      securityId: s.securityId,
      price: s.ltp,
    });
    expect(single.totalMargin).toBeGreaterThan(0);
    expect(typeof single.leverage).toBe('string');
    const multi = await c.funds.marginMulti({
      scripList: [
        {
          exchangeSegment: 'NSE_EQ',
          transactionType: 'BUY',
          quantity: 10,
          productType: 'CNC',
          securityId: s.securityId,
          price: s.ltp,
        },
        {
          exchangeSegment: 'NSE_EQ',
          transactionType: 'BUY',
          quantity: 10,
          productType: 'CNC',
          securityId: s.securityId,
          price: s.ltp,
        },
      ],
    });
    expect(multi.totalMargin).toBeCloseTo(2 * single.totalMargin, 1);
  });

  it('sets and reads the P&L based exit', async () => {
    const c = sim.client();
    const set = await c.funds.setPnlExit({
      profitValue: 5000,
      lossValue: 2000,
      productType: ['INTRADAY'],
      enableKillSwitch: false,
    });
    expect(set.pnlExitStatus).toBe('ACTIVE');
    const read = await c.funds.pnlExit();
    expect(read).toMatchObject({
      pnlExitStatus: 'ACTIVE',
      profit: 5000,
      loss: 2000,
      enableKillSwitch: false,
    });
    const bad = await errorOf(c.funds.setPnlExit({ profitValue: -1 }));
    expect(bad).toMatchObject({ status: 400, errorCode: 'DH-905' });
  });
});

describe('positions, holdings and trades against the simulator', () => {
  it('converts a position and reads holdings, trade history and eDIS state', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 11);
    const orderId = await filled(c, order(s.securityId, { quantity: 6 }));
    await c.portfolio.convertPosition({
      fromProductType: 'INTRADAY',
      toProductType: 'CNC',
      exchangeSegment: 'NSE_EQ',
      positionType: 'LONG',
      securityId: s.securityId,
      convertQty: 2,
    });
    const positions = (await c.portfolio.positions()).filter((p) => p.securityId === s.securityId);
    const byProduct = Object.fromEntries(positions.map((p) => [p.productType, p.netQty]));
    expect(byProduct).toMatchObject({ INTRADAY: 4, CNC: 2 });
    const refused = await errorOf(
      c.portfolio.convertPosition({
        fromProductType: 'INTRADAY',
        toProductType: 'CNC',
        exchangeSegment: 'NSE_EQ',
        positionType: 'LONG',
        securityId: s.securityId,
        convertQty: 1000,
      }),
    );
    expect(refused.errorCode).toBe('DH-906');

    expect(Array.isArray(await c.portfolio.holdings())).toBe(true);
    const today = new Date(Date.now() + 5.5 * 3_600_000).toISOString().slice(0, 10);
    const history = [];
    for await (const page of c.trades.historyPages(today, today)) history.push(...page);
    const mine = history.filter((t) => t.orderId === orderId);
    expect(mine.reduce((n, t) => n + t.tradedQuantity, 0)).toBe(6);
    expect(mine[0]).toHaveProperty('customSymbol');
    expect(mine[0]?.stt).toBeGreaterThan(0);

    const tpin = await c.edis.requestTpin();
    expect(tpin.edisStatus).toBe('SUCCESS');
    expect(Array.isArray(await c.edis.inquire('ALL'))).toBe(true);
    const isin = sim.model.instrument(Number(s.securityId))!.isin;
    const form = await c.edis.bulkForm({ isin: [isin], exchange: 'NSE', segment: 'EQ', bulk: true });
    expect(form.edisFormHtml).toContain('<form');
  });

  it('enforces the kill switch rules: not with open positions, then no trading', async () => {
    const c = sim.client();
    const s = stock(sim, 'NSE_EQ', 12);
    await filled(c, order(s.securityId));
    const early = await errorOf(c.funds.setKillSwitch('ACTIVATE'));
    expect(early).toMatchObject({ errorCode: 'DH-906' });
    expect((await c.funds.killSwitch()).killSwitchStatus).toBe('DEACTIVATE');

    await c.portfolio.exitAll();
    await waitFor(
      async () => (await c.portfolio.positions()).every((p) => p.netQty === 0),
      20_000,
      'all positions closed',
    );
    await waitFor(
      async () =>
        (await c.orders.list()).every((o) => o.orderStatus !== 'PENDING' && o.orderStatus !== 'TRANSIT'),
      20_000,
      'no open orders',
    );
    expect((await c.funds.setKillSwitch('ACTIVATE')).killSwitchStatus).toBe('ACTIVATE');
    expect((await c.funds.killSwitch()).killSwitchStatus).toBe('ACTIVATE');
    const blocked = await errorOf(c.orders.place(order(s.securityId)));
    expect(blocked).toMatchObject({ code: 'HTTP_ERROR', errorCode: 'DH-906' });
  });

  it('refuses risk controls from an account without a whitelisted IP', async () => {
    const c = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    const error = await errorOf(c.funds.setKillSwitch('ACTIVATE'));
    expect(error.errorCode).toBe('DH-906');
    expect((await errorOf(c.portfolio.exitAll())).errorCode).toBe('DH-906');
  });
});
