/**
 * JWT-shaped access tokens: base64url(header).base64url(payload).base64url(HMAC-SHA256). The secret
 * is per process (random at load), so tokens from one simulator process mean nothing to another.
 * Expiry is checked against the server's injected clock; renewal revokes the old token at once.
 * Tokens are never logged and never echoed in an error message.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** How a token came to be; only WEB tokens are renewable (spec: "issued from the web console"). */
export type TokenSource = 'WEB' | 'TOTP' | 'APP' | 'PARTNER';

export interface TokenClaims {
  readonly iss: string;
  /** Client id the token acts for. */
  readonly sub: string;
  readonly src: TokenSource;
  readonly tokenConsumerType: 'SELF' | 'PARTNER';
  /** Epoch seconds. */
  readonly iat: number;
  readonly exp: number;
  readonly jti: string;
}

export type TokenCheck =
  | { readonly ok: true; readonly claims: TokenClaims }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' | 'revoked' };

export type FeedAuthResult =
  | { readonly ok: true; readonly clientId: string }
  | { readonly ok: false; readonly code: 806 | 807 | 808 | 809 };

export const TOKEN_VALIDITY_MS = 24 * 3600 * 1000;
const SECRET = randomBytes(32);
const ISSUER = 'feedpipe-broker-sim';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(data: string): string {
  return createHmac('sha256', SECRET).update(data).digest('base64url');
}

function mint(
  clientId: string,
  src: TokenSource,
  nowMs: number,
  lifetimeMs = TOKEN_VALIDITY_MS,
): { token: string; claims: TokenClaims } {
  const iat = Math.floor(nowMs / 1000);
  const claims: TokenClaims = {
    iss: ISSUER,
    sub: clientId,
    src,
    tokenConsumerType: src === 'PARTNER' ? 'PARTNER' : 'SELF',
    iat,
    exp: iat + Math.ceil(lifetimeMs / 1000),
    jti: randomUUID(),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { token: `${HEADER}.${payload}.${sign(`${HEADER}.${payload}`)}`, claims };
}

/** A web-console token for a seed account, valid 24 h from `nowMs`. */
export function issueWebToken(clientId: string, nowMs: number): string {
  return mint(clientId, 'WEB', nowMs).token;
}

function decode(token: string): TokenClaims | 'malformed' | 'signature' {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return 'malformed';
  const expected = Buffer.from(sign(`${parts[0]}.${parts[1]}`));
  const given = Buffer.from(parts[2] ?? '');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'signature';
  try {
    const claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as TokenClaims;
    if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || typeof claims.jti !== 'string') {
      return 'malformed';
    }
    return claims;
  } catch {
    return 'malformed';
  }
}

/** Upper bound on remembered revocations; entries leave once their token would have expired anyway. */
const MAX_REVOKED = 100_000;

export interface FeedAccountView {
  readonly dataPlan: boolean;
  readonly partnerSecret?: string | undefined;
}

export interface TokenPolicy {
  /** How long an issued token lasts. Default 24 h (the spec's). Tokens minted before also end this long after issue. */
  readonly lifetimeMs: number;
  /**
   * One live token per account: issuing one (generateAccessToken, a consent, RenewToken) ends the
   * account's previous token at once, the web-console token of the seeds included. Default false.
   */
  readonly oneTokenPerAccount: boolean;
}

export const DEFAULT_TOKEN_POLICY: TokenPolicy = { lifetimeMs: TOKEN_VALIDITY_MS, oneTokenPerAccount: false };

export class TokenStore {
  private readonly revoked = new Map<string, number>();
  /** With oneTokenPerAccount: the jti of each account's live token, once one was issued here. */
  private readonly live = new Map<string, string>();
  constructor(
    private readonly now: () => number,
    private readonly accountOf: (clientId: string) => FeedAccountView | undefined,
    private readonly partnerSecretOf: (partnerId: string) => string | undefined,
    private readonly policy: TokenPolicy = DEFAULT_TOKEN_POLICY,
  ) {}

  issue(clientId: string, src: TokenSource): { token: string; claims: TokenClaims } {
    const minted = mint(clientId, src, this.now(), this.policy.lifetimeMs);
    if (this.policy.oneTokenPerAccount) this.live.set(clientId, minted.claims.jti);
    return minted;
  }

  check(token: string): TokenCheck {
    const claims = decode(token);
    if (claims === 'malformed' || claims === 'signature') return { ok: false, reason: claims };
    if (this.revoked.has(claims.jti)) return { ok: false, reason: 'revoked' };
    const live = this.live.get(claims.sub);
    if (live !== undefined && live !== claims.jti) return { ok: false, reason: 'revoked' };
    // A token minted before the lifetime was shortened (the seeds' web tokens) ends with it too.
    const expS = Math.min(claims.exp, claims.iat + Math.ceil(this.policy.lifetimeMs / 1000));
    if (expS * 1000 <= this.now()) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  /** When a valid token stops working, epoch ms (its expiry under this store's lifetime). */
  expiresAtMs(claims: TokenClaims): number {
    return Math.min(claims.exp, claims.iat + Math.ceil(this.policy.lifetimeMs / 1000)) * 1000;
  }

  /** Renews an active WEB token: the old one stops working at once. */
  renew(token: string): { token: string; claims: TokenClaims } | TokenCheck | 'not-renewable' {
    const check = this.check(token);
    if (!check.ok) return check;
    if (check.claims.src !== 'WEB') return 'not-renewable';
    this.revoke(check.claims);
    return this.issue(check.claims.sub, 'WEB');
  }

  private revoke(claims: TokenClaims): void {
    const nowS = this.now() / 1000;
    if (this.revoked.size >= MAX_REVOKED) {
      for (const [jti, exp] of this.revoked) if (exp <= nowS) this.revoked.delete(jti);
      // Still full: forget the oldest revocation (insertion order) rather than grow without bound.
      if (this.revoked.size >= MAX_REVOKED) {
        const first = this.revoked.keys().next();
        if (!first.done) this.revoked.delete(first.value);
      }
    }
    this.revoked.set(claims.jti, claims.exp);
  }

  /**
   * The feed server's check of its query parameters. authType 2 (self) and 1 (partner's client):
   * `token` is an access token of `clientId`; authType 3 (partner): `clientId` is the partner id and
   * `token` its secret. Answers the feed's disconnection codes (806-809).
   */
  authenticateFeed(clientId: string, token: string, authType: number): FeedAuthResult {
    if (authType === 3) {
      const secret = this.partnerSecretOf(clientId);
      if (secret === undefined) return { ok: false, code: 808 };
      const a = Buffer.from(secret);
      const b = Buffer.from(token);
      return a.length === b.length && timingSafeEqual(a, b)
        ? { ok: true, clientId }
        : { ok: false, code: 808 };
    }
    if (authType !== 1 && authType !== 2) return { ok: false, code: 808 };
    const check = this.check(token);
    if (!check.ok)
      return { ok: false, code: check.reason === 'expired' || check.reason === 'revoked' ? 807 : 809 };
    if (check.claims.sub !== clientId) return { ok: false, code: 808 };
    const account = this.accountOf(clientId);
    if (!account) return { ok: false, code: 808 };
    if (!account.dataPlan) return { ok: false, code: 806 };
    return { ok: true, clientId };
  }
}
