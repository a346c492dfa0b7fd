/**
 * The kill-switch read behind an order: past `killSwitchCacheMs` an order is checked against the
 * state last read while the state is read again behind it. A switch turned on at the service
 * meanwhile loses no protection: the service refuses the order itself (409 KILL_SWITCH_ACTIVE with
 * its code), and the read behind it has the next order refused before reaching the service.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SimHarness, startSimHarness, tcsOrder } from './sim-harness.js';

let h: SimHarness;

beforeAll(async () => {
  h = await startSimHarness({
    seed: 4,
    now: Date.now,
    gateway: { trading: { killSwitchCacheMs: 20, killSwitchRefreshBehindMs: 60_000 } },
  });
});
afterAll(async () => h?.close());

const order = (correlationId: string) =>
  h.call('POST', '/v1/orders', tcsOrder({ orderType: 'LIMIT', quantity: 1, price: 3000, correlationId }));

it('answers an order from the last read while reading the switch behind it; the service still refuses', async () => {
  expect((await h.call('GET', '/v1/kill-switch')).json()).toMatchObject({ killSwitchStatus: 'DEACTIVATE' });
  // The service's console stops trading; the gateway's read is past its cache, within the window.
  await h.broker.funds.setKillSwitch('ACTIVATE');
  await new Promise((r) => setTimeout(r, 50));
  const raced = await order('ksb-1');
  expect(raced.statusCode, raced.body).toBe(409);
  expect(raced.json().error).toMatchObject({ code: 'KILL_SWITCH_ACTIVE', upstream: { errorCode: 'DH-906' } });
  // Past the cache again: the state read behind the first order refuses this one at the gateway.
  await new Promise((r) => setTimeout(r, 50));
  const next = await order('ksb-2');
  expect(next.statusCode).toBe(409);
  expect(next.json().error.code).toBe('KILL_SWITCH_ACTIVE');
  expect(next.json().error.upstream).toBeUndefined();
  expect((await h.call('POST', '/v1/kill-switch', { status: 'DEACTIVATE' }, h.supervisor)).statusCode).toBe(
    200,
  );
  expect((await order('ksb-3')).statusCode).toBe(200);
});
