import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for one test file's embedded chDB or capture files. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `feedpipe-${prefix}-`));
}

/** A name no other test uses, for topics, consumer groups and tables. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Polls `check` until it returns true or `timeoutMs` passes; bounded in time, never spins. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  /** What is awaited; a function is asked at the time-out, so it can say what it saw last. */
  what: string | (() => string),
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`,
  );
}
