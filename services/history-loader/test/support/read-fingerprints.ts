/**
 * Child-process reader: opens the store of the loader run whose DATA_DIR is argv[2] (chDB lives in
 * DATA_DIR/chdb, one data directory per process) and prints fingerprints.
 */
import { join } from 'node:path';
import { HISTORY_TABLES } from '@feedpipe/contracts';
import { createStore } from '@feedpipe/store';
import { fingerprints } from './fingerprints.js';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: read-fingerprints <data dir>');
const store = createStore({ dataDir: join(dir, 'chdb') });
const prints = await fingerprints(store.internal);
const [snapshots] = await store.internal.rows<{ n: number | string }>(
  `SELECT count() AS n FROM (SELECT DISTINCT underlying_id, expiry, slot FROM ${HISTORY_TABLES.optionChainSnapshots.name} FINAL)`,
);
await store.close();
process.stdout.write(`${JSON.stringify({ prints, snapshots: Number(snapshots?.n ?? 0) })}\n`);
