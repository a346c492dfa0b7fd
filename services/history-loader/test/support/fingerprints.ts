/**
 * Table fingerprints for comparing two stores: rows after FINAL and an order-independent checksum
 * of every column except loaded_at (the one column two loads of the same data differ in).
 */

import { HISTORY_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import { TABLES } from '../../src/tables.js';

/** Every column the loader writes, but loaded_at. */
function dataColumns(table: { name: string; columns: readonly string[] }): [string, string[]] {
  return [table.name, table.columns.filter((c) => c !== 'loaded_at')];
}

export const FINGERPRINT_TABLES: Record<string, string[]> = {
  ...Object.fromEntries(
    [TABLES.daily, TABLES.intraday, TABLES.expiredOptions, TABLES.expiryLists].map(dataColumns),
  ),
  // Live prices move between runs: only the snapshot's shape (which strikes and sides) is compared.
  [HISTORY_TABLES.optionChainSnapshots.name]: [
    'underlying_id',
    'underlying_segment',
    'expiry',
    'slot',
    'strike',
    'side',
  ],
  [HISTORY_TABLES.loadUnits.name]: [
    'kind',
    'security_id',
    'segment',
    'interval',
    'variant',
    'window_from',
    'window_to',
    'status',
    'rows',
  ],
};

export interface Fingerprint {
  rows: number;
  rawRows: number;
  checksum: string;
}

export async function fingerprints(store: StoreLane): Promise<Record<string, Fingerprint>> {
  const out: Record<string, Fingerprint> = {};
  for (const [table, columns] of Object.entries(FINGERPRINT_TABLES)) {
    const [row] = await store.rows<{ fp_rows: number | string; fp_raw: number | string; fp_sum: string }>(
      `SELECT count() AS fp_rows, toString(groupBitXor(cityHash64(${columns.join(', ')}))) AS fp_sum,
         (SELECT count() FROM ${table}) AS fp_raw
       FROM ${table} FINAL`,
    );
    out[table] = {
      rows: Number(row?.fp_rows ?? 0),
      rawRows: Number(row?.fp_raw ?? 0),
      checksum: row?.fp_sum ?? '',
    };
  }
  return out;
}
