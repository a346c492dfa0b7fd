/**
 * The store's options from the environment, defined once for every part that opens the store (the
 * sink, the history loader, the replay, the query API, the trading gateway, `npm start`, the
 * feedpipe-store CLI): the variables, the `$DATA_DIR/chdb` convention and the passwords to redact.
 * Each mistake is a STORE_CONFIG_INVALID naming the variable, and no message carries a password.
 *
 *   CLICKHOUSE_URL                a ClickHouse server (http(s)://user:password@host:port); unset:
 *                                 embedded chDB in `$DATA_DIR/chdb`.
 *   CLICKHOUSE_SQL_USER           server only, for the parts that run callers' queries (the query
 *                                 API, `npm start`): the user those queries log in as, e.g.
 *                                 feedpipe_sql of infra/clickhouse/server/users.d/
 *                                 feedpipe-sql-reader.xml. Unset: they run as the CLICKHOUSE_URL
 *                                 user (fine for a laptop; set it in production, so the server's
 *                                 grants bound what a caller can read).
 *   CLICKHOUSE_SQL_PASSWORD       its password; or
 *   CLICKHOUSE_SQL_PASSWORD_FILE  a file holding it (a Docker/Kubernetes secret; one trailing
 *                                 newline is dropped).
 *
 * The schemas are plain objects of the env-schema shape (packages/config), spread into each
 * service's own schema, so this package needs no dependency on the reader.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreConfig } from '../config.js';
import { StoreError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Where the store lives: every part that opens it declares these. */
export const STORE_ENV = {
  CLICKHOUSE_URL: {
    type: 'url',
    protocols: ['http', 'https'],
    unset: 'embedded chDB in `$DATA_DIR/chdb`',
    secret: true,
    description: 'ClickHouse server',
  },
  DATA_DIR: {
    type: 'string',
    default: '.data',
    description: 'chDB in `$DATA_DIR/chdb` when `CLICKHOUSE_URL` is unset',
  },
} as const;

/** The login of callers' queries on a server: the parts that run them declare these too. */
export const STORE_CALLER_LOGIN_ENV = {
  CLICKHOUSE_SQL_USER: {
    type: 'string',
    unset: "callers' queries run as the `CLICKHOUSE_URL` user",
    description: "server only: the ClickHouse user that callers' queries log in as",
  },
  CLICKHOUSE_SQL_PASSWORD: {
    type: 'string',
    unset: 'required with `CLICKHOUSE_SQL_USER`',
    secret: true,
    description: 'its password',
  },
  CLICKHOUSE_SQL_PASSWORD_FILE: {
    type: 'string',
    unset: 'no file',
    description: 'instead of `CLICKHOUSE_SQL_PASSWORD`: a file holding it',
  },
} as const;

/** Where embedded chDB keeps its data under a part's data directory. */
export function chdbDirOf(dataDir: string): string {
  return join(dataDir, 'chdb');
}

/** The checked values of STORE_ENV, as a service's env reader gives them. */
export interface StoreEnvValues {
  CLICKHOUSE_URL?: string | undefined;
  DATA_DIR: string;
}

/** The store of STORE_ENV's values: the server, else embedded chDB under `$DATA_DIR/chdb`. */
export function storeConfigOf(values: StoreEnvValues): StoreConfig {
  return { url: values.CLICKHOUSE_URL, dataDir: chdbDirOf(values.DATA_DIR) };
}

/** The password in CLICKHOUSE_URL, if any, to redact (the store validates the URL itself). */
export function storeUrlSecrets(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [password];
  } catch {
    return [];
  }
}

export interface StoreEnv {
  config: StoreConfig;
  /** Values to scrub from anything printed or logged: the passwords of both logins. */
  secrets: string[];
  /** Server mode without a reader user: callers' queries run as the CLICKHOUSE_URL user. */
  sharedLogin: boolean;
}

function fail(message: string): never {
  throw new StoreError('STORE_CONFIG_INVALID', message);
}

/** Unset, empty and blank are all "not given". */
function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

function passwordFromFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    fail(`CLICKHOUSE_SQL_PASSWORD_FILE: cannot read ${path} (${code})`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password === '') fail(`CLICKHOUSE_SQL_PASSWORD_FILE: ${path} is empty`);
  return password;
}

/**
 * The store with the callers' login (STORE_ENV and STORE_CALLER_LOGIN_ENV). `chdbDir`: where
 * embedded chDB keeps its data when CLICKHOUSE_URL is unset (default `$DATA_DIR/chdb`).
 */
export function storeConfigFromEnv(
  env: Env,
  chdbDir: string = chdbDirOf(given(env, 'DATA_DIR')?.trim() ?? STORE_ENV.DATA_DIR.default),
): StoreEnv {
  const url = given(env, 'CLICKHOUSE_URL')?.trim();
  const user = given(env, 'CLICKHOUSE_SQL_USER')?.trim();
  const password = given(env, 'CLICKHOUSE_SQL_PASSWORD');
  const passwordFile = given(env, 'CLICKHOUSE_SQL_PASSWORD_FILE')?.trim();
  if (user === undefined) {
    if (password !== undefined || passwordFile !== undefined) {
      const name = password !== undefined ? 'CLICKHOUSE_SQL_PASSWORD' : 'CLICKHOUSE_SQL_PASSWORD_FILE';
      fail(`${name} is set but CLICKHOUSE_SQL_USER is not: name the user the password belongs to`);
    }
    return {
      config: { url, dataDir: chdbDir },
      secrets: storeUrlSecrets(url),
      sharedLogin: url !== undefined,
    };
  }
  if (url === undefined) {
    fail('CLICKHOUSE_SQL_USER needs CLICKHOUSE_URL: embedded chDB has no users (unset it, or use a server)');
  }
  if (password !== undefined && passwordFile !== undefined) {
    fail('set one of CLICKHOUSE_SQL_PASSWORD and CLICKHOUSE_SQL_PASSWORD_FILE, not both');
  }
  if (password === undefined && passwordFile === undefined) {
    fail(
      `CLICKHOUSE_SQL_USER (${user}) needs its password: set CLICKHOUSE_SQL_PASSWORD or CLICKHOUSE_SQL_PASSWORD_FILE`,
    );
  }
  const secret = password ?? passwordFromFile(passwordFile as string);
  return {
    config: { url, dataDir: chdbDir, userAccount: { username: user, password: secret } },
    secrets: [...storeUrlSecrets(url), secret],
    sharedLogin: false,
  };
}
