/**
 * Who may connect to the simulated feed. Authentication is an injected function so the REST half of
 * the simulator can plug in the tokens it issues; `createMemoryAuthenticator` is the default over a
 * configured list of test accounts.
 */
import { SimError } from '../market/errors.js';

/** 1 = a partner's client, 2 = self, 3 = partner (clientId is the partner id, token the partner secret). */
export type AuthType = 1 | 2 | 3;
/** Feed error codes an authentication check can produce (spec: 806 no data plan, 807 token expired, 808 authentication failure, 809 invalid token). */
export type FeedAuthFailureCode = 806 | 807 | 808 | 809;
export type FeedAuthResult = { ok: true } | { ok: false; code: FeedAuthFailureCode };
export type FeedAuthenticate = (clientId: string, token: string, authType: AuthType) => FeedAuthResult;

export interface SimClientAccount {
  clientId: string;
  accessToken: string;
  /** Whether the Data API subscription is active. Default true; false gets error 806. */
  dataPlan?: boolean;
  /** Epoch ms after which the access token is expired (error 807). Default: never expires. */
  tokenExpiresAtMs?: number;
}

export interface SimPartner {
  partnerId: string;
  partnerSecret: string;
}

export interface FeedCredentials {
  clients: readonly SimClientAccount[];
  partners: readonly SimPartner[];
}

/**
 * Test credentials, printed by the CLI and listed in the README. Client ids ending in 806/807 make
 * the failure they produce easy to remember.
 */
export const DEFAULT_FEED_CREDENTIALS: FeedCredentials = {
  clients: [
    { clientId: '1000000001', accessToken: 'sim-token-1000000001' },
    { clientId: '1000000002', accessToken: 'sim-token-1000000002' },
    { clientId: '1000000003', accessToken: 'sim-token-1000000003' },
    { clientId: '1000000806', accessToken: 'sim-token-1000000806', dataPlan: false },
    { clientId: '1000000807', accessToken: 'sim-token-1000000807', tokenExpiresAtMs: 0 },
  ],
  partners: [{ partnerId: 'partner-0001', partnerSecret: 'sim-partner-secret-0001' }],
};

const ACCOUNT_KEYS = ['clientId', 'accessToken', 'dataPlan', 'tokenExpiresAtMs'];
const PARTNER_KEYS = ['partnerId', 'partnerSecret'];

function nonEmptyString(where: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) {
    throw new SimError('INVALID_OPTION', `${where} must be a non-empty string of at most 4096 characters`);
  }
  return value;
}

/** Validates a credentials object once, with messages that name the entry but never echo a secret. */
export function validateCredentials(value: unknown): FeedCredentials {
  if (typeof value !== 'object' || value === null) {
    throw new SimError('INVALID_OPTION', 'credentials must be an object with "clients" and "partners"');
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key !== 'clients' && key !== 'partners') {
      throw new SimError('INVALID_OPTION', `credentials: unknown key "${key}" (allowed: clients, partners)`);
    }
  }
  const clientsRaw = raw.clients ?? [];
  const partnersRaw = raw.partners ?? [];
  if (!Array.isArray(clientsRaw) || !Array.isArray(partnersRaw)) {
    throw new SimError('INVALID_OPTION', 'credentials.clients and credentials.partners must be arrays');
  }
  const clients = clientsRaw.map((entry: unknown, n): SimClientAccount => {
    const where = `credentials.clients[${n}]`;
    if (typeof entry !== 'object' || entry === null)
      throw new SimError('INVALID_OPTION', `${where} must be an object`);
    const account = entry as Record<string, unknown>;
    for (const key of Object.keys(account)) {
      if (!ACCOUNT_KEYS.includes(key)) {
        throw new SimError(
          'INVALID_OPTION',
          `${where}: unknown key "${key}" (allowed: ${ACCOUNT_KEYS.join(', ')})`,
        );
      }
    }
    if (account.dataPlan !== undefined && typeof account.dataPlan !== 'boolean') {
      throw new SimError('INVALID_OPTION', `${where}.dataPlan must be a boolean`);
    }
    if (account.tokenExpiresAtMs !== undefined && typeof account.tokenExpiresAtMs !== 'number') {
      throw new SimError('INVALID_OPTION', `${where}.tokenExpiresAtMs must be a number (epoch ms)`);
    }
    return {
      clientId: nonEmptyString(`${where}.clientId`, account.clientId),
      accessToken: nonEmptyString(`${where}.accessToken`, account.accessToken),
      dataPlan: account.dataPlan ?? true,
      tokenExpiresAtMs: account.tokenExpiresAtMs ?? Number.POSITIVE_INFINITY,
    };
  });
  const partners = partnersRaw.map((entry: unknown, n): SimPartner => {
    const where = `credentials.partners[${n}]`;
    if (typeof entry !== 'object' || entry === null)
      throw new SimError('INVALID_OPTION', `${where} must be an object`);
    const partner = entry as Record<string, unknown>;
    for (const key of Object.keys(partner)) {
      if (!PARTNER_KEYS.includes(key)) {
        throw new SimError(
          'INVALID_OPTION',
          `${where}: unknown key "${key}" (allowed: ${PARTNER_KEYS.join(', ')})`,
        );
      }
    }
    return {
      partnerId: nonEmptyString(`${where}.partnerId`, partner.partnerId),
      partnerSecret: nonEmptyString(`${where}.partnerSecret`, partner.partnerSecret),
    };
  });
  return { clients, partners };
}

/**
 * The default check over configured accounts. Order of checks: unknown id -> 808; wrong token -> 809;
 * expired token -> 807; no data plan -> 806. A partner (authType 3) with a wrong secret gets 808, as
 * partner credentials are not tokens. A partner's client (authType 1) is checked like a self client.
 */
export function createMemoryAuthenticator(
  credentials: FeedCredentials = DEFAULT_FEED_CREDENTIALS,
  now: () => number = Date.now,
): FeedAuthenticate {
  const clients = new Map(credentials.clients.map((c) => [c.clientId, c]));
  const partners = new Map(credentials.partners.map((p) => [p.partnerId, p]));
  return (clientId, token, authType) => {
    if (authType === 3) {
      const partner = partners.get(clientId);
      if (partner === undefined || partner.partnerSecret !== token) return { ok: false, code: 808 };
      return { ok: true };
    }
    const account = clients.get(clientId);
    if (account === undefined) return { ok: false, code: 808 };
    if (account.accessToken !== token) return { ok: false, code: 809 };
    if (now() >= (account.tokenExpiresAtMs ?? Number.POSITIVE_INFINITY)) return { ok: false, code: 807 };
    if (account.dataPlan === false) return { ok: false, code: 806 };
    return { ok: true };
  };
}
