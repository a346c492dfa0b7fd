/** A migrations directory holding the schema as it was before `version`, for tests of a migration on old data. */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@feedpipe/testkit';
import { DEFAULT_MIGRATIONS_DIR } from '../src/index.js';

export function migrationsBefore(version: number): string {
  const dir = tempDir(`migrations-before-${version}`);
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(DEFAULT_MIGRATIONS_DIR))
    if (file.endsWith('.sql') && Number(file.slice(0, 3)) < version)
      copyFileSync(join(DEFAULT_MIGRATIONS_DIR, file), join(dir, file));
  return dir;
}
