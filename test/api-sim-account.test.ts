import { totp } from '@feedpipe/broker-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, movableNow, ONE, type Sim, startSim, stock, TWO } from './api-sim-helpers.js';

let sim: Sim;
const clock = movableNow();
beforeAll(async () => {
  sim = await startSim({ now: clock.now });
});
afterAll(async () => {
  await sim?.close();
});

describe('profile and static IP against the simulator', () => {
  it('reads the profile of both test accounts', async () => {
    await expect(sim.client().account.profile()).resolves.toMatchObject({
      svcClientId: ONE.clientId,
      dataPlan: 'Active',
    });
    const two = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    await expect(two.account.profile()).resolves.toMatchObject({
      svcClientId: TWO.clientId,
      dataPlan: 'Deactive',
    });
  });

  it('reads the preset IP and refuses one already used by another account', async () => {
    const ip = await sim.client().account.getIp();
    expect(ip.primaryIP).toBe('127.0.0.1');
    expect(ip.modifyDatePrimary).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const two = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    const taken = await errorOf(
      two.account.setIp({ svcClientId: TWO.clientId, ip: '127.0.0.1', ipFlag: 'PRIMARY' }),
    );
    expect(taken.status).toBe(400);
  });

  it('sets an IP, locks it for 7 days, then allows the modification', async () => {
    const two = sim.client({ clientId: TWO.clientId, accessToken: TWO.webToken });
    const set = await two.account.setIp({ svcClientId: TWO.clientId, ip: '10.20.30.40', ipFlag: 'PRIMARY' });
    expect(set.status).toBe('SUCCESS');
    expect((await two.account.getIp()).primaryIP).toBe('10.20.30.40');
    const locked = await errorOf(
      two.account.modifyIp({ svcClientId: TWO.clientId, ip: '10.20.30.41', ipFlag: 'PRIMARY' }),
    );
    expect(locked.errorCode).toBe('DH-906');
    // Orders come from 127.0.0.1, which is not the whitelisted 10.20.30.40.
    const s = stock(sim);
    const refused = await errorOf(
      two.orders.place({
        transactionType: 'BUY',
        exchangeSegment: 'NSE_EQ',
        productType: 'CNC',
        orderType: 'LIMIT',
        validity: 'DAY',
        securityId: s.securityId,
        quantity: 1,
        price: s.restingBuy,
      }),
    );
    expect(refused.errorCode).toBe('DH-906');

    clock.advance(7 * 86_400_000 + 60_000);
    // The web token is 24 h old by now; log in again with PIN and TOTP at the simulator's time.
    const grant = await sim.client({ accessToken: undefined }).auth.generateToken({
      svcClientId: TWO.clientId,
      pin: TWO.pin,
      totp: totp(TWO.totpSecret, { time: clock.now() }),
    });
    const again = sim.client({ clientId: TWO.clientId, accessToken: grant.accessToken });
    const modified = await again.account.modifyIp({
      svcClientId: TWO.clientId,
      ip: '10.20.30.41',
      ipFlag: 'PRIMARY',
    });
    expect(modified.status).toBe('SUCCESS');
    expect((await again.account.getIp()).primaryIP).toBe('10.20.30.41');
  });
});
