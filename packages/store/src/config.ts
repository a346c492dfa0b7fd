/**
 * The store's options, validated once at construction: unknown keys and bad values are refused
 * with a message that names the key and what is allowed (STORE_CONFIG_INVALID). A password is
 * never put in an error or a log line.
 */
import { ENGINE_ISOLATION_ENV, type EngineIsolationSetting } from './embedded/engine-process/jail.js';
import type { LaneLimits } from './embedded/exclusive-lane.js';
import { StoreError } from './errors.js';

export interface StoreConfig {
  /** `CLICKHOUSE_URL`, e.g. http://user:pass@host:8123. Unset: embedded chDB under `dataDir`. */
  url?: string | undefined;
  /** `DATA_DIR` for embedded chDB. Default `.data/chdb`. */
  dataDir?: string | undefined;
  /** Server mode only: per-request timeout. Default 300 s. */
  requestTimeoutMs?: number | undefined;
  /** Limits of the lane of the pipeline's own work (`Store.internal`). */
  internalLane?: Partial<LaneLimits> | undefined;
  /** Limits of the lane of queries made for API callers (`Store.user`). */
  userLane?: Partial<LaneLimits> | undefined;
  /**
   * Server mode only: the ClickHouse user the `user` lane logs in as, instead of the user of `url`
   * (`CLICKHOUSE_SQL_USER` / `CLICKHOUSE_SQL_PASSWORD`). Both fields are required; a password is
   * never put in an error or a log line. Default: unset (both lanes log in as the user of `url`).
   */
  userAccount?: UserAccount | undefined;
  /**
   * Embedded chDB only: whether TTLs delete (`run`) or are held off (`paused`: every TTL the store
   * installs, by migration 009 or applyRetention, is removed again at once, so nothing expires).
   * Default: `STORE_TTL_DELETES` from the environment, else `run`. The test tier pauses them
   * (vitest.config.ts): fixtures of several packages are dated 2024, older than the raw feed's
   * 90-day retention (retention/).
   */
  ttlDeletes?: TtlDeletes | undefined;
  /**
   * Embedded chDB only: the one directory `BACKUP`/`RESTORE` may use (`<backups><allowed_path>`
   * of the engine's configuration; backup/). Unset: the engine refuses every backup path. A
   * server has its own `backups` configuration. Default unset.
   */
  backupDir?: string | undefined;
  /**
   * Embedded chDB only: how the engine's process is isolated from the host (embedded/engine-process/).
   * `namespaces`: a jail of Linux namespaces (no /proc, no network, no file but its own), refused
   * where the machine does not allow unprivileged namespaces; `process`: a plain child process with
   * an empty environment; `auto`: namespaces where allowed, else process. Default:
   * `STORE_ENGINE_ISOLATION` from the environment, else `auto`.
   */
  engineIsolation?: EngineIsolationSetting | undefined;
}

export type TtlDeletes = 'run' | 'paused';
/** The variable that sets `ttlDeletes` when a caller leaves it unset. */
export const TTL_DELETES_ENV = 'STORE_TTL_DELETES';

/** A ClickHouse server login. */
export interface UserAccount {
  username: string;
  password: string;
}

/**
 * Defaults of the lanes. The pipeline's lane waits long (its work must happen); callers' short.
 *
 * Sessions (embedded chDB): the pipeline's work runs on one (inserts in order, one at a time, as
 * before); callers' queries on two, so two of them run at once, one per core of the 2-core machine
 * this is measured on: a query's engine work is CPU (~75% of it parsing, analysing and planning on
 * the calling thread, measured with bench:api), so more sessions than cores only interleave it.
 * Each running statement holds one thread of libuv's pool (4 by default, UV_THREADPOOL_SIZE), which
 * file I/O and DNS share: the lanes' sessions together should stay below its size.
 */
export const DEFAULT_INTERNAL_LANE: Readonly<LaneLimits> = Object.freeze({
  maxQueued: 10_000,
  maxWaitMs: 300_000,
  sessions: 1,
});
export const DEFAULT_USER_LANE: Readonly<LaneLimits> = Object.freeze({
  maxQueued: 64,
  maxWaitMs: 30_000,
  sessions: 2,
});

const KNOWN_KEYS = new Set([
  'url',
  'dataDir',
  'requestTimeoutMs',
  'internalLane',
  'userLane',
  'userAccount',
  'ttlDeletes',
  'backupDir',
  'engineIsolation',
]);
const LANE_KEYS = new Set(['maxQueued', 'maxWaitMs', 'sessions']);
/** Upper bounds of the lane limits (sessions: each is an engine connection and a libuv thread). */
const LANE_MAX: Readonly<Record<keyof LaneLimits, number>> = {
  maxQueued: 100_000_000,
  maxWaitMs: 100_000_000,
  sessions: 16,
};
const ACCOUNT_KEYS = new Set(['username', 'password']);
/**
 * ClickHouse user names the HTTP client can send: it logs in with Basic auth, where a `:` would
 * end the name early, and a user of users.d is an XML element name anyway.
 */
