/**
 * The port's operations over a `@clickhouse/client` client: the one implementation both adapters
 * share. The server adapter hands it an HTTP client; the embedded adapter a client whose
 * connection is a chDB session behind an exclusive lane (embedded/session-connection.ts). What
 * differs between them is passed in (`LaneDriver`), so no caller ever learns which one it has.
 */
import type { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { bindInline } from './binding/inline-binding.js';
import type { LaneLimits } from './embedded/exclusive-lane.js';
import { insertFailed, StoreError } from './errors.js';
import {
  type QueryParams,
  type QuerySettings,
  STREAM_FORMATS,
  type StoreLane,
  type StreamFormat,
} from './port.js';
import { withSettings } from './settings.js';

/** What an adapter adds to the shared operations. */
export interface LaneDriver {
  readonly client: ClickHouseClient;
  readonly name: StoreLane['name'];
  readonly streamsResults: boolean;
  readonly readonlyLevel: 1 | 2;
  /** See `StoreLane.turns`; undefined when absent. */
  readonly turns?: Readonly<LaneLimits>;
  /**
   * Driver settings of `stream`. Only transport settings belong here (a server's
   * wait_end_of_query); query settings go into the SQL text (settings.ts).
   */
  readonly streamTransport?: ClickHouseSettings | undefined;
  /**
   * Bind `{name:Type}` placeholders in the statement text (binding/inline-binding.ts) instead of
   * passing parameters to the driver: the embedded engine's driver runs parameterised statements
   * one at a time process-wide. A server binds per request, so it keeps the driver's parameters.
   */
  readonly bindsInline: boolean;
  /**
   * Run after each ALTER TABLE that succeeded, with its text: the embedded adapter keeps TTLs off
   * the tables there when the store holds TTL deletes (`ttlDeletes: 'paused'`, config.ts).
   */
  readonly afterAlter?: ((sql: string) => Promise<void>) | undefined;
  /** The adapter's bulk CSV insert; called with a non-empty block. */
  readonly insertCsv: (table: string, columns: readonly string[], csv: Buffer) => Promise<void>;
}

const FORMATS: ReadonlySet<string> = new Set(STREAM_FORMATS);
const ALTER = /^\s*ALTER\s+TABLE\b/i;

export class ClientLane implements StoreLane {
  readonly name: StoreLane['name'];
  readonly streamsResults: boolean;
  readonly readonlyLevel: 1 | 2;
  readonly turns: Readonly<LaneLimits> | undefined;
  readonly #driver: LaneDriver;

  constructor(driver: LaneDriver) {
    this.#driver = driver;
    this.name = driver.name;
    this.streamsResults = driver.streamsResults;
    this.readonlyLevel = driver.readonlyLevel;
    this.turns = driver.turns;
  }

  async rows<T>(sql: string, params: QueryParams = {}, settings?: QuerySettings): Promise<T[]> {
    const bound = this.#bind(sql, params);
    const result = await this.#driver.client.query({
      query: withSettings(bound.sql, settings),
      query_params: bound.params,
      format: 'JSONEachRow',
    });
    return result.json<T>();
  }

  async stream(
    sql: string,
    params: QueryParams,
    format: StreamFormat,
    settings?: QuerySettings,
  ): Promise<Readable> {
    if (!FORMATS.has(format)) {
      throw new StoreError('STORE_QUERY_INVALID', `unknown output format ${String(format)}`);
    }
    const bound = this.#bind(sql, params);
    const result = await this.#driver.client.exec({
      query: `${withSettings(bound.sql, settings)}\nFORMAT ${format}`,
      query_params: bound.params,
      ...(this.#driver.streamTransport ? { clickhouse_settings: this.#driver.streamTransport } : {}),
    });
    return result.stream;
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    const bound = this.#bind(sql, params);
    await this.#driver.client.command({ query: bound.sql, query_params: bound.params });
    if (this.#driver.afterAlter && ALTER.test(sql)) await this.#driver.afterAlter(sql);
  }

  /** The statement and the parameters left for the driver (none once bound in the text). */
  #bind(sql: string, params: QueryParams): { sql: string; params: QueryParams } {
    if (!this.#driver.bindsInline || Object.keys(params).length === 0) return { sql, params };
    const bound = bindInline(sql, params);
    return bound === undefined ? { sql, params } : { sql: bound, params: {} };
  }

  async insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly (readonly unknown[])[],
  ): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.#driver.client.insert({
        table,
        columns: columns as [string, ...string[]],
        values: rows as unknown[][],
        format: 'JSONCompactEachRow',
      });
    } catch (error) {
      throw insertFailed(table, error);
    }
  }

  async insertCsv(table: string, columns: readonly string[], csv: Buffer): Promise<void> {
    if (csv.length === 0) return;
    try {
      await this.#driver.insertCsv(table, columns, csv);
    } catch (error) {
      throw insertFailed(table, error);
    }
  }
}
