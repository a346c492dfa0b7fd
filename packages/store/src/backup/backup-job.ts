/**
 * One BACKUP or RESTORE run to its end. Started with ASYNC and followed in `system.backups`
 * (every 200 ms, for at most `timeoutMs`): a server's HTTP request would otherwise have to stay
 * open for the whole copy (a large store takes longer than the store's request timeout), and the
 * same loop serves the embedded engine.
 */
import { StoreError, type StoreErrorCode } from '../errors.js';
import type { StoreLane } from '../port.js';

export interface BackupJob {
  /** The engine's id of the run. */
  id: string;
  /** Files the backup consists of (with those its bases hold). */
  files: number;
  /** Files written into this backup: 0 for a backup in which nothing changed since its base. */
  filesStored: number;
  /** Bytes the backup consists of, its bases' included. */
  bytes: number;
}

const POLL_MS = 200;
/** Where a path goes into a statement's string literal: no quote or backslash to escape. */
const SAFE_PATH = /^\/[^'\\\n]*$/;

/** `File('<path>')`, for an absolute path without a quote or a backslash. */
export function fileTarget(path: string): string {
  if (!SAFE_PATH.test(path)) {
    throw new StoreError(
      'STORE_QUERY_INVALID',
      `backup path must be absolute, without ' or \\: ${JSON.stringify(path)}`,
    );
  }
  return `File('${path}')`;
}

interface JobRow {
  status: string;
  error: string;
  num_files: number | string;
  num_entries: number | string;
  total_size: number | string;
}

/** Runs `statement` (ending in ASYNC) and waits for `done`; any *_FAILED or *_CANCELLED status throws `failCode`. */
export async function runBackupJob(
  lane: StoreLane,
  statement: string,
  done: 'BACKUP_CREATED' | 'RESTORED',
  failCode: StoreErrorCode,
  timeoutMs: number,
): Promise<BackupJob> {
  let id: string | undefined;
  try {
    [{ id } = { id: undefined }] = await lane.rows<{ id: string }>(statement);
  } catch (error) {
    throw new StoreError(failCode, `${statement.split(' ', 1)[0]} refused: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (id === undefined) throw new StoreError(failCode, 'the engine started no backup job');
  const rounds = Math.max(1, Math.ceil(timeoutMs / POLL_MS));
  for (let round = 0; round < rounds; round++) {
    const [row] = await lane.rows<JobRow>(
      'SELECT status, error, num_files, num_entries, total_size FROM system.backups WHERE id = {id:String}',
      { id },
    );
    if (row?.status === done) {
      return {
        id,
        files: Number(row.num_files),
        filesStored: Number(row.num_entries),
        bytes: Number(row.total_size),
      };
    }
    if (row && /FAILED|CANCELLED/.test(row.status)) {
      // The first line: the engine's message without its stack trace.
      throw new StoreError(failCode, `${row.status}: ${row.error.split('\n', 1)[0]}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new StoreError(failCode, `job ${id} did not finish within ${timeoutMs} ms`, { retryable: true });
}
