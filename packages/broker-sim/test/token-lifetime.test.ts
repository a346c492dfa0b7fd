/**
 * Tokens that stop working while in use: the configurable lifetime, the one-token-per-account rule
 * (a new token or a renewal ends the previous one at once), REST 401 DH-901 for a dead token and
 * Error 807 + close for an open feed connection that connected with it.
 */
import { decodeFrameToRecords } from '@feedpipe/codec';
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulator, restServerHook, SIM_TEST_ACCOUNTS, type Simulator } from '../src/index.js';
import { totpAt } from '../src/rest/index.js';
import { TestClient } from './feed-test-client.js';

const START = Date.UTC(2024, 5, 3, 5, 0, 0);
const ONE = SIM_TEST_ACCOUNTS[0]!;
let nowMs = START;
const clock = () => nowMs;
let sim: Simulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
  nowMs = START;
});

async function start(options: {
  tokenLifetimeMs?: number;
  oneTokenPerAccount?: boolean;
}): Promise<Simulator> {
  sim = await createSimulator({
    seed: 5,
    instruments: 50,
    now: clock,
    feed: { port: 0, tokenCheckIntervalMs: 20 },
    rest: restServerHook({ now: clock, ...options }),
  });
  return sim;
}

async function generate(s: Simulator): Promise<{ accessToken: string; expiryTime: string }> {
  const query = new URLSearchParams({
    svcClientId: ONE.clientId,
    pin: ONE.pin,
    totp: totpAt(ONE.totpSecret, nowMs),
  });
  const response = await fetch(`${s.rest?.authUrl}/app/generateAccessToken?${query}`, { method: 'POST' });
  expect(response.status).toBe(200);
  return (await response.json()) as { accessToken: string; expiryTime: string };
}

async function profile(s: Simulator, token: string): Promise<{ status: number; errorCode?: string }> {
  const response = await fetch(`${s.rest?.baseUrl}/v2/profile`, { headers: { 'access-token': token } });
  const body = (await response.json()) as { errorCode?: string };
  return { status: response.status, ...(body.errorCode === undefined ? {} : { errorCode: body.errorCode }) };
}

/** The feed error codes a client received (Error packets), in order. */
function feedErrors(client: TestClient): number[] {
  return client.messages
    .flatMap((m) => decodeFrameToRecords(m))
    .flatMap((r) => (r.type === 'error' ? [r.code] : []));
}

async function openFeed(s: Simulator, token: string): Promise<TestClient> {
  const client = new TestClient(s.feed.connectUrl(ONE.clientId, token));
  await client.waitOpen();
  return client;
}

describe('token lifetime', () => {
  it('ends a token after the configured lifetime: REST 401 DH-901, open feed connection Error 807', async () => {
    const s = await start({ tokenLifetimeMs: 120_000 });
    const grant = await generate(s);
    // 10:30 IST + 120 s, the grant's own statement of expiry.
    expect(grant.expiryTime).toBe('2024-06-03T10:32:00');
    const client = await openFeed(s, grant.accessToken);
    nowMs += 119_000;
    expect(await profile(s, grant.accessToken)).toEqual({ status: 200 });
    nowMs += 2_000;
    expect(await profile(s, grant.accessToken)).toEqual({ status: 401, errorCode: 'DH-901' });
    const closed = await client.waitClosed();
    expect(closed.code).toBe(1008);
    expect(feedErrors(client)).toEqual([807]);
    expect(s.feed.stats().tokenExpiries).toBe(1);
    // A new connection with the dead token is refused at connect with 807 as well.
    const late = new TestClient(s.feed.connectUrl(ONE.clientId, grant.accessToken));
    await late.waitClosed();
    expect(feedErrors(late)).toEqual([807]);
  });

  it('ends the seeds web token a shortened lifetime after it was minted', async () => {
    const s = await start({ tokenLifetimeMs: 600_000 });
    // The seed token was minted at module load with the real clock, moments ago.
    nowMs = Date.now();
    expect((await profile(s, ONE.webToken!)).status).toBe(200);
    nowMs += 601_000;
    expect(await profile(s, ONE.webToken!)).toEqual({ status: 401, errorCode: 'DH-901' });
  });

  it('refuses a lifetime out of range by name', async () => {
    await expect(start({ tokenLifetimeMs: 10 })).rejects.toThrow(/tokenLifetimeMs/);
  });
});

describe('one token per account', () => {
  it('a new token ends the previous one at once, on REST and on an open feed connection', async () => {
    const s = await start({ oneTokenPerAccount: true });
    const first = await generate(s);
    const client = await openFeed(s, first.accessToken);
    nowMs += 30_000; // the next TOTP step
    const second = await generate(s);
    expect(await profile(s, first.accessToken)).toEqual({ status: 401, errorCode: 'DH-901' });
    expect(await profile(s, second.accessToken)).toEqual({ status: 200 });
    await client.waitClosed();
    expect(feedErrors(client)).toEqual([807]);
    // The seeds' web token was the account's token before; it ended with the first new one.
    expect((await profile(s, ONE.webToken!)).status).toBe(401);
    const fresh = await openFeed(s, second.accessToken);
    expect(fresh.closed).toBeUndefined();
    fresh.close();
  });

  it('RenewToken ends the old web token at once; its open feed connection gets 807', async () => {
    const s = await start({ oneTokenPerAccount: true });
    const client = await openFeed(s, ONE.webToken!);
    const response = await fetch(`${s.rest?.baseUrl}/v2/RenewToken`, {
      method: 'POST',
      headers: { 'access-token': ONE.webToken!, svcClientId: ONE.clientId },
    });
    expect(response.status).toBe(200);
    const renewed = (await response.json()) as { accessToken: string };
    expect(await profile(s, ONE.webToken!)).toEqual({ status: 401, errorCode: 'DH-901' });
    expect(await profile(s, renewed.accessToken)).toEqual({ status: 200 });
    await client.waitClosed();
    expect(feedErrors(client)).toEqual([807]);
    // Renewing the dead token again is an error, as the spec's state table says.
    const again = await fetch(`${s.rest?.baseUrl}/v2/RenewToken`, {
      method: 'POST',
      headers: { 'access-token': ONE.webToken!, svcClientId: ONE.clientId },
    });
    expect(again.status).toBe(401);
  });

  it('is off by default: several tokens of one account stay valid together', async () => {
    const s = await start({});
    const first = await generate(s);
    nowMs += 30_000;
    const second = await generate(s);
    expect((await profile(s, first.accessToken)).status).toBe(200);
    expect((await profile(s, second.accessToken)).status).toBe(200);
  });
});
