/**
 * The credential variables every process that talks to the service reads (docs/configuration.md,
 * "Credentials"), and their check: one CONFIG_INVALID naming every problem, never a value. Services
 * spread CREDENTIALS_ENV into their own schema so one start names all mistakes.
 */
import { type EnvSchema, readEnv } from '@feedpipe/config';
import { CredentialsError } from './errors.js';
import { type Env, readSecret } from './secret-value.js';

export const TOKEN_SOURCES = ['static', 'web', 'totp', 'file'] as const;
export type TokenSourceKind = (typeof TOKEN_SOURCES)[number];

export const CREDENTIALS_ENV = {
  SVC_TOKEN_SOURCE: {
    type: 'enum',
    values: TOKEN_SOURCES,
    default: 'static',
    description:
      'where the access token comes from: `static` (SVC_ACCESS_TOKEN, never renewed), `web` (a web-console token renewed with RenewToken), `totp` (generated with PIN + TOTP), `file` (a file your tooling refreshes)',
  },
  SVC_ACCESS_TOKEN: {
    type: 'string',
    unset: 'required with `static` and `web` unless `SVC_ACCESS_TOKEN_FILE`',
    secret: true,
    description: 'the access token (`static`, or the first token of `web`)',
  },
  SVC_ACCESS_TOKEN_FILE: {
    type: 'string',
    unset: 'required with `file`',
    description:
      'a file holding the access token: read once for `static`/`web`, watched and re-read when it changes for `file`',
  },
  SVC_PIN: {
    type: 'string',
    unset: 'required with `totp` unless `SVC_PIN_FILE`',
    secret: true,
    description: 'the 6-digit PIN (`totp`)',
  },
  SVC_PIN_FILE: { type: 'string', unset: 'see `SVC_PIN`', description: 'a file holding the PIN' },
  SVC_TOTP_SECRET: {
    type: 'string',
    unset: 'required with `totp` unless `SVC_TOTP_SECRET_FILE`',
    secret: true,
    description: 'the base32 TOTP secret set up in the web console (`totp`)',
  },
  SVC_TOTP_SECRET_FILE: {
    type: 'string',
    unset: 'see `SVC_TOTP_SECRET`',
    description: 'a file holding the TOTP secret',
  },
  SVC_AUTH_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: 'required with `totp`',
    description: "the service's `{auth_url}` (generateAccessToken)",
  },
  SVC_BASE_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: 'required with `web`',
    description: "the service's base URL (RenewToken is under `/v2`)",
  },
  SVC_TOKEN_RENEW_AHEAD_S: {
    type: 'integer',
    min: 10,
    max: 43_200,
    default: 1800,
    description:
      'renew or generate this long before expiry (at most a quarter of the token lifetime, so short-lived tokens renew too)',
  },
  SVC_TOKEN_WARN_AHEAD_S: {
    type: 'integer',
    min: 0,
    max: 86_400,
    default: 21_600,
    description:
      'a token nothing can renew (`static`, a stale `file`) logs a warning this long before it expires',
  },
  SVC_TOKEN_SHARE_DIR: {
    type: 'string',
    unset: 'this process renews alone',
    description:
      'directory shared by every process of the account: one holds the renewal lease and publishes the token there (mode 0600), the others read it (`web`, `totp`); the quote poller and the trading gateway share the quote slots there (`slots-<client id>-quote/`)',
  },
  SVC_TOKEN_LEASE_S: {
    type: 'integer',
    min: 3,
    max: 600,
    default: 30,
    description: 'a renewal owner that has not renewed its lease this long is taken over by another process',
  },
  SVC_TOTP_SKEW_S: {
    type: 'integer',
    min: -300,
    max: 300,
    default: 0,
    description: "seconds added to this host's clock when computing TOTP codes (a known clock offset)",
  },
  SVC_TOKEN_POLL_MS: {
    type: 'integer',
    min: 100,
    max: 60_000,
    default: 1000,
    description: 'how often the token file and the shared directory are checked',
  },
} as const satisfies EnvSchema;

export interface CredentialsConfig {
  clientId: string;
  source: TokenSourceKind;
  /** `static`, `web`: the configured token. */
  accessToken?: string;
  /** `file`: the watched token file. */
  tokenFile?: string;
  /** `totp`. */
  pin?: string;
  totpSecret?: string;
  authUrl?: string;
  /** `web`: RenewToken's base. */
  baseUrl?: string;
  renewAheadMs: number;
  warnAheadMs: number;
  shareDir?: string;
  leaseMs: number;
  totpSkewMs: number;
  pollMs: number;
}

