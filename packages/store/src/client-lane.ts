/**
 * The port's operations over a `@clickhouse/client` client: the one implementation both adapters
 * share. The server adapter hands it an HTTP client; the embedded adapter a client whose
 * connection is a chDB session behind an exclusive lane (embedded/session-connection.ts). What
 * differs between them is passed in (`LaneDriver`), so no caller ever learns which one it has.
 */
import type { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
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
  /**
   * Driver settings of `stream`. Only transport settings belong here (a server's
   * wait_end_of_query); query settings go into the SQL text (settings.ts).
   */
  readonly streamTransport?: ClickHouseSettings | undefined;
  /** The adapter's bulk CSV insert; called with a non-empty block. */
  readonly insertCsv: (table: string, columns: readonly string[], csv: Buffer) => Promise<void>;
}

const FORMATS: ReadonlySet<string> = new Set(STREAM_FORMATS);

export class ClientLane implements StoreLane {
  readonly name: StoreLane['name'];
  readonly streamsResults: boolean;
  readonly readonlyLevel: 1 | 2;
  readonly #driver: LaneDriver;

  constructor(driver: LaneDriver) {
    this.#driver = driver;
    this.name = driver.name;
    this.streamsResults = driver.streamsResults;
    this.readonlyLevel = driver.readonlyLevel;
  }

  async rows<T>(sql: string, params: QueryParams = {}, settings?: QuerySettings): Promise<T[]> {
    const result = await this.#driver.client.query({
      query: withSettings(sql, settings),
      query_params: params,
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
    const result = await this.#driver.client.exec({
      query: `${withSettings(sql, settings)}\nFORMAT ${format}`,
      query_params: params,
      ...(this.#driver.streamTransport ? { clickhouse_settings: this.#driver.streamTransport } : {}),
    });
    return result.stream;
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.#driver.client.command({ query: sql, query_params: params });
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
