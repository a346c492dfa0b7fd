/**
 * The loader's data tables (migration 003) and the column order rows are built in: the table
 * contracts of @feedpipe/contracts, under the loader's own ids.
 */
import { HISTORY_TABLES } from '@feedpipe/contracts';

export const TABLES = {
  daily: HISTORY_TABLES.candlesDaily,
  intraday: HISTORY_TABLES.candlesIntraday,
  optionChain: HISTORY_TABLES.optionChainSnapshots,
  expiryLists: HISTORY_TABLES.expiryLists,
  expiredOptions: HISTORY_TABLES.expiredOptions,
} as const;

export type TableId = keyof typeof TABLES;
export const TABLE_IDS = Object.keys(TABLES) as TableId[];
