/**
 * The store's options, validated once at construction: unknown keys and bad values are refused
 * with a message that names the key and what is allowed (STORE_CONFIG_INVALID). A password is
 * never put in an error or a log line.
 */
import { type OptionsSchema, readOptions, section } from '@feedpipe/config';
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

/** The lane limits of a schema, each from 1 (sessions: each is an engine connection and a libuv thread). */
function laneSchema(defaults: Readonly<LaneLimits>) {
  return {
    maxQueued: { kind: 'integer', min: 1, max: 100_000_000, default: defaults.maxQueued },
    maxWaitMs: { kind: 'integer', min: 1, max: 100_000_000, default: defaults.maxWaitMs },
    sessions: { kind: 'integer', min: 1, max: 16, default: defaults.sessions },
  } as const satisfies OptionsSchema;
}

/**
 * ClickHouse user names the HTTP client can send: it logs in with Basic auth, where a `:` would
 * end the name early, and a user of users.d is an XML element name anyway.
 */
const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

const ISOLATION_SETTINGS: readonly EngineIsolationSetting[] = ['auto', 'namespaces', 'process'];

/** Every key of StoreConfig (documented there), with its range and default. */
const STORE_OPTIONS = {
  url: { kind: 'url', protocols: ['http', 'https'] },
  dataDir: { kind: 'string' },
  requestTimeoutMs: { kind: 'integer', min: 1, max: 86_400_000, default: 300_000 },
  internalLane: section(laneSchema(DEFAULT_INTERNAL_LANE)),
  userLane: section(laneSchema(DEFAULT_USER_LANE)),
  // Optional as a whole but complete when given, so it has a reader of its own (ACCOUNT_OPTIONS).
  userAccount: { kind: 'given' },
  ttlDeletes: { kind: 'enum', values: ['run', 'paused'] },
  backupDir: { kind: 'string' },
  engineIsolation: { kind: 'enum', values: ISOLATION_SETTINGS },
} as const satisfies OptionsSchema;

const ACCOUNT_OPTIONS = {
  username: {
    kind: 'pattern',
    pattern: USER_NAME,
    allowed: 'a ClickHouse user name (letters, digits, _ . -; no ":")',
    required: true,
  },
  password: { kind: 'string', required: true },
} as const satisfies OptionsSchema;

/** The config checked, with the lanes' defaults filled in. */
export interface StoreSettings {
  url: string | undefined;
  dataDir: string | undefined;
  requestTimeoutMs: number;
  limits: { internal: LaneLimits; user: LaneLimits };
  userAccount: UserAccount | undefined;
  backupDir: string | undefined;
}

function invalid(message: string): StoreError {
  return new StoreError('STORE_CONFIG_INVALID', message);
}

/**
 * Checks the config once (STORE_CONFIG_INVALID naming the key and what is allowed; the reader
 * never echoes a value, so a password stays out of the message) and fills in the defaults.
 */
export function readStoreConfig(config: StoreConfig): StoreSettings {
  const v = readOptions(STORE_OPTIONS, config, { where: 'store options', fail: invalid });
  // The scheme alone lets through what the HTTP client cannot parse (a space in the host).
  if (v.url !== undefined && !URL.canParse(v.url))
    throw invalid('store options: "url" is not a valid URL (expected http(s)://host:port)');
  const userAccount =
    config.userAccount === undefined ? undefined : readAccount(config.userAccount, v.url !== undefined);
  return {
    url: v.url,
    dataDir: v.dataDir,
    requestTimeoutMs: v.requestTimeoutMs,
    limits: { internal: v.internalLane, user: v.userLane },
    userAccount,
    backupDir: v.backupDir,
  };
}

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
function readAccount(account: UserAccount, serverMode: boolean): UserAccount {
  const login = readOptions(ACCOUNT_OPTIONS, account, { where: 'store options.userAccount', fail: invalid });
  if (!serverMode)
    throw invalid('store options: "userAccount" needs "url": embedded chDB has no users to log in as');
  return login;
}
