import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketModel } from '../src/market/index.js';
import {
  createRestServer,
  hotp,
  type RestServer,
  SIM_TEST_ACCOUNTS,
  totpAt,
  verifyTotp,
} from '../src/rest/index.js';

/** Response bodies as plain JSON values (Response.json is typed unknown). */
async function json(r: Response) {
  return JSON.parse(await r.text());
}

const START = Date.UTC(2024, 5, 3, 5, 0, 0); // Monday 10:30 IST
let nowMs = START;
const clock = () => nowMs;
let server: RestServer;
const acct = SIM_TEST_ACCOUNTS[0]!;

async function v2(path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(`${server.baseUrl}/v2${path}`, {
    ...init,
    headers: { 'access-token': token, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: text ? JSON.parse(text) : undefined,
  };
}

beforeAll(async () => {
  server = await createRestServer({
    model: new MarketModel({ seed: 11, instruments: 20, now: clock }),
    now: clock,
  });
});
afterAll(async () => server.close());

describe('TOTP (RFC 6238 SHA-1 vectors)', () => {
  const key = Buffer.from('12345678901234567890');
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
  ])('t=%i gives %s', (t, code) => {
    expect(hotp(key, Math.floor(t / 30), 8)).toBe(code);
    expect(totpAt('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', t * 1000)).toBe(code.slice(2));
  });
  it('accepts the adjacent window only', () => {
    const code = totpAt(acct.totpSecret, START);
    expect(verifyTotp(acct.totpSecret, code, START + 30_000)).toBe(true);
    expect(verifyTotp(acct.totpSecret, code, START + 95_000)).toBe(false);
  });
});