function secretOrProblem(env: Env, name: string, problems: string[]): string | undefined {
  try {
    return readSecret(env, name);
  } catch (error) {
    problems.push((error as Error).message);
    return undefined;
  }
}

/** Per source, what it needs; pushes one message per missing piece. */
function checkSource(c: Partial<CredentialsConfig>, problems: string[]): void {
  const need = (ok: unknown, message: string): void => {
    if (!ok) problems.push(message);
  };
  switch (c.source) {
    case 'static':
      need(c.accessToken, 'SVC_TOKEN_SOURCE=static needs SVC_ACCESS_TOKEN or SVC_ACCESS_TOKEN_FILE');
      break;
    case 'web':
      need(c.accessToken, 'SVC_TOKEN_SOURCE=web needs SVC_ACCESS_TOKEN or SVC_ACCESS_TOKEN_FILE');
      need(c.baseUrl, 'SVC_TOKEN_SOURCE=web needs SVC_BASE_URL (RenewToken)');
      break;
    case 'totp':
      need(c.pin, 'SVC_TOKEN_SOURCE=totp needs SVC_PIN or SVC_PIN_FILE');
      if (c.pin !== undefined && !/^\d{6}$/.test(c.pin)) problems.push('SVC_PIN must be 6 digits');
      need(c.totpSecret, 'SVC_TOKEN_SOURCE=totp needs SVC_TOTP_SECRET or SVC_TOTP_SECRET_FILE');
      if (c.totpSecret !== undefined && !/^[A-Z2-7]+=*$/i.test(c.totpSecret.replace(/\s/g, '')))
        problems.push('SVC_TOTP_SECRET must be base32 (A-Z, 2-7)');
      need(c.authUrl, 'SVC_TOKEN_SOURCE=totp needs SVC_AUTH_URL (generateAccessToken)');
      break;
    case 'file':
      need(c.tokenFile, 'SVC_TOKEN_SOURCE=file needs SVC_ACCESS_TOKEN_FILE');
      break;
  }
}

/**
 * The credentials of `clientId` from the environment. `SVC_ACCESS_TOKEN_FILE` is read here for
 * `static` and `web`; the `file` source reads (and re-reads) it itself.
 */
export function credentialsConfigFromEnv(env: Env, clientId: string): CredentialsConfig {
  const { values: v, problems } = readEnv(CREDENTIALS_ENV, env);
  if (clientId.length === 0) problems.push('SVC_CLIENT_ID is required');
  const source = v.SVC_TOKEN_SOURCE as TokenSourceKind;
  const c: Partial<CredentialsConfig> = { clientId, source };
  if (source === 'file') {
    if (v.SVC_ACCESS_TOKEN)
      problems.push('SVC_TOKEN_SOURCE=file reads SVC_ACCESS_TOKEN_FILE; unset SVC_ACCESS_TOKEN');
    if (v.SVC_ACCESS_TOKEN_FILE) c.tokenFile = v.SVC_ACCESS_TOKEN_FILE;
  } else if (source === 'static' || source === 'web') {
    const token = secretOrProblem(env, 'SVC_ACCESS_TOKEN', problems);
    if (token !== undefined) c.accessToken = token;
  }
  if (source === 'totp') {
    const pin = secretOrProblem(env, 'SVC_PIN', problems);
    const secret = secretOrProblem(env, 'SVC_TOTP_SECRET', problems);
    if (pin !== undefined) c.pin = pin;
    if (secret !== undefined) c.totpSecret = secret.replace(/\s/g, '').toUpperCase();
  }
  if (v.SVC_AUTH_URL) c.authUrl = v.SVC_AUTH_URL.replace(/\/+$/, '');
  if (v.SVC_BASE_URL) c.baseUrl = v.SVC_BASE_URL.replace(/\/+$/, '');
  checkSource(c, problems);
  if (problems.length > 0) {
    throw new CredentialsError('CONFIG_INVALID', `invalid credentials:\n  - ${problems.join('\n  - ')}`);
  }
  return {
    ...(c as Pick<CredentialsConfig, 'clientId' | 'source'>),
    ...c,
    renewAheadMs: v.SVC_TOKEN_RENEW_AHEAD_S * 1000,
    warnAheadMs: v.SVC_TOKEN_WARN_AHEAD_S * 1000,
    ...(v.SVC_TOKEN_SHARE_DIR ? { shareDir: v.SVC_TOKEN_SHARE_DIR } : {}),
    leaseMs: v.SVC_TOKEN_LEASE_S * 1000,
    totpSkewMs: v.SVC_TOTP_SKEW_S * 1000,
    pollMs: v.SVC_TOKEN_POLL_MS,
  };
}
