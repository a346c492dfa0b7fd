import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContractError } from '../errors.js';
import type { MigrationSource } from './cluster-ddl.js';

/**
 * The single-node migrations of this repository. A path, not an import: the store package owns the
 * files and applies them; contracts only reads them to derive the cluster DDL.
 */
export const STORE_MIGRATIONS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'store',
  'migrations',
);

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/** Every `NNN_name.sql` of `dir`, in version order. */
export function readMigrationSources(dir: string = STORE_MIGRATIONS_DIR): MigrationSource[] {
  const sources: MigrationSource[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_PATTERN.exec(file);
    if (!match) {
      throw new ContractError(
        'DDL_INPUT_INVALID',
        `${join(dir, file)}: migrations are named NNN_snake_name.sql`,
      );
    }
    sources.push({
      version: Number(match[1]),
      name: match[2] ?? '',
      sql: readFileSync(join(dir, file), 'utf8'),
    });
  }
  if (sources.length === 0) throw new ContractError('DDL_INPUT_INVALID', `${dir} holds no migration`);
  return sources;
}
