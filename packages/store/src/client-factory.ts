/**
 * One factory for a `ClickHouseClient`: over a ClickHouse server when a URL is given, otherwise over
 * embedded chDB under a data directory. Both paths hand back the same `@clickhouse/client` API, so
 * every caller (migrations, sink, loader, query API) runs the same code in tests and in production.
 *
 * Two clients, two kinds of work. `client` carries the pipeline's own work (the sink's inserts,
 * the loader, migrations, API keys, the audit log); `userClient` carries queries made on behalf of
 * API callers. On embedded chDB each is one engine session behind its own exclusive lane (see
 * embedded/session-connection.ts): every statement of the process runs alone on its session, and
 * a failed one is cleaned up inside its own turn, so no statement can receive another's result.
 *
 * Why two lanes and not one priority queue: the engine cannot interrupt a running statement, so
 * in one lane a 30 s user query would hold the sink's next insert for 30 s whatever the priority.
 * With two sessions the pipeline's work never waits for a user query's turn; user queries run one
 * at a time (their bounded share of the engine: at most one at once beside the pipeline's work),
 * wait at most `userLane.maxWaitMs` and queue at most `userLane.maxQueued` deep. The one coupling
 * left is inside chDB: it runs parameterized statements of all sessions one at a time, so an
 * internal parameterized query can wait for the one user parameterized query running, which the
 * caller's time limit (max_execution_time) bounds. Inserts (the sink) take no parameters.
 * On a server each client has its own HTTP socket pool, so user queries cannot take the sockets the
 * pipeline needs; the server isolates queries itself. Given `userAccount`, `userClient` also logs
 * in as that server user (the reader of infra/clickhouse/server/users.d/feedpipe-sql-reader.xml):
 * the server's grants and profile then bound what a caller's query can do, whatever the API lets
 * through. Without it both clients log in as the user of `url` (set it in production).
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type * as ChdbConnectionModule from 'chdb/connection';
import { ExclusiveLane, type LaneLimits, type LaneStats } from './embedded/exclusive-lane.js';
import { SessionConnection, type SessionStats } from './embedded/session-connection.js';
import { insertFailed, StoreError } from './errors.js';

/**
 * chDB loaded on first use: its engine is a 566 MB shared library that costs a process ~100 MB of
 * RSS once loaded, which a process on a ClickHouse server (or one that only reads a constant from
 * this package, like the benchmark harness) should not pay.
 */
const loadChdbConnection = (): typeof ChdbConnectionModule =>
  createRequire(import.meta.url)('chdb/connection') as typeof ChdbConnectionModule;

export interface StoreConfig {
  /** `CLICKHOUSE_URL`, e.g. http://user:pass@host:8123. Unset: embedded chDB under `dataDir`. */
  url?: string | undefined;
  /** `DATA_DIR` for embedded chDB. Default `.data/chdb`. */
  dataDir?: string | undefined;
  /** Server mode only: per-request timeout. Default 300 s. */
  requestTimeoutMs?: number | undefined;
  /** Limits of the lane of the pipeline's own work (`client`). */
  internalLane?: Partial<LaneLimits> | undefined;
  /** Limits of the lane of queries made for API callers (`userClient`). */
  userLane?: Partial<LaneLimits> | undefined;
  /**
   * Server mode only: the ClickHouse user `userClient` logs in as, instead of the user of `url`
   * (`CLICKHOUSE_SQL_USER` / `CLICKHOUSE_SQL_PASSWORD`). Both fields are required; a password is
   * never put in an error or a log line. Default: unset (`userClient` logs in as `client` does).
   */
  userAccount?: UserAccount | undefined;
}

/** A ClickHouse server login. */
export interface UserAccount {
  username: string;
  password: string;
}

/** Defaults of the lanes. The pipeline's lane waits long (its work must happen); callers' short. */
export const DEFAULT_INTERNAL_LANE: Readonly<LaneLimits> = Object.freeze({
  maxQueued: 10_000,
  maxWaitMs: 300_000,
});
export const DEFAULT_USER_LANE: Readonly<LaneLimits> = Object.freeze({ maxQueued: 64, maxWaitMs: 30_000 });

/** Load of one lane: its queue, and for embedded chDB what its session had to clean up. */
export interface LaneLoad extends LaneStats, SessionStats {}

export interface StoreLoad {
  internal: LaneLoad;
  user: LaneLoad;
}

export type StoreMode = 'embedded' | 'server';

export interface Store {
  /** The pipeline's own work: inserts, loader, migrations, keys, audit. */
  readonly client: ClickHouseClient;
  /** Queries made on behalf of API callers: never in the way of `client` (see the file comment). */
  readonly userClient: ClickHouseClient;
  readonly mode: StoreMode;
  /**
   * Whether a result arrives as the engine writes it (a server) or whole, once finished (embedded
   * chDB materialises every result before the first byte), which is what a memory budget for
   * results must count.
   */
  readonly streamsResults: boolean;
  /** Where the data lives: the server URL without credentials, or the chDB directory. */
  readonly location: string;
  /**
   * The `readonly` level a query of `userClient` must ask for in its SETTINGS. 1 (reads only, no
   * setting changes) when it logs in as the pipeline's own user or on embedded chDB; 2 when it logs
   * in as `userAccount`, whose server profile pins readonly = 2 as a constraint: ClickHouse lets a
   * readonly = 2 user change any setting except `readonly` itself, so asking for 1 would be refused,
   * while asking for 2 changes nothing. Either level refuses every write and DDL.
   */
  readonly userReadonly: 1 | 2;
  /**
   * Inserts one block of CSV rows (no header, columns in the given order) as a single insert. The
   * bulk path of the sink: on chDB the bytes go to the engine's own parser without a copy and off
   * the event loop (the generic client path builds one string of query and data and runs it on
   * the calling thread); on a server they are streamed as the request body.
   */
  insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void>;
  /** Queues and clean-ups of the lanes (zeros on a server, which has none). */
  load(): StoreLoad;
  close(): Promise<void>;
}

