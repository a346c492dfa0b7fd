/**
 * The store's options from the environment, for `query-api serve` and `npm start`, read and checked
 * once: each mistake is a CONFIG_INVALID naming the variable, and no message carries a password.
 *
 *   CLICKHOUSE_URL                a ClickHouse server (http(s)://user:password@host:port); unset:
 *                                 embedded chDB in the given directory.
 *   CLICKHOUSE_SQL_USER           server only: the user callers' queries (POST/GET /v1/sql and the
 *                                 analytics routes) run as, e.g. feedpipe_sql of
 *                                 infra/clickhouse/server/users.d/feedpipe-sql-reader.xml. Unset:
 *                                 they run as the CLICKHOUSE_URL user (fine for a laptop; set it in
 *                                 production, so the server's grants bound what a caller can read).
 *   CLICKHOUSE_SQL_PASSWORD       its password; or
 *   CLICKHOUSE_SQL_PASSWORD_FILE  a file holding it (a Docker/Kubernetes secret; one trailing
 *                                 newline is dropped).
 */
import { readFileSync } from 'node:fs';
import type { StoreConfig } from '@feedpipe/store';
import { QueryApiError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface StoreEnv {
  config: StoreConfig;
  /** Values to scrub from anything printed or logged: the passwords of both logins. */
  secrets: string[];
  /** Server mode without a reader user: callers' queries run as the CLICKHOUSE_URL user. */
  sharedLogin: boolean;
}

function fail(message: string): never {
  throw new QueryApiError('CONFIG_INVALID', message);
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

/** The password in CLICKHOUSE_URL, if any (the store validates the URL itself). */
function urlPassword(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [password];
  } catch {
    return [];
  }
}

/** `chdbDir`: where embedded chDB keeps its data when CLICKHOUSE_URL is unset. */
export function storeConfigFromEnv(env: Env, chdbDir: string): StoreEnv {
  const url = given(env, 'CLICKHOUSE_URL')?.trim();
  const user = given(env, 'CLICKHOUSE_SQL_USER')?.trim();
  const password = given(env, 'CLICKHOUSE_SQL_PASSWORD');
  const passwordFile = given(env, 'CLICKHOUSE_SQL_PASSWORD_FILE')?.trim();
  if (user === undefined) {
    if (password !== undefined || passwordFile !== undefined) {
      const name = password !== undefined ? 'CLICKHOUSE_SQL_PASSWORD' : 'CLICKHOUSE_SQL_PASSWORD_FILE';
      fail(`${name} is set but CLICKHOUSE_SQL_USER is not: name the user the password belongs to`);
    }
    return { config: { url, dataDir: chdbDir }, secrets: urlPassword(url), sharedLogin: url !== undefined };
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
    secrets: [...urlPassword(url), secret],
    sharedLogin: false,
  };
}
