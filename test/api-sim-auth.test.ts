import { type BrokerClient, TokenHolder, totp } from '@feedpipe/broker-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLogin, errorOf, movableNow, ONE, type Sim, startSim, TWO } from './api-sim-helpers.js';

let sim: Sim;
const clock = movableNow();
beforeAll(async () => {
  sim = await startSim({ now: clock.now });
});
afterAll(async () => {
  await sim?.close();
});

function anonymous(): BrokerClient {
  return sim.client({ accessToken: undefined });
}

describe('auth against the simulator', () => {
  it('generates a token with id, PIN and TOTP, and the profile accepts it', async () => {
    const grant = await anonymous().auth.generateToken({
      svcClientId: ONE.clientId,
      pin: ONE.pin,
      totpSecret: ONE.totpSecret,
    });
    expect(grant.svcClientId).toBe(ONE.clientId);
    expect(grant.expiryTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    const held = anonymous().auth.held(grant);
    // expiryTime is 24 h after generation, in IST without zone.
    expect(Math.abs(held.expiresAt - (clock.now() + 24 * 3_600_000))).toBeLessThan(120_000);
    const profile = await sim.client({ accessToken: grant.accessToken }).account.profile();
    expect(profile).toMatchObject({ svcClientId: ONE.clientId, dataPlan: 'Active' });
  });

  it('refuses a wrong PIN with 401 / DH-901 and keeps PIN and TOTP out of the error', async () => {
    const code = totp(ONE.totpSecret, { time: clock.now() });
    const error = await errorOf(
      anonymous().auth.generateToken({ svcClientId: ONE.clientId, pin: '000000', totp: code }),
    );
    expect(error).toMatchObject({ code: 'HTTP_ERROR', status: 401, errorCode: 'DH-901' });
    expect(error.message).not.toContain('000000');
    expect(error.message).not.toContain(code);
  });

  it('runs the API-key consent flow through the browser redirect', async () => {
    const c = anonymous();
    const consent = await c.auth.generateConsent(ONE.appId!, ONE.appSecret!, ONE.clientId);
    expect(consent).toMatchObject({ consentAppStatus: 'GENERATED' });
    const login = await browserLogin(c.auth.consentLoginUrl(consent.consentAppId), {
      clientId: ONE.clientId,
      pin: ONE.pin,
      totp: totp(ONE.totpSecret, { time: clock.now() }),
    });
    expect(login.status).toBe(302);
    expect(login.location?.startsWith(ONE.redirectUrl!)).toBe(true);
    expect(login.tokenId).toBeTruthy();
    const grant = await c.auth.consumeConsent(login.tokenId!, ONE.appId!, ONE.appSecret!);
    expect(grant.svcClientId).toBe(ONE.clientId);
    await expect(sim.client({ accessToken: grant.accessToken }).account.profile()).resolves.toMatchObject({
      svcClientId: ONE.clientId,
    });
    // A tokenId is good for one token only.
    const again = await errorOf(c.auth.consumeConsent(login.tokenId!, ONE.appId!, ONE.appSecret!));
    expect(again.status).toBe(401);
    expect(again.message).not.toContain(ONE.appSecret!);
  });

  it('refuses a consent with a wrong app secret without echoing it', async () => {
    const error = await errorOf(
      anonymous().auth.generateConsent(ONE.appId!, 'wrong-secret-xyz', ONE.clientId),
    );
    expect(error.status).toBe(401);
    expect(error.message).not.toContain('wrong-secret-xyz');
  });

  it('runs the partner flow', async () => {
    const c = anonymous();
    const consent = await c.auth.partnerConsent(ONE.partnerId!, ONE.partnerSecret!);
    expect(consent.consentStatus).toBe('GENERATED');
    const login = await browserLogin(c.auth.partnerLoginUrl(consent.consentId), {
      clientId: TWO.clientId,
      pin: TWO.pin,
      totp: totp(TWO.totpSecret, { time: clock.now() }),
    });
    expect(login.status).toBe(302);
    const grant = await c.auth.partnerConsumeConsent(login.tokenId!, ONE.partnerId!, ONE.partnerSecret!);
    expect(grant.svcClientId).toBe(TWO.clientId);
  });

  it('renews a web-console token: the old one stops working, the new one works', async () => {
    const grant = await anonymous().auth.generateToken({
      svcClientId: ONE.clientId,
      pin: ONE.pin,
      totpSecret: ONE.totpSecret,
    });
    // Tokens from generateAccessToken are not renewable.
    const refused = await errorOf(anonymous().auth.renewToken(grant.accessToken, ONE.clientId));
    expect(refused).toMatchObject({ status: 401, errorCode: 'DH-901' });

    const renewed = await anonymous().auth.renewToken(ONE.webToken!, ONE.clientId);
    expect(renewed.accessToken).not.toBe(ONE.webToken);
    const old = await errorOf(sim.client().account.profile());
    expect(old).toMatchObject({ status: 401, errorCode: 'DH-901' });
    await expect(sim.client({ accessToken: renewed.accessToken }).account.profile()).resolves.toBeDefined();

    // A TokenHolder renews ahead of expiry and the client keeps working.
    const c = anonymous();
    const holder = new TokenHolder({
      accessToken: renewed.accessToken,
      expiresAt: renewed.expiresAt,
      renewable: true,
      refreshAheadMs: 24 * 3_600_000,
      renew: (t) => c.auth.renewToken(t, ONE.clientId),
    });
    const viaHolder = sim.client({ accessToken: holder });
    await expect(viaHolder.account.profile()).resolves.toMatchObject({ svcClientId: ONE.clientId });
    expect(await holder.getToken()).not.toBe(renewed.accessToken);
  });

  it('refuses calls and renewal once a token is 24 hours old', async () => {
    const grant = await anonymous().auth.generateToken({
      svcClientId: TWO.clientId,
      pin: TWO.pin,
      totpSecret: TWO.totpSecret,
    });
    const c = sim.client({ clientId: TWO.clientId, accessToken: grant.accessToken });
    await expect(c.account.profile()).resolves.toBeDefined();
    clock.advance(24 * 3_600_000 + 1000);
    const expired = await errorOf(c.account.profile());
    expect(expired).toMatchObject({ code: 'HTTP_ERROR', status: 401, errorCode: 'DH-901' });
    const renew = await errorOf(anonymous().auth.renewToken(grant.accessToken, TWO.clientId));
    expect(renew.status).toBe(401);
  });
});
