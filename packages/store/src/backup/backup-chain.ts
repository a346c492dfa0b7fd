/**
 * The backups of one directory: each a folder named by its UTC start time (`20261127T114500Z`,
 * sortable as text), complete once ClickHouse wrote its `.backup` descriptor (the last file it
 * writes). The newest complete one is the base of the next incremental backup and what a restore
 * takes by default. Read from the local file system: the embedded engine's backups always are; a
 * server's are when its backup volume is mounted where the command runs (otherwise the caller names
 * the base or the backup to restore).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../errors.js';

export const BACKUP_NAME = /^\d{8}T\d{6}Z(?:-\d{1,3})?$/;
/** The file ClickHouse writes last into a backup: its presence marks the backup complete. */
const DESCRIPTOR = '.backup';

/** Complete backups in `dir`, oldest first; [] when the directory does not exist. */
export function listBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && BACKUP_NAME.test(e.name) && existsSync(join(dir, e.name, DESCRIPTOR)))
    .map((e) => e.name)
    .sort();
}

export function newestBackup(dir: string): string | undefined {
  return listBackups(dir).at(-1);
}

/** A name for a backup started at `now`, after every folder already in `dir` (a second run in the same second gets a suffix). */
export function nextBackupName(dir: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  const taken = new Set(existsSync(dir) ? readdirSync(dir) : []);
  if (!taken.has(stamp)) return stamp;
  for (let i = 1; i < 1_000; i++) if (!taken.has(`${stamp}-${i}`)) return `${stamp}-${i}`;
  throw new StoreError('BACKUP_FAILED', `${dir} has a thousand backups started in the same second`);
}

/** Checks a name given by a caller (a base, a backup to restore) before it goes into a statement. */
export function checkedName(name: string): string {
  if (!BACKUP_NAME.test(name)) {
    throw new StoreError(
      'BACKUP_NOT_FOUND',
      `"${name}" is not a backup name (expected e.g. 20261127T114500Z)`,
    );
  }
  return name;
}
