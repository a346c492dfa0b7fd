import { accessSync, constants, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHARED_MEMORY = '/dev/shm';

/** Whether a memory file system (Linux's /dev/shm) takes new directories here. */
export function hasMemoryDir(): boolean {
  try {
    accessSync(SHARED_MEMORY, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** A new directory on the memory file system where there is one, else in the system's temp dir. */
export function memoryTempDir(prefix: string): string {
  return mkdtempSync(join(hasMemoryDir() ? SHARED_MEMORY : tmpdir(), `feedpipe-${prefix}-`));
}
