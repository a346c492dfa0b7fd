import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { StoreError } from './errors.js';

export interface InsertRowsOptions {
  /** Sent as `insert_deduplication_token`: a block replayed with the same token is stored once. */
  deduplicationToken?: string;
  settings?: ClickHouseSettings;
}

/**
 * Inserts one block of rows as JSONCompactEachRow, the fastest format that works through both the
 * HTTP client and the chDB connection (RowBinary does not pass through chDB's connection).
 * Callers batch: one call per large block, never one per row.
 */
export async function insertRows(
  client: ClickHouseClient,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  options: InsertRowsOptions = {},
): Promise<void> {
  if (rows.length === 0) return;
  const settings: ClickHouseSettings = { ...options.settings };
  if (options.deduplicationToken !== undefined) {
    settings.insert_deduplication_token = options.deduplicationToken;
  }
  try {
    await client.insert({
      table,
      columns: columns as [string, ...string[]],
      values: rows as unknown[][],
      format: 'JSONCompactEachRow',
      clickhouse_settings: settings,
    });
  } catch (error) {
    throw new StoreError('INSERT_FAILED', `insert into ${table} failed: ${(error as Error).message}`, {
      cause: error,
      retryable: true,
    });
  }
}