const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/** `url` without its credentials (for `location`, and for a login that must not take the URL's). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}

export function laneLimits(
  name: 'internalLane' | 'userLane',
  given: Partial<LaneLimits> | undefined,
  defaults: Readonly<LaneLimits>,
): LaneLimits {
  if (given === undefined) return { ...defaults };
  if (typeof given !== 'object' || given === null) {
    throw new StoreError('STORE_CONFIG_INVALID', `store option "${name}" must be an object`);
  }
  for (const key of Object.keys(given)) {
    if (!LANE_KEYS.has(key)) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `unknown store option "${name}.${key}"; allowed: ${[...LANE_KEYS].join(', ')}`,
      );
    }
  }
  const limits = { ...defaults, ...given };
  for (const key of LANE_KEYS) {
    const value = limits[key as keyof LaneLimits];
    const max = LANE_MAX[key as keyof LaneLimits];
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `store option "${name}.${key}" must be an integer from 1 to ${max}, got ${String(value)}`,
      );
    }
  }
  return limits;
}

export function validate(config: StoreConfig): void {
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key)) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `unknown store option "${key}"; allowed: ${[...KNOWN_KEYS].join(', ')}`,
      );
    }
  }
  if (config.url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(config.url);
    } catch {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        'CLICKHOUSE_URL is not a valid URL (expected http(s)://host:port)',
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `CLICKHOUSE_URL must use http or https, got ${parsed.protocol}`,
      );
    }
  }
  if (config.userAccount !== undefined) validateAccount(config.userAccount, config.url !== undefined);
  if (config.ttlDeletes !== undefined && config.ttlDeletes !== 'run' && config.ttlDeletes !== 'paused') {
    throw new StoreError('STORE_CONFIG_INVALID', 'store option "ttlDeletes" must be "run" or "paused"');
  }
  if (config.backupDir !== undefined && (typeof config.backupDir !== 'string' || config.backupDir === '')) {
    throw new StoreError('STORE_CONFIG_INVALID', 'store option "backupDir" must be a directory path');
  }
}

const ISOLATION_SETTINGS: readonly EngineIsolationSetting[] = ['auto', 'namespaces', 'process'];

/** `engineIsolation` as given, else from the environment (read once, here), else `auto`. */
export function engineIsolationOf(
  config: StoreConfig,
  env: Readonly<Record<string, string | undefined>>,
): EngineIsolationSetting {
  const value = config.engineIsolation ?? (env[ENGINE_ISOLATION_ENV]?.trim() || 'auto');
  if ((ISOLATION_SETTINGS as readonly string[]).includes(value)) return value as EngineIsolationSetting;
  const source =
    config.engineIsolation === undefined ? ENGINE_ISOLATION_ENV : 'store option "engineIsolation"';
  throw new StoreError('STORE_CONFIG_INVALID', `${source} must be one of ${ISOLATION_SETTINGS.join(', ')}`);
}

/** `ttlDeletes` as given, else from the environment (read once, here), else `run`. */
export function ttlDeletesOf(
  config: StoreConfig,
  env: Readonly<Record<string, string | undefined>>,
): TtlDeletes {
  if (config.ttlDeletes !== undefined) return config.ttlDeletes;
  const value = env[TTL_DELETES_ENV]?.trim() ?? '';
  if (value === '' || value === 'run') return 'run';
  if (value === 'paused') return 'paused';
  throw new StoreError('STORE_CONFIG_INVALID', `${TTL_DELETES_ENV} must be "run" or "paused"`);
}

/** The reader login: checked whole here, so a half-configured reader never silently falls back. */
function validateAccount(account: UserAccount, serverMode: boolean): void {
  const invalid = (message: string): never => {
    throw new StoreError('STORE_CONFIG_INVALID', message);
  };
  if (typeof account !== 'object' || account === null || Array.isArray(account)) {
    invalid('store option "userAccount" must be an object { username, password }');
  }
  for (const key of Object.keys(account)) {
    if (!ACCOUNT_KEYS.has(key)) {
      invalid(`unknown store option "userAccount.${key}"; allowed: ${[...ACCOUNT_KEYS].join(', ')}`);
    }
  }
  if (!serverMode) {
    invalid('store option "userAccount" needs "url": embedded chDB has no users to log in as');
  }
  const { username, password } = account;
  if (typeof username !== 'string' || !USER_NAME.test(username)) {
    invalid(
      'store option "userAccount.username" must be a ClickHouse user name (letters, digits, _ . -; no ":")',
    );
  }
  if (typeof password !== 'string' || password.length === 0) {
    invalid(`store option "userAccount.password" is required: the password of ClickHouse user ${username}`);
  }
}
