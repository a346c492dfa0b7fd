/**
 * One factory for a `ClickHouseClient`: over a ClickHouse server when a URL is given, otherwise over
 * embedded chDB under a data directory. Both paths hand back the same `@clickhouse/client` API, so
 * every caller (migrations, sink, loader, query API) runs the same code in tests and in production.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import type * as ChdbConnectionModule from 'chdb/connection';
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
}

export type StoreMode = 'embedded' | 'server';

export interface Store {
  readonly client: ClickHouseClient;
  readonly mode: StoreMode;
  /** Where the data lives: the server URL without credentials, or the chDB directory. */
  readonly location: string;
  /**
   * Inserts one block of CSV rows (no header, columns in the given order) as a single insert. The
   * bulk path of the sink: on chDB the bytes go to the engine's own parser without a copy and off
   * the event loop (the generic client path builds one string of query and data and runs it on
   * the calling thread); on a server they are streamed as the request body.
   */
  insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void>;
  close(): Promise<void>;
}

type ClientConnection =
  NonNullable<Parameters<typeof createClient>[0]> extends { connection?: infer C } ? C : never;

const KNOWN_KEYS = new Set(['url', 'dataDir', 'requestTimeoutMs']);

// chDB binds one data directory per process (a second path throws, and opening one from a worker
// thread breaks the main thread's session). So the embedded store is a per-process singleton per path.
let embedded: { path: string; store: Store; refs: number } | undefined;

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
}

export function createStore(config: StoreConfig = {}): Store {
  validate(config);
  if (config.url) {
    const client = createClient({
      url: config.url,
      request_timeout: config.requestTimeoutMs ?? 300_000,
      compression: { request: false, response: true },
      clickhouse_settings: {
        async_insert: 0,
        wait_end_of_query: 1,
        send_progress_in_http_headers: 1,
        http_headers_progress_interval_ms: '60000',
      },
    });
    return {
      client,
      mode: 'server',
      location: redactUrl(config.url),
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
      close: () => client.close(),
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
  // chdb/connection is typed against its own copy of @clickhouse/client-common; the runtime
  // contract is the same Connection interface, so the cast only bridges the duplicate declarations.
  const chdb = loadChdbConnection().createChdbConnection({ path });
  const connection = chdb as unknown as ClientConnection;
  const client = createClient({ connection });
  const store: Store = {
    client,
    mode: 'embedded',
    location: path,
    async insertCsv(table, columns, csv) {
      if (csv.length === 0) return;
      try {
        // Parsed on one thread: an embedded engine shares the machine with the pipeline it stores,
        // and a block parsed on every core at once stalled the feed path for its duration. (Query
        // level SETTINGS, so nothing leaks into the session.)
        await chdb.chdb.rawInsert({
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
      await client.close();
    },
  };
  embedded = { path, store, refs: 1 };
  return store;
}
