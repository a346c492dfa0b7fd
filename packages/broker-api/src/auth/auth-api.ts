import { type Clock, systemClock } from '../core/clock.js';
import { invalidArgument } from '../core/errors.js';
import { expectObject, invalidResponse } from '../core/shape.js';
import type { Transport } from '../core/transport.js';
import type { ConsentApp, PartnerConsent, TokenGrant } from '../types/auth.js';
import { parseIstTimestamp, TOKEN_LIFETIME_MS } from './expiry.js';
import type { HeldToken } from './token-holder.js';
import { totp } from './totp.js';

const PIN = /^\d{6}$/;

export interface GenerateTokenInput {
  svcClientId: string;
  /** 6-digit PIN. */
  pin: string;
  /** Either a current TOTP code or the account's base32 TOTP secret (the code is then computed). */
  totp?: string;
  totpSecret?: string;
}

/**
 * Login and token endpoints: token generation with PIN and TOTP, the API-key consent flow, the
 * partner flow and RenewToken. Every secret passed in is kept out of error messages.
 */
export class AuthApi {
  readonly #t: Transport;
  readonly #authUrl: string | undefined;
  readonly #clock: Clock;

  constructor(transport: Transport, authUrl: string | undefined, clock: Clock = systemClock) {
    this.#t = transport;
    this.#authUrl = authUrl;
    this.#clock = clock;
  }

