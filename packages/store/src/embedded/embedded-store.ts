/**
 * The embedded adapter: each lane is one or more chDB sessions behind an exclusive lane
 * (session-connection.ts), reached through `@clickhouse/client`'s API over them. chDB's quirks stay
 * here and in the files beside it: the session clean-up after a failed statement, parameters bound
 * in the statement text (its binding serialises parameterised statements process-wide), the
 * zero-copy CSV insert off the event loop, results handed over whole, HTTP settings it ignores.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { createClient } from '@clickhouse/client';
import type * as ChdbModule from 'chdb';
import type * as ChdbConnectionModule from 'chdb/connection';
import { ClientLane } from '../client-lane.js';
import type { TtlDeletes } from '../config.js';
import { StoreError } from '../errors.js';
import type { Store } from '../store.js';
import { writeEngineSandbox } from './engine-sandbox.js';
import { ExclusiveLane, type LaneLimits } from './exclusive-lane.js';
import { SessionConnection } from './session-connection.js';

/**
 * chDB loaded on first use: its engine is a 566 MB shared library that costs a process ~100 MB of
 * RSS once loaded, which a process on a ClickHouse server (or one that only reads a constant from
 * this package, like the benchmark harness) should not pay.
 */
const loadChdbConnection = (): typeof ChdbConnectionModule =>
  createRequire(import.meta.url)('chdb/connection') as typeof ChdbConnectionModule;
const loadChdb = (): typeof ChdbModule => createRequire(import.meta.url)('chdb') as typeof ChdbModule;

/**
 * The engine of this process, started on `path` with the sandbox's configuration (engine-sandbox.ts).
 * Every later session on the path shares that engine; this one stays open for the store's lifetime
 * so the engine is never restarted without it. Checked, not assumed: an engine someone else started
 * on the path first would have ignored the configuration, and the store refuses to run on it.
 */
function openSandboxedEngine(path: string, engine: EngineOptions): ChdbModule.Session {
  const sandbox = writeEngineSandbox(path, { backupDir: engine.backupDir });
  const anchor = new (loadChdb().Session)(path, { connectionArgs: sandbox.connectionArgs });
  const filesPath = anchor
    .query("SELECT value FROM system.server_settings WHERE name = 'user_files_path'", 'TSVRaw')
    .trim();
  if (filesPath.replace(/\/$/, '') !== sandbox.emptyDir) {
    anchor.close();
    throw new StoreError(
      'STORE_CONFIG_INVALID',
      `embedded chDB at ${path} was started without the store's sandbox configuration (its files folder is ${filesPath}); open the store before anything else opens chDB in this process`,
    );
  }
  return anchor;
}

/**
 * A TTL the store installs (migration 009, applyRetention). With TTL deletes held (`paused`) it is
 * removed again at once, so no table of the store carries one: `SYSTEM STOP TTL MERGES` was tried
 * first and is not enough, since an engine drops expired parts as it opens a data directory,
 * before any statement can stop it, and an ALTER of a table lifts the stop for that table.
 */
const MODIFY_TTL = /^\s*ALTER\s+TABLE\s+([A-Za-z_]\w*\.[A-Za-z_]\w*)\s+MODIFY\s+TTL\b/i;

/** What the engine is started with (StoreConfig's `ttlDeletes`, `backupDir`). */
export interface EngineOptions {
  ttlDeletes: TtlDeletes;
  backupDir: string | undefined;
}

type ClientConnection =
  NonNullable<Parameters<typeof createClient>[0]> extends { connection?: infer C } ? C : never;

/**
 * Parsed on one thread: an embedded engine shares the machine with the pipeline it stores, and a
 * block parsed on every core at once stalled the feed path for its duration. (Query level
 * SETTINGS of the raw insert, so nothing leaks into the session.)
 */
const CSV_INSERT_SETTINGS = { input_format_parallel_parsing: 0, max_threads: 1, max_insert_threads: 1 };

// chDB binds one data directory per process (a second path throws, and opening one from a worker
// thread breaks the main thread's session). So the embedded store is a per-process singleton per path.
let embedded: { path: string; backupDir: string | undefined; store: Store; refs: number } | undefined;

export function createEmbeddedStore(
  dataDir: string | undefined,
  limits: { internal: LaneLimits; user: LaneLimits },
  engine: EngineOptions = { ttlDeletes: 'run', backupDir: undefined },
): Store {
  const path = resolve(dataDir ?? '.data/chdb');
  const backupDir = engine.backupDir === undefined ? undefined : resolve(engine.backupDir);
  if (embedded) {
    if (embedded.path !== path) {
      throw new StoreError(
        'CHDB_PATH_CONFLICT',
        `embedded chDB is already open at ${embedded.path} in this process; one data directory per process (asked for ${path})`,
      );
    }
    // The engine reads its backup path once, at start: a second opener cannot widen it.
    if (backupDir !== undefined && embedded.backupDir !== backupDir) {
      throw new StoreError(
        'STORE_CONFIG_INVALID',
        `embedded chDB at ${path} is already open in this process with ${embedded.backupDir === undefined ? 'no backup directory' : `backup directory ${embedded.backupDir}`}, not ${backupDir}; back up from a process that opens the store with it first`,
      );
    }
    embedded.refs += 1;
    return embedded.store;
  }
  const anchor = openSandboxedEngine(path, { ...engine, backupDir });
  const paused = engine.ttlDeletes === 'paused';
  const chdbModule = loadChdbConnection();
  const open = () => chdbModule.createChdbConnection({ path });
  const internalLane = new ExclusiveLane('internal', limits.internal);
  const userLane = new ExclusiveLane('user', limits.user);
  const internal = new SessionConnection(open, internalLane);
  const user = new SessionConnection(open, userLane);
  // chdb/connection is typed against its own copy of @clickhouse/client-common; the runtime
  // contract is the same Connection interface, so the cast only bridges the duplicate declarations.
  const client = createClient({ connection: internal as unknown as ClientConnection });
  const userClient = createClient({ connection: user as unknown as ClientConnection });
  const lane = (name: 'internal' | 'user', on: SessionConnection, over: typeof client) =>
    new ClientLane({
      client: over,
      name,
      // chDB materialises a result before its first byte, and drops HTTP transport settings.
      streamsResults: false,
      turns: limits[name],
      readonlyLevel: 1,
      bindsInline: true,
      // The engine's own CSV parser, fed the buffer without a copy, off the event loop (the
      // generic client path builds one string of query and data on the calling thread).
      insertCsv: (table, columns, csv) =>
        on.rawInsert({ table, columns, format: 'CSV', values: csv, settings: CSV_INSERT_SETTINGS }),
      afterAlter: paused
        ? async (sql) => {
            const table = MODIFY_TTL.exec(sql)?.[1];
            if (table !== undefined) await over.command({ query: `ALTER TABLE ${table} REMOVE TTL` });
          }
        : undefined,
    });
  const store: Store = {
    internal: lane('internal', internal, client),
    user: lane('user', user, userClient),
    mode: 'embedded',
    streamsResults: false,
    location: path,
    userReadonly: 1,
    async close() {
      if (!embedded || embedded.store !== store) return;
      embedded.refs -= 1;
      if (embedded.refs > 0) return;
      embedded = undefined;
      await Promise.all([client.close(), userClient.close()]);
      anchor.close();
    },
    load: () => ({
      internal: { ...internalLane.stats, ...internal.stats },
      user: { ...userLane.stats, ...user.stats },
    }),
  };
  embedded = { path, backupDir, store, refs: 1 };
  return store;
}
