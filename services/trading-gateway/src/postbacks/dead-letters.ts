/**
 * The dead-letter table (packages/store migration 006): postbacks that were acknowledged but
 * cannot be stored, with the reason and the body exactly as received. The body is written as a
 * string, never re-serialised from the parsed object, so a record that broke serialisation can
 * still be kept here.
 */
import { createHash } from 'node:crypto';
import { SERVICE_TABLES } from '@feedpipe/contracts';
import type { StoreLane } from '@feedpipe/store';
import type { DeadLetter } from './pipeline.js';

export const DEAD_LETTER_COLUMNS = SERVICE_TABLES.postbackDeadLetters.columns;

const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Reasons are cut at this length: an error message can quote the whole record. */
const MAX_REASON = 1_000;

export function writeDeadLetters(
  store: StoreLane,
  table: string,
  letters: readonly DeadLetter[],
  now: number,
): Promise<void> {
  return store.insertRows(
    table,
    DEAD_LETTER_COLUMNS,
    letters.map((l) => [
      utc(l.receivedAtMs),
      createHash('sha256').update(l.body).digest('hex'),
      l.seq,
      l.source,
      l.stage,
      l.reason.slice(0, MAX_REASON),
      l.body,
      utc(now),
    ]),
  );
}

export interface StoredDeadLetter {
  stage: string;
  reason: string;
  payload: string;
  walSeq: number;
}

export async function readDeadLetters(store: StoreLane, table: string): Promise<StoredDeadLetter[]> {
  const rows = await store.rows<{
    stage: string;
    reason: string;
    payload: string;
    wal_seq: string | number;
  }>(`SELECT stage, reason, payload, wal_seq FROM ${table} FINAL ORDER BY received_at, wal_seq`);
  return rows.map((r) => ({
    stage: r.stage,
    reason: r.reason,
    payload: r.payload,
    walSeq: Number(r.wal_seq),
  }));
}
