/**
 * The dead-letter table (packages/store migration 006): postbacks that were acknowledged but
 * cannot be stored, with the reason and the body exactly as received. The body is written as a
 * string, never re-serialised from the parsed object, so a record that broke serialisation can
 * still be kept here.
 */
import { createHash } from 'node:crypto';
import { type ClickHouseClient, insertRows } from '@feedpipe/store';
import type { DeadLetter } from './pipeline.js';

export const DEAD_LETTER_COLUMNS = [
  'received_at',
  'body_sha256',
  'wal_seq',
  'source',
  'stage',
  'reason',
  'payload',
  'dead_at',
] as const;

const utc = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Reasons are cut at this length: an error message can quote the whole record. */
const MAX_REASON = 1_000;

export function writeDeadLetters(
  client: ClickHouseClient,
  table: string,
  letters: readonly DeadLetter[],
  now: number,
): Promise<void> {
  return insertRows(
    client,
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

export async function readDeadLetters(client: ClickHouseClient, table: string): Promise<StoredDeadLetter[]> {
  const result = await client.query({
    query: `SELECT stage, reason, payload, wal_seq FROM ${table} FINAL ORDER BY received_at, wal_seq`,
    format: 'JSONEachRow',
  });
  const rows = await result.json<{
    stage: string;
    reason: string;
    payload: string;
    wal_seq: string | number;
  }>();
  return rows.map((r) => ({
    stage: r.stage,
    reason: r.reason,
    payload: r.payload,
    walSeq: Number(r.wal_seq),
  }));
}
