/**
 * The store's options from the environment (env/store-env.ts): the reader login for callers'
 * queries in server mode, each mistake a STORE_CONFIG_INVALID naming the variable, no password in any
 * message, and the passwords handed back for redaction.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { describe, expect, it } from 'vitest';
import { createStore, StoreError, storeConfigFromEnv } from '../src/index.js';

const URL_PASSWORD = 'url-secret-93ab1f';
const SQL_PASSWORD = 'sql-secret-5e02c7';
const SERVER = `http://feedpipe:${URL_PASSWORD}@127.0.0.1:8123`;
const CHDB = '/tmp/unused-chdb';

function refusal(env: Record<string, string>): StoreError {
  try {
    storeConfigFromEnv(env, CHDB);
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    const failure = error as StoreError;
    expect(failure.code).toBe('STORE_CONFIG_INVALID');
    expect(failure.message).not.toContain(SQL_PASSWORD);
    expect(failure.message).not.toContain(URL_PASSWORD);
    return failure;
  }
  throw new Error(`accepted ${JSON.stringify(Object.keys(env))}`);
}

describe('storeConfigFromEnv', () => {
  it('logs callers in as CLICKHOUSE_SQL_USER with CLICKHOUSE_SQL_PASSWORD on a server', () => {
    const { config, secrets, sharedLogin } = storeConfigFromEnv(
      { CLICKHOUSE_URL: SERVER, CLICKHOUSE_SQL_USER: 'feedpipe_sql', CLICKHOUSE_SQL_PASSWORD: SQL_PASSWORD },
      CHDB,
    );
    expect(config).toEqual({
      url: SERVER,
      dataDir: CHDB,
      userAccount: { username: 'feedpipe_sql', password: SQL_PASSWORD },
    });
    expect(secrets).toEqual([URL_PASSWORD, SQL_PASSWORD]);
    expect(sharedLogin).toBe(false);
    // The store takes it as is: the reader login and the level its profile pins.
    const store = createStore(config);
    expect(store.userReadonly).toBe(2);
    return store.close();
  });

  it('reads the password from CLICKHOUSE_SQL_PASSWORD_FILE, without its trailing newline', () => {
    const dir = tempDir('store-env');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'sql-password');
    writeFileSync(file, `${SQL_PASSWORD}\n`);
    const { config, secrets } = storeConfigFromEnv(
      { CLICKHOUSE_URL: SERVER, CLICKHOUSE_SQL_USER: 'feedpipe_sql', CLICKHOUSE_SQL_PASSWORD_FILE: file },
      CHDB,
    );
    expect(config.userAccount).toEqual({ username: 'feedpipe_sql', password: SQL_PASSWORD });
    expect(secrets).toContain(SQL_PASSWORD);
    writeFileSync(file, '\n');
    expect(
      refusal({ CLICKHOUSE_URL: SERVER, CLICKHOUSE_SQL_USER: 'r', CLICKHOUSE_SQL_PASSWORD_FILE: file })
        .message,
    ).toContain('CLICKHOUSE_SQL_PASSWORD_FILE');
    const missing = refusal({
      CLICKHOUSE_URL: SERVER,
      CLICKHOUSE_SQL_USER: 'r',
      CLICKHOUSE_SQL_PASSWORD_FILE: join(dir, 'absent'),
    });
    expect(missing.message).toContain('CLICKHOUSE_SQL_PASSWORD_FILE');
    expect(missing.message).toContain('ENOENT');
  });

  it('refuses a reader user without a password, naming the variables', () => {
    const unset: Record<string, string>[] = [
      {},
      { CLICKHOUSE_SQL_PASSWORD: '' },
      { CLICKHOUSE_SQL_PASSWORD: '  ' },
    ];
    for (const password of unset) {
      const error = refusal({ CLICKHOUSE_URL: SERVER, CLICKHOUSE_SQL_USER: 'feedpipe_sql', ...password });
      expect(error.message).toContain('CLICKHOUSE_SQL_USER');
      expect(error.message).toContain('CLICKHOUSE_SQL_PASSWORD');
    }
  });

  it('refuses half or doubled settings and a reader without a server', () => {
    expect(refusal({ CLICKHOUSE_URL: SERVER, CLICKHOUSE_SQL_PASSWORD: SQL_PASSWORD }).message).toContain(
      'CLICKHOUSE_SQL_PASSWORD is set but CLICKHOUSE_SQL_USER is not',
    );
    expect(
      refusal({
        CLICKHOUSE_URL: SERVER,
        CLICKHOUSE_SQL_USER: 'feedpipe_sql',
        CLICKHOUSE_SQL_PASSWORD: SQL_PASSWORD,
        CLICKHOUSE_SQL_PASSWORD_FILE: '/run/secrets/sql',
      }).message,
    ).toContain('not both');
    expect(
      refusal({ CLICKHOUSE_SQL_USER: 'feedpipe_sql', CLICKHOUSE_SQL_PASSWORD: SQL_PASSWORD }).message,
    ).toContain('CLICKHOUSE_SQL_USER needs CLICKHOUSE_URL');
  });

  it('without a reader user keeps one login, and says so in server mode', () => {
    const server = storeConfigFromEnv({ CLICKHOUSE_URL: SERVER }, CHDB);
    expect(server.config).toEqual({ url: SERVER, dataDir: CHDB });
    expect(server.sharedLogin).toBe(true);
    expect(server.secrets).toEqual([URL_PASSWORD]);
    const embedded = storeConfigFromEnv({ CLICKHOUSE_URL: '' }, CHDB);
    expect(embedded).toEqual({ config: { url: undefined, dataDir: CHDB }, secrets: [], sharedLogin: false });
  });
});