describe('token generation, expiry and renewal', () => {
  it('issues a 24 h token for id, PIN and TOTP and refuses a wrong TOTP', async () => {
    const q = (totp: string) =>
      `${server.authUrl}/app/generateAccessToken?svcClientId=${acct.clientId}&pin=${acct.pin}&totp=${totp}`;
    const ok = await fetch(q(totpAt(acct.totpSecret, nowMs)), { method: 'POST' });
    expect(ok.status).toBe(200);
    const grant = await json(ok);
    expect(grant.svcClientId).toBe(acct.clientId);
    expect(grant.accessToken.split('.')).toHaveLength(3);
    expect(grant.expiryTime).toBe('2024-06-04T10:30:00');
    expect((await v2('/profile', grant.accessToken)).status).toBe(200);
    const wrong = String((Number(totpAt(acct.totpSecret, nowMs)) + 1) % 1_000_000).padStart(6, '0');
    const bad = await fetch(q(wrong), { method: 'POST' });
    expect(bad.status).toBe(401);
    const body = await json(bad);
    expect(body.errorCode).toBe('DH-901');
    expect(JSON.stringify(body)).not.toContain(acct.pin);
  });

  it('expires tokens after 24 hours of the injected clock', async () => {
    const res = await fetch(
      `${server.authUrl}/app/generateAccessToken?svcClientId=${acct.clientId}&pin=${acct.pin}&totp=${totpAt(acct.totpSecret, nowMs)}`,
      { method: 'POST' },
    );
    const { accessToken } = await json(res);
    nowMs += 24 * 3600_000 - 1000;
    expect((await v2('/profile', accessToken)).status).toBe(200);
    nowMs += 2000;
    const late = await v2('/profile', accessToken);
    expect(late.status).toBe(401);
    expect(late.body.errorCode).toBe('DH-901');
    nowMs = START;
  });

  it('renews only web tokens, and the old one stops at once', async () => {
    const web = await v2('/RenewToken', acct.webToken!, {
      method: 'POST',
      headers: { svcClientId: acct.clientId },
    });
    expect(web.status).toBe(200);
    const fresh = web.body.accessToken as string;
    expect((await v2('/profile', acct.webToken!)).status).toBe(401);
    expect((await v2('/profile', fresh)).status).toBe(200);
    // The renewed token is itself a web token and renews again.
    const again = await v2('/RenewToken', fresh, { method: 'GET' });
    expect(again.status).toBe(200);
    const totpToken = (
      await json(
        await fetch(
          `${server.authUrl}/app/generateAccessToken?svcClientId=${acct.clientId}&pin=${acct.pin}&totp=${totpAt(acct.totpSecret, nowMs)}`,
          { method: 'POST' },
        ),
      )
    ).accessToken;
    const refused = await v2('/RenewToken', totpToken, { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(refused.body.errorCode).toBe('DH-901');
  });
});

describe('API key consent flow and partner flow', () => {
  const appHeaders = { app_id: acct.appId!, app_secret: acct.appSecret! };
  it('goes generate-consent -> login page -> 302 with tokenId -> consume, once', async () => {
    const gen = await fetch(`${server.authUrl}/app/generate-consent?client_id=${acct.clientId}`, {
      method: 'POST',
      headers: appHeaders,
    });
    const consent = await json(gen);
    expect(consent).toMatchObject({ consentAppStatus: 'GENERATED', status: 'success' });
    const page = await fetch(`${server.authUrl}/login/consentApp-login?consentAppId=${consent.consentAppId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form');
    const login = await fetch(
      `${server.authUrl}/login/consentApp-login?consentAppId=${consent.consentAppId}`,
      {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          clientId: acct.clientId,
          pin: acct.pin,
          totp: totpAt(acct.totpSecret, nowMs),
        }),
      },
    );
    expect(login.status).toBe(302);
    const location = new URL(login.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${acct.redirectUrl}/`);
    const tokenId = location.searchParams.get('tokenId')!;
    const consume = await fetch(`${server.authUrl}/app/consumeApp-consent?tokenId=${tokenId}`, {
      headers: appHeaders,
    });
    const grant = await json(consume);
    expect(grant.svcClientId).toBe(acct.clientId);
    expect((await v2('/profile', grant.accessToken)).status).toBe(200);
    const twice = await fetch(`${server.authUrl}/app/consumeApp-consent?tokenId=${tokenId}`, {
      headers: appHeaders,
    });
    expect(twice.status).toBe(401);
  });

  it('limits consents to 25 per day and refuses a wrong secret', async () => {
    const fresh = await createRestServer({
      model: new MarketModel({ seed: 3, instruments: 5, now: clock }),
      now: clock,
    });
    try {
      const gen = (secret: string) =>
        fetch(`${fresh.authUrl}/app/generate-consent?client_id=${acct.clientId}`, {
          method: 'POST',
          headers: { app_id: acct.appId!, app_secret: secret },
        });
      expect((await gen('nope')).status).toBe(401);
      for (let i = 0; i < 25; i++) expect((await gen(acct.appSecret!)).status).toBe(200);
      const over = await gen(acct.appSecret!);
      expect(over.status).toBe(400);
      expect((await json(over)).errorCode).toBe('DH-905');
      nowMs += 24 * 3600_000;
      expect((await gen(acct.appSecret!)).status).toBe(200);
    } finally {
      nowMs = START;
      await fresh.close();
    }
  });

  it('runs the partner flow to a token grant', async () => {
    const headers = { partner_id: acct.partnerId!, partner_secret: acct.partnerSecret! };
    const { consentId, consentStatus } = await json(
      await fetch(`${server.authUrl}/partner/generate-consent`, { headers }),
    );
    expect(consentStatus).toBe('GENERATED');
    const login = await fetch(`${server.authUrl}/consent-login?consentId=${consentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        clientId: acct.clientId,
        pin: acct.pin,
        totp: totpAt(acct.totpSecret, nowMs),
      }),
    });
    expect(login.status).toBe(302);
    const tokenId = new URL(login.headers.get('location')!).searchParams.get('tokenId');
    const grant = await json(
      await fetch(`${server.authUrl}/partner/consume-consent?tokenId=${tokenId}`, { headers }),
    );
    expect(grant.svcClientId).toBe(acct.clientId);
  });
});

describe('error shapes and feed authentication', () => {
  it('answers JSON errors for missing tokens, unknown routes and malformed bodies', async () => {
    const missing = await fetch(`${server.baseUrl}/v2/profile`);
    expect(missing.status).toBe(401);
    expect(await json(missing)).toMatchObject({ errorType: 'Invalid_Authentication', errorCode: 'DH-901' });
    const token = SIM_TEST_ACCOUNTS[1]!.webToken!;
    const unknown = await v2('/no/such/route', token);
    expect(unknown.status).toBe(404);
    expect(unknown.type).toContain('application/json');
    expect(unknown.body.errorCode).toBe('DH-905');
    const bad = await fetch(`${server.baseUrl}/v2/orders`, {
      method: 'POST',
      headers: { 'access-token': token, 'content-type': 'application/json' },
      body: '{"broken":',
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({
      errorType: 'Input_Exception',
      errorCode: 'DH-905',
      errorMessage: 'Malformed JSON body',
    });
    const outside = await fetch(`${server.baseUrl}/elsewhere`);
    expect(outside.status).toBe(404);
    expect((await json(outside)).errorCode).toBe('DH-905');
  });

  it('authenticates feed connections with the feed error codes', () => {
    const t = server.tokens;
    const web2 = SIM_TEST_ACCOUNTS[1]!.webToken!;
    const fresh = t.issue(acct.clientId, 'TOTP').token;
    expect(t.authenticateFeed(acct.clientId, fresh, 2)).toEqual({ ok: true, clientId: acct.clientId });
    expect(t.authenticateFeed(acct.clientId, 'x.y.z', 2)).toEqual({ ok: false, code: 809 });
    expect(t.authenticateFeed(acct.clientId, web2, 2)).toEqual({ ok: false, code: 808 });
    expect(t.authenticateFeed('1000000002', web2, 2)).toEqual({ ok: false, code: 806 });
    expect(t.authenticateFeed(acct.partnerId!, acct.partnerSecret!, 3)).toEqual({
      ok: true,
      clientId: acct.partnerId,
    });
    nowMs += 25 * 3600_000;
    expect(t.authenticateFeed(acct.clientId, fresh, 2)).toEqual({ ok: false, code: 807 });
    nowMs = START;
  });
});
