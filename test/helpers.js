import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
/** A fresh directory for one test file's embedded chDB or capture files. */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `feedpipe-${prefix}-`));
}
/** A name no other test uses, for topics, consumer groups and tables. */
export function uniqueName(prefix) {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
//# sourceMappingURL=helpers.js.map