  /** POST {auth_url}/app/generateAccessToken?svcClientId=&pin=&totp= (TOTP must be enabled). */
  async generateToken(input: GenerateTokenInput, signal?: AbortSignal): Promise<TokenGrant> {
    const route = 'POST /app/generateAccessToken';
    if (typeof input.svcClientId !== 'string' || input.svcClientId.length === 0) {
      throw invalidArgument('svcClientId must be a non-empty string');
    }
    if (typeof input.pin !== 'string' || !PIN.test(input.pin)) throw invalidArgument('pin must be 6 digits');
    const code =
      input.totp ??
      (input.totpSecret === undefined ? undefined : totp(input.totpSecret, { time: this.#clock.now() }));
    if (code === undefined || !/^\d{6}$/.test(code))
      throw invalidArgument('a 6-digit totp or a totpSecret is needed');
    const r = await this.#t.call({
      method: 'POST',
      route,
      base: 'auth',
      path: '/app/generateAccessToken',
      query: { svcClientId: input.svcClientId, pin: input.pin, totp: code },
      withToken: false,
      idempotent: false,
      secrets: [input.pin, code, ...(input.totpSecret === undefined ? [] : [input.totpSecret])],
      signal,
    });
    return grant(r.body, route);
  }

  /** Step 1 of the API-key flow: POST {auth_url}/app/generate-consent?client_id= (25 per day). */
  async generateConsent(
    appId: string,
    appSecret: string,
    clientId: string,
    signal?: AbortSignal,
  ): Promise<ConsentApp> {
    const route = 'POST /app/generate-consent';
    const r = await this.#t.call({
      method: 'POST',
      route,
      base: 'auth',
      path: '/app/generate-consent',
      query: { client_id: clientId },
      headers: { app_id: appId, app_secret: appSecret },
      withToken: false,
      idempotent: false,
      secrets: [appSecret],
      signal,
    });
    const consent = expectObject<ConsentApp>(r.body, route);
    if (typeof consent.consentAppId !== 'string') throw invalidResponse(route, 'a consentAppId');
    return consent;
  }

  /** Step 2: the page the user opens in a browser; it redirects to the app's URL with tokenId. */
  consentLoginUrl(consentAppId: string): string {
    return `${this.#requireAuthUrl()}/login/consentApp-login?consentAppId=${encodeURIComponent(consentAppId)}`;
  }

  /** Step 3: GET {auth_url}/app/consumeApp-consent?tokenId= with the app's id and secret. */
  async consumeConsent(
    tokenId: string,
    appId: string,
    appSecret: string,
    signal?: AbortSignal,
  ): Promise<TokenGrant> {
    const route = 'GET /app/consumeApp-consent';
    const r = await this.#t.call({
      method: 'GET',
      route,
      base: 'auth',
      path: '/app/consumeApp-consent',
      query: { tokenId },
      headers: { app_id: appId, app_secret: appSecret },
      withToken: false,
      idempotent: false,
      secrets: [appSecret, tokenId],
      signal,
    });
    return grant(r.body, route);
  }

  /** Partner step 1: GET {auth_url}/partner/generate-consent. */
  async partnerConsent(
    partnerId: string,
    partnerSecret: string,
    signal?: AbortSignal,
  ): Promise<PartnerConsent> {
    const route = 'GET /partner/generate-consent';
    const r = await this.#t.call({
      method: 'GET',
      route,
      base: 'auth',
      path: '/partner/generate-consent',
      headers: { partner_id: partnerId, partner_secret: partnerSecret },
      withToken: false,
      idempotent: false,
      secrets: [partnerSecret],
      signal,
    });
    const consent = expectObject<PartnerConsent>(r.body, route);
    if (typeof consent.consentId !== 'string') throw invalidResponse(route, 'a consentId');
    return consent;
  }

  /** Partner step 2: the login page for a browser tab or webview. */
  partnerLoginUrl(consentId: string): string {
    return `${this.#requireAuthUrl()}/consent-login?consentId=${encodeURIComponent(consentId)}`;
  }

  /** Partner step 3: GET {auth_url}/partner/consume-consent?tokenId=. */
  async partnerConsumeConsent(
    tokenId: string,
    partnerId: string,
    partnerSecret: string,
    signal?: AbortSignal,
  ): Promise<TokenGrant> {
    const route = 'GET /partner/consume-consent';
    const r = await this.#t.call({
      method: 'GET',
      route,
      base: 'auth',
      path: '/partner/consume-consent',
      query: { tokenId },
      headers: { partner_id: partnerId, partner_secret: partnerSecret },
      withToken: false,
      idempotent: false,
      secrets: [partnerSecret, tokenId],
      signal,
    });
    return grant(r.body, route);
  }

  /**
   * RenewToken with headers access-token and svcClientId (method not shown by the spec; POST).
   * Works only for active web-console tokens; the old token expires at once. Not retried after a
   * lost answer, since the first attempt may already have expired the old token.
   */
  async renewToken(accessToken: string, svcClientId: string, signal?: AbortSignal): Promise<HeldToken> {
    const route = 'POST /RenewToken';
    const r = await this.#t.call({
      method: 'POST',
      route,
      path: '/RenewToken',
      headers: { 'access-token': accessToken, svcClientId },
      withToken: false,
      idempotent: false,
      secrets: [accessToken],
      signal,
    });
    const body = expectObject<Record<string, unknown>>(r.body, route);
    const token = typeof body.accessToken === 'string' ? body.accessToken : body.token;
    if (typeof token !== 'string' || token.length === 0) throw invalidResponse(route, 'a new access token');
    return { accessToken: token, expiresAt: this.#expiry(body.expiryTime) };
  }

  /** A grant as a HeldToken, with the expiry read from expiryTime (IST) or 24 h from now. */
  held(grant: TokenGrant): HeldToken {
    return { accessToken: grant.accessToken, expiresAt: this.#expiry(grant.expiryTime) };
  }

  #expiry(expiryTime: unknown): number {
    const parsed = typeof expiryTime === 'string' ? parseIstTimestamp(expiryTime) : undefined;
    return parsed ?? this.#clock.now() + TOKEN_LIFETIME_MS;
  }

  #requireAuthUrl(): string {
    if (this.#authUrl === undefined) throw invalidArgument('authUrl is not configured');
    return this.#authUrl;
  }
}

function grant(body: unknown, route: string): TokenGrant {
  const g = expectObject<TokenGrant>(body, route);
  if (typeof g.accessToken !== 'string' || g.accessToken.length === 0)
    throw invalidResponse(route, 'a token grant');
  return g;
}
