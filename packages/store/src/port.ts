/**
 * The port: what the rest of the project may do with the store, one lane at a time. Services and
 * packages see only this interface; the drivers (`@clickhouse/client` for a server, chDB for the
 * embedded engine) and their quirks stay behind it, in this package's adapters (server/, embedded/).
 *
 * Shaped like clickhouse-js's `Connection`: a few operations, each complete in itself, so an
 * adapter can run each one whole (the embedded adapter runs every operation alone on its session
 * and cleans the session up inside the same turn after a failure; see embedded/).
 */
import type { Readable } from 'node:stream';
import type { LaneLimits } from './embedded/exclusive-lane.js';

/**
 * A value bound to a `{name:Type}` placeholder of a statement, never spliced into the SQL text:
 * scalars, arrays (Array, Tuple) and objects (Map). null and undefined bind NULL.
 */
export type QueryParam =
  | string
  | number
  | bigint
  | boolean
  | Date
  | null
  | undefined
  | readonly QueryParam[]
  | { readonly [key: string]: QueryParam };
export type QueryParams = Readonly<Record<string, QueryParam>>;

/** A query-scoped ClickHouse setting: see settings.ts for why these go into the SQL text. */
export type SettingValue = number | string;
export type QuerySettings = Readonly<Record<string, SettingValue>>;

/** Output formats a byte stream can be asked for (ClickHouse writes each one itself). */
export const STREAM_FORMATS = [
  'JSON',
  'JSONCompact',
  'JSONStrings',
  'JSONEachRow',
  'JSONCompactEachRow',
  'JSONCompactEachRowWithNamesAndTypes',
  'CSV',
  'CSVWithNames',
  'CSVWithNamesAndTypes',
  'TabSeparated',
  'TabSeparatedRaw',
  'TabSeparatedWithNames',
  'TabSeparatedWithNamesAndTypes',
  'Values',
  'PrettyCompact',
  'Arrow',
  'ArrowStream',
  'Parquet',
  'Native',
  'RowBinary',
  'RowBinaryWithNames',
  'RowBinaryWithNamesAndTypes',
] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** One lane of work on the store: the pipeline's own (`Store.internal`) or callers' (`Store.user`). */
export interface StoreLane {
  /** Which lane this is. */
  readonly name: 'internal' | 'user';
  /**
   * Whether a result arrives as the engine writes it (a server) or whole, once finished (embedded
   * chDB materialises every result before the first byte), which is what a memory budget for
   * results must count.
   */
  readonly streamsResults: boolean;
  /**
   * Where the adapter itself runs statements in turns (embedded chDB: `sessions` at once, one per
   * session, at most `maxQueued` waiting, each at most `maxWaitMs`): those limits; undefined where
   * the engine schedules statements (a server). A caller that must hold memory for a whole result
   * can wait for a turn of its own, one per session, before it reserves that memory.
   */
  readonly turns: Readonly<LaneLimits> | undefined;
  /**
   * The `readonly` level a caller's query on this lane must ask for in its settings. 1 (reads only,
   * no setting changes) for the pipeline's own login and on embedded chDB; 2 when the lane logs in
   * as a server user whose profile pins readonly = 2 as a constraint: ClickHouse lets a readonly = 2
   * user change any setting except `readonly` itself, so asking for 1 would be refused, while
   * asking for 2 changes nothing. Either level refuses every write and DDL.
   */
  readonly readonlyLevel: 1 | 2;
  /** The rows of a SELECT, parsed (JSONEachRow: 64-bit integers arrive as strings unless a setting says otherwise). */
  rows<T>(sql: string, params?: QueryParams, settings?: QuerySettings): Promise<T[]>;
  /**
   * The result as bytes of `format`. Errors before the first byte reject the promise; later ones
   * destroy the stream. A server sends blocks as they are produced; embedded chDB hands over a
   * finished buffer (see `streamsResults`).
   */
  stream(sql: string, params: QueryParams, format: StreamFormat, settings?: QuerySettings): Promise<Readable>;
  /** A statement without a result (DDL, SYSTEM, INSERT ... SELECT). */
  command(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts one block of rows (values in `columns` order) as a single insert, as
   * JSONCompactEachRow: the fastest format that works through both adapters (RowBinary does not
   * pass through chDB's connection). Callers batch: one call per large block, never one per row.
   * No per-insert settings on purpose: through the chDB connection they would become session-wide
   * SET statements that outlive the call (an insert_deduplication_token would then silently drop
   * every later insert of the process). Idempotence comes from the data instead (the sink's stored
   * offsets, ReplacingMergeTree keys). Throws INSERT_FAILED (retryable).
   */
  insertRows(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): Promise<void>;
  /**
   * Inserts one block of CSV rows (no header, columns in the given order) as a single insert. The
   * bulk path of the sink: on chDB the bytes go to the engine's own parser without a copy and off
   * the event loop (the generic client path builds one string of query and data and runs it on
   * the calling thread); on a server they are streamed as the request body. Throws INSERT_FAILED.
   */
  insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void>;
}
