/**
 * `{auth_url}` endpoints: TOTP token generation, the API-key consent flow and the partner flow,
 * with the browser login pages (GET renders a form, POST of clientId/pin/totp answers the 302 with
 * tokenId). Credentials are compared, never echoed.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { formatIstIso } from '../../history/calendar.js';
import { MAX_CONSENTS_PER_DAY } from '../consents.js';
import type { SimContext } from '../context.js';
import { authError, inputError } from '../errors.js';
import { asFields, type Fields, reqString } from '../input.js';
import type { TokenClaims, TokenSource } from '../tokens.js';
import { verifyTotp } from '../totp.js';

function header(request: FastifyRequest, name: string): string {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) throw inputError(`header ${name} is required`);
  return s;
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function tokenGrant(
  ctx: SimContext,
  account: Account,
  src: TokenSource,
  minted: { token: string; claims: TokenClaims } = ctx.tokens.issue(account.clientId, src),
): Record<string, unknown> {
  const { token, claims } = minted;
  return {
    svcClientId: account.clientId,
    svcClientName: account.seed.clientName,
    svcClientUcc: `UCC${account.clientId.slice(-6)}`,
    givenPowerOfAttorney: account.seed.ddpi ?? false,
    accessToken: token,
    expiryTime: formatIstIso(claims.exp * 1000),
  };
}

/** Checks id, PIN and TOTP; one generic message for any mismatch. */
function login(ctx: SimContext, f: Fields): Account {
  const clientId = reqString(f, 'clientId', 20);
  const pin = reqString(f, 'pin', 6);
  const totp = reqString(f, 'totp', 6);
  const account = ctx.accounts.get(clientId);
  if (!account || !same(pin, account.seed.pin) || !verifyTotp(account.seed.totpSecret, totp, ctx.now())) {
    throw authError('Invalid client id, PIN or TOTP');
  }
  return account;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(reply: FastifyReply, action: string, field: string, id: string): void {
  void reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html><head><title>Simulator login</title></head><body>` +
        `<form method="post" action="${escapeHtml(action)}?${field}=${encodeURIComponent(id)}">` +
        `<label>Client id <input name="clientId"></label>` +
        `<label>PIN <input name="pin" type="password" inputmode="numeric"></label>` +
        `<label>TOTP <input name="totp" inputmode="numeric"></label>` +
        `<button type="submit">Login</button></form></body></html>`,
    );
}

function redirectWithTokenId(reply: FastifyReply, redirectUrl: string, tokenId: string): void {
  const base = redirectUrl.replace(/\/+$/, '');
  void reply
    .code(302)
    .header('location', `${base}/?tokenId=${encodeURIComponent(tokenId)}`)
    .send();
}

export function registerAuthRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post('/app/generateAccessToken', async (request) => {
    const q = asFields(request.query);
    const account = login(ctx, { clientId: q.svcClientId, pin: q.pin, totp: q.totp });
    return tokenGrant(ctx, account, 'TOTP');
  });

  const appOwner = (request: FastifyRequest): Account => {
    const appId = header(request, 'app_id');
    const secret = header(request, 'app_secret');
    const account = ctx.accounts.byAppId(appId);
    if (!account || !same(account.seed.appSecret, secret)) throw authError('Invalid app_id or app_secret');
    return account;
  };

  app.post('/app/generate-consent', async (request) => {
    const account = appOwner(request);
    const clientId = asFields(request.query).client_id;
    if (clientId !== undefined && clientId !== account.clientId)
      throw authError('client_id does not own this app');
    account.touch();
    if (account.consentsToday >= MAX_CONSENTS_PER_DAY) {
      throw inputError(`Consent limit reached: at most ${MAX_CONSENTS_PER_DAY} consents per day`);
    }
    account.consentsToday += 1;
    const s = ctx.consents.create(
      'APP',
      account.seed.appId ?? '',
      account.clientId,
      account.seed.redirectUrl ?? '',
    );
    return { consentAppId: s.consentId, consentAppStatus: 'GENERATED', status: 'success' };
  });

  const appConsent = (request: FastifyRequest) => {
    const id = String(asFields(request.query).consentAppId ?? '');
    const s = ctx.consents.pending('APP', id);
    if (!s) throw inputError('Unknown or expired consentAppId');
    return s;
  };
  app.get('/login/consentApp-login', async (request, reply) => {
    const s = appConsent(request);
    loginPage(reply, '/auth/login/consentApp-login', 'consentAppId', s.consentId);
  });
  app.post('/login/consentApp-login', async (request, reply) => {
    const s = appConsent(request);
    const account = login(ctx, asFields(request.body));
    if (account.clientId !== s.clientId) throw authError('Invalid client id, PIN or TOTP');
    redirectWithTokenId(reply, s.redirectUrl, ctx.consents.issueTokenId(s, account.clientId));
  });
  app.get('/app/consumeApp-consent', async (request) => {
    const account = appOwner(request);
    const tokenId = String(asFields(request.query).tokenId ?? '');
    const s = ctx.consents.consume('APP', tokenId, account.seed.appId ?? '');
    if (!s) throw authError('Invalid or used tokenId');
    return tokenGrant(ctx, account, 'APP');
  });

  const partner = (request: FastifyRequest): string => {
    const id = header(request, 'partner_id');
    const secret = header(request, 'partner_secret');
    if (!same(ctx.accounts.partnerSecret(id), secret))
      throw authError('Invalid partner_id or partner_secret');
    return id;
  };
  app.get('/partner/generate-consent', async (request) => {
    const partnerId = partner(request);
    const s = ctx.consents.create(
      'PARTNER',
      partnerId,
      undefined,
      ctx.accounts.partnerRedirect(partnerId) ?? '',
    );
    return { consentId: s.consentId, consentStatus: 'GENERATED' };
  });
  const partnerConsent = (request: FastifyRequest) => {
    const id = String(asFields(request.query).consentId ?? '');
    const s = ctx.consents.pending('PARTNER', id);
    if (!s) throw inputError('Unknown or expired consentId');
    return s;
  };
  app.get('/consent-login', async (request, reply) => {
    const s = partnerConsent(request);
    loginPage(reply, '/auth/consent-login', 'consentId', s.consentId);
  });
  app.post('/consent-login', async (request, reply) => {
    const s = partnerConsent(request);
    const account = login(ctx, asFields(request.body));
    redirectWithTokenId(reply, s.redirectUrl, ctx.consents.issueTokenId(s, account.clientId));
  });
  app.get('/partner/consume-consent', async (request) => {
    const partnerId = partner(request);
    const tokenId = String(asFields(request.query).tokenId ?? '');
    const s = ctx.consents.consume('PARTNER', tokenId, partnerId);
    const account = s?.clientId ? ctx.accounts.get(s.clientId) : undefined;
    if (!account) throw authError('Invalid or used tokenId');
    return tokenGrant(ctx, account, 'PARTNER');
  });
}
