/**
 * Validation of the connection URL's query: `clientId`, `token`, `authType` (1, 2, 3) and `version`
 * (must be 2) are all required; anything else fails the upgrade with HTTP 400.
 */
import type { AuthType } from './credentials.js';

export interface ConnectParams {
  clientId: string;
  token: string;
  authType: AuthType;
}

export type ConnectParamsResult = { ok: true; params: ConnectParams } | { ok: false; problem: string };

const MAX_CLIENT_ID_LENGTH = 64;
const MAX_TOKEN_LENGTH = 4096;
const CLIENT_ID_PATTERN = /^[A-Za-z0-9_.-]+$/;

export function parseConnectParams(requestUrl: string | undefined): ConnectParamsResult {
  let query: URLSearchParams;
  try {
    query = new URL(requestUrl ?? '/', 'ws://feed.invalid').searchParams;
  } catch {
    return { ok: false, problem: 'unparseable request URL' };
  }
  const clientId = query.get('clientId');
  const token = query.get('token');
  const authType = query.get('authType');
  const version = query.get('version');
  if (clientId === null || clientId.length === 0) return { ok: false, problem: 'clientId is required' };
  if (clientId.length > MAX_CLIENT_ID_LENGTH || !CLIENT_ID_PATTERN.test(clientId)) {
    return { ok: false, problem: 'clientId is malformed' };
  }
  // The problem text may be returned to the peer: it never includes the token itself.
  if (token === null || token.length === 0) return { ok: false, problem: 'token is required' };
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, problem: 'token is too long' };
  if (authType !== '1' && authType !== '2' && authType !== '3') {
    return { ok: false, problem: 'authType must be 1, 2 or 3' };
  }
  if (version !== '2') return { ok: false, problem: 'version must be 2' };
  return { ok: true, params: { clientId, token, authType: Number(authType) as AuthType } };
}
