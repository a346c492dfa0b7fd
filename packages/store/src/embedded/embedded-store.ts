/**
 * The embedded adapter: each lane is one or more chDB sessions behind an exclusive lane
 * (session-connection.ts), reached through `@clickhouse/client`'s API over them. chDB's quirks stay
 * here and in the files beside it: the session clean-up after a failed statement, parameters bound
 * in the statement text (its binding serialises parameterised statements process-wide), the
 * zero-copy CSV insert off the event loop, results handed over whole, HTTP settings it ignores.
 */
import { resolve } from 'node:path';
import { createClient } from '@clickhouse/client';
import { ClientLane } from '../client-lane.js';
import type { TtlDeletes } from '../config.js';
import { StoreError } from '../errors.js';
import type { Store } from '../store.js';
import { EngineProcess } from './engine-process/engine-process.js';
import { type EngineIsolationSetting, isolationOf } from './engine-process/jail.js';
import { writeEngineSandbox } from './engine-sandbox.js';
import { ExclusiveLane, type LaneLimits } from './exclusive-lane.js';
import { SessionConnection } from './session-connection.js';

/**
 * The engine's process, started with the sandbox's configuration (engine-sandbox.ts) in the
 * isolation asked for (engine-process/jail.ts). The host script checks that the engine took the
 * configuration before it answers anything: an engine that ignored it is refused.
 */
function startEngineProcess(path: string, engine: EngineOptions): EngineProcess {
  const sandbox = writeEngineSandbox(path, { backupDir: engine.backupDir });
  return new EngineProcess({
    dataDir: path,
    configFile: sandbox.configFile,
    emptyDir: sandbox.emptyDir,
    backupDir: engine.backupDir,
    isolation: isolationOf(engine.isolation),
    log: (line) => process.stderr.write(`[embedded engine] ${line}\n`),
  });
}

/**
 * A TTL the store installs (migration 009, applyRetention). With TTL deletes held (`paused`) it is
 * removed again at once, so no table of the store carries one: `SYSTEM STOP TTL MERGES` was tried
 * first and is not enough, since an engine drops expired parts as it opens a data directory,
 * before any statement can stop it, and an ALTER of a table lifts the stop for that table.
 */
const MODIFY_TTL = /^\s*ALTER\s+TABLE\s+([A-Za-z_]\w*\.[A-Za-z_]\w*)\s+MODIFY\s+TTL\b/i;

/** What the engine is started with (StoreConfig's `ttlDeletes`, `backupDir`, `engineIsolation`). */
export interface EngineOptions {
  ttlDeletes: TtlDeletes;
  backupDir: string | undefined;
  isolation: EngineIsolationSetting;
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
  engine: EngineOptions = { ttlDeletes: 'run', backupDir: undefined, isolation: 'auto' },
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
  const engineProcess = startEngineProcess(path, { ...engine, backupDir });
  const paused = engine.ttlDeletes === 'paused';
  const open = () => engineProcess.openSession();
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
      await engineProcess.close();
    },
    load: () => ({
      internal: { ...internalLane.stats, ...internal.stats },
      user: { ...userLane.stats, ...user.stats },
    }),
  };
  embedded = { path, backupDir, store, refs: 1 };
  return store;
}
