/**
 * Scratch tables of a data rewrite (fill/): a table is rewritten into a copy of its own schema,
 * which then replaces the table's partitions one by one, each swap atomic, so a reader never sees
 * a partition half rewritten.
 */
import { StoreError } from '../errors.js';
import type { StoreLane } from '../port.js';

/** An empty table named `name` with the schema of `like` (an earlier scratch of that name dropped). */
export async function scratchTable(lane: StoreLane, name: string, like: string): Promise<void> {
  await lane.command(`DROP TABLE IF EXISTS ${name}`);
  await lane.command(`CREATE TABLE ${name} AS ${like}`);
}

/** A partition id as the engine writes it (digits for a month); anything else is refused. */
export function checkedPartitionId(id: string, table: string): string {
  if (!/^\w+$/.test(id))
    throw new StoreError('FILL_FAILED', `unexpected partition id ${JSON.stringify(id)} of ${table}`);
  return id;
}

/** Every partition of `from` replaces its namesake in `to`; returns the rows swapped in. */
export async function swapPartitions(lane: StoreLane, from: string, to: string): Promise<number> {
  const parts = await lane.rows<{ p: string; n: number | string }>(
    `SELECT _partition_id AS p, count() AS n FROM ${from} GROUP BY p ORDER BY p`,
  );
  for (const { p } of parts) {
    await lane.command(
      `ALTER TABLE ${to} REPLACE PARTITION ID '${checkedPartitionId(p, from)}' FROM ${from}`,
    );
  }
  return parts.reduce((sum, r) => sum + Number(r.n), 0);
}
