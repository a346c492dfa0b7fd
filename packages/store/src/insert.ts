import type { ClickHouseClient } from '@clickhouse/client';
import { insertFailed } from './errors.js';

/**
 * Inserts one block of rows as JSONCompactEachRow, the fastest format that works through both the
 * HTTP client and the chDB connection (RowBinary does not pass through chDB's connection).
 * Callers batch: one call per large block, never one per row.
 *
 * No per-insert ClickHouse settings on purpose: through the chDB connection they become session-wide
 * SET statements that outlive the call (an insert_deduplication_token would then silently drop
 * every later insert of the process). Idempotence comes from the data instead (the sink's stored
 * offsets, ReplacingMergeTree keys).
 */
export async function insertRows(
  client: ClickHouseClient,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
): Promise<void> {
  if (rows.length === 0) return;
  try {
    await client.insert({
      table,
      columns: columns as [string, ...string[]],
      values: rows as unknown[][],
      format: 'JSONCompactEachRow',
    });
  } catch (error) {
    throw insertFailed(table, error);
  }
}
