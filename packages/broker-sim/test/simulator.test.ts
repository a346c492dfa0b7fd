import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '../src/index.js';
import { totpAt } from '../src/rest/index.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function openFeed(url: string): Promise<{ opened: boolean; errorCode: number | undefined }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let errorCode: number | undefined;
    let opened = false;
    ws.on('open', () => {
      opened = true;
      setTimeout(() => ws.close(), 300);
    });
    ws.on('message', (data: Buffer) => {
      if (data.byteLength === 13 && data[10] === 50) errorCode = data.readInt16LE(11);
    });
    ws.on('close', () => resolve({ opened, errorCode }));
    ws.on('error', () => undefined);
  });
}

describe('createSimulator with the REST server', () => {
  it('serves REST and feed over one model, and REST-issued tokens open the feed', async () => {
    sim = await createSimulator({ seed: 3, instruments: 500, feed: { port: 0 }, rest: restServerHook() });
    expect(sim.rest?.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const account = SIM_TEST_ACCOUNTS[0]!;
    const query = new URLSearchParams({
      svcClientId: account.clientId,
      pin: account.pin,
      totp: totpAt(account.totpSecret, Date.now()),
    });
    const response = await fetch(`${sim.rest?.authUrl}/app/generateAccessToken?${query}`, { method: 'POST' });
    expect(response.status).toBe(200);
    const grant = (await response.json()) as { accessToken: string };
    const good = await openFeed(sim.feed.connectUrl(account.clientId, grant.accessToken));
    expect(good).toEqual({ opened: true, errorCode: undefined });
    const bad = await openFeed(sim.feed.connectUrl(account.clientId, `${grant.accessToken}x`));
    expect(bad.errorCode).toBeGreaterThanOrEqual(807);
  });
});