type ClientConnection =
  NonNullable<Parameters<typeof createClient>[0]> extends { connection?: infer C } ? C : never;

const KNOWN_KEYS = new Set(['url', 'dataDir', 'requestTimeoutMs', 'internalLane', 'userLane', 'userAccount']);
const LANE_KEYS = new Set(['maxQueued', 'maxWaitMs']);
const ACCOUNT_KEYS = new Set(['username', 'password']);
/**
 * ClickHouse user names the HTTP client can send: it logs in with Basic auth, where a `:` would
 * end the name early, and a user of users.d is an XML element name anyway.
 */
const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

// chDB binds one data directory per process (a second path throws, and opening one from a worker
// thread breaks the main thread's session). So the embedded store is a per-process singleton per path.
let embedded: { path: string; store: Store; refs: number } | undefined;

/** `url` without its credentials (for `location`, and for a login that must not take the URL's). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}

function laneLimits(
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
    if (!Number.isInteger(value) || value < 1 || value > 100_000_000) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `store option "${name}.${key}" must be an integer from 1 to 100000000, got ${String(value)}`,
      );
    }
  }
  return limits;
}

const NO_LANE: LaneLoad = Object.freeze({
  running: 0,
  queued: 0,
  refused: 0,
  completed: 0,
  failures: 0,
  staleAnswers: 0,
  replaced: 0,
});

function validate(config: StoreConfig): void {
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

export function createStore(config: StoreConfig = {}): Store {
  validate(config);
  const internalLimits = laneLimits('internalLane', config.internalLane, DEFAULT_INTERNAL_LANE);
  const userLimits = laneLimits('userLane', config.userLane, DEFAULT_USER_LANE);
  if (config.url) {
    const url = config.url;
    const account = config.userAccount;
    // @clickhouse/client lets credentials in the URL override `username`/`password`: a reader login
    // goes with the URL stripped of the pipeline user's credentials.
    const serverClient = (maxOpenConnections: number, login?: UserAccount): ClickHouseClient =>
      createClient({
        ...(login ? { url: redactUrl(url), username: login.username, password: login.password } : { url }),
        request_timeout: config.requestTimeoutMs ?? 300_000,
        max_open_connections: maxOpenConnections,
        compression: { request: false, response: true },
        clickhouse_settings: {
          async_insert: 0,
          wait_end_of_query: 1,
          send_progress_in_http_headers: 1,
          http_headers_progress_interval_ms: '60000',
        },
      });
    const client = serverClient(10);
    // Sockets for callers' queries, apart from the pipeline's: as many as may wait in the lane.
    const userClient = serverClient(Math.min(userLimits.maxQueued, 64), account);
    return {
      client,
      userClient,
      mode: 'server',
      streamsResults: true,
      location: redactUrl(url),
      userReadonly: account ? 2 : 1,
      async insertCsv(table, columns, csv) {
        if (csv.length === 0) return;
        try {
          await client.insert({
            table,
            columns: columns as [string, ...string[]],
            format: 'CSV',
            values: Readable.from([csv], { objectMode: false }),
          });
        } catch (error) {
          throw insertFailed(table, error);
        }
      },
      load: () => ({ internal: { ...NO_LANE }, user: { ...NO_LANE } }),
      async close() {
        await Promise.all([client.close(), userClient.close()]);
      },
    };
  }
  const path = resolve(config.dataDir ?? '.data/chdb');
  if (embedded) {
    if (embedded.path !== path) {
      throw new StoreError(
        'CHDB_PATH_CONFLICT',
        `embedded chDB is already open at ${embedded.path} in this process; one data directory per process (asked for ${path})`,
      );
    }
    embedded.refs += 1;
    return embedded.store;
  }
  const chdbModule = loadChdbConnection();
  const open = () => chdbModule.createChdbConnection({ path });
  const internalLane = new ExclusiveLane('internal', internalLimits);
  const userLane = new ExclusiveLane('user', userLimits);
  const internal = new SessionConnection(open, internalLane);
  const user = new SessionConnection(open, userLane);
  // chdb/connection is typed against its own copy of @clickhouse/client-common; the runtime
  // contract is the same Connection interface, so the cast only bridges the duplicate declarations.
  const client = createClient({ connection: internal as unknown as ClientConnection });
  const userClient = createClient({ connection: user as unknown as ClientConnection });
  const store: Store = {
    client,
    userClient,
    mode: 'embedded',
    streamsResults: false,
    location: path,
    userReadonly: 1,
    async insertCsv(table, columns, csv) {
      if (csv.length === 0) return;
      try {
        // Parsed on one thread: an embedded engine shares the machine with the pipeline it stores,
        // and a block parsed on every core at once stalled the feed path for its duration. (Query
        // level SETTINGS, so nothing leaks into the session.)
        await internal.rawInsert({
          table,
          columns,
          format: 'CSV',
          values: csv,
          settings: { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1 },
        });
      } catch (error) {
        throw insertFailed(table, error);
      }
    },
    async close() {
      if (!embedded || embedded.store !== store) return;
      embedded.refs -= 1;
      if (embedded.refs > 0) return;
      embedded = undefined;
      await Promise.all([client.close(), userClient.close()]);
    },
    load: () => ({
      internal: { ...internalLane.stats, ...internal.stats },
      user: { ...userLane.stats, ...user.stats },
    }),
  };
  embedded = { path, store, refs: 1 };
  return store;
}
