/**
 * Versioned, idempotent schema migrations. Files are `NNN_name.sql` in a migrations directory;
 * statements are separated by a line ending in `;`. Applied versions are recorded in
 * `market.schema_migrations`, and every statement is written to be safe to run again
 * (`IF NOT EXISTS`), so a run interrupted between a statement and its record heals on the next run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationSource } from './ddl/cluster-ddl.js';
import { splitStatements } from './ddl/sql-statements.js';
import { StoreError } from './errors.js';
import { fillTradeQuantities } from './fill/fill-trade-quantities.js';
import { rebuildExactBars } from './fill/rebuild-exact-bars.js';
import type { StoreLane } from './port.js';

export const DEFAULT_MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/**
 * Every `NNN_name.sql` of `dir` as written, in version order: the one reader of migration files,
 * for the runner below and the cluster DDL generator (ddl/cluster-ddl.ts), so both see the same set.
 */
export function readMigrationSources(dir: string = DEFAULT_MIGRATIONS_DIR): MigrationSource[] {
  const sources: MigrationSource[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_PATTERN.exec(file);
    if (!match) {
      throw new StoreError(
        'MIGRATION_FILE_INVALID',
        `${join(dir, file)}: migrations are named NNN_snake_name.sql`,
      );
    }
    const version = Number(match[1]);
    if (sources.some((m) => m.version === version)) {
      throw new StoreError('MIGRATION_FILE_INVALID', `two migrations of ${dir} share version ${version}`);
    }
    sources.push({ version, name: match[2] ?? file, sql: readFileSync(join(dir, file), 'utf8') });
  }
  if (sources.length === 0) throw new StoreError('MIGRATION_FILE_INVALID', `${dir} holds no migration`);
  return sources;
}

export function loadMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  return readMigrationSources(dir).map(({ version, name, sql }) => ({
    version,
    name,
    statements: splitStatements(sql),
  }));
}

/**
 * Data a migration's statements cannot rewrite, rewritten once right after it is applied (before
 * it is recorded, so a run stopped in between does it again): migration 013's quantity column is
 * filled for the ticks stored before it, with the 1-minute bars rebuilt from them; migration 015's
 * exact open and close states are filled for the bars stored before it.
 */
const AFTER_APPLY: ReadonlyMap<number, (lane: StoreLane) => Promise<unknown>> = new Map([
  [13, fillTradeQuantities],
  [15, rebuildExactBars],
]);

export interface MigrationResult {
  applied: number[];
  skipped: number[];
}

export async function runMigrations(
  lane: StoreLane,
  dir: string = DEFAULT_MIGRATIONS_DIR,
): Promise<MigrationResult> {
  const migrations = loadMigrations(dir);
  await lane.command('CREATE DATABASE IF NOT EXISTS market');
  await lane.command(
    `CREATE TABLE IF NOT EXISTS market.schema_migrations
      (version UInt32, name String, applied_at DateTime64(3) DEFAULT now64(3))
      ENGINE = ReplacingMergeTree ORDER BY version`,
  );
  const rows = await lane.rows<{ version: number | string }>(
    'SELECT DISTINCT version FROM market.schema_migrations',
  );
  const done = new Set(rows.map((r) => Number(r.version)));
  const result: MigrationResult = { applied: [], skipped: [] };
  for (const migration of migrations) {
    if (done.has(migration.version)) {
      result.skipped.push(migration.version);
      continue;
    }
    for (const statement of migration.statements) {
      try {
        await lane.command(statement);
      } catch (error) {
        throw new StoreError(
          'MIGRATION_FAILED',
          `migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    try {
      await AFTER_APPLY.get(migration.version)?.(lane);
    } catch (error) {
      throw new StoreError(
        'MIGRATION_FAILED',
        `migration ${migration.version}_${migration.name} failed rewriting its data: ${(error as Error).message}`,
        { cause: error },
      );
    }
    await lane.insertRows(
      'market.schema_migrations',
      ['version', 'name'],
      [[migration.version, migration.name]],
    );
    result.applied.push(migration.version);
  }
  return result;
}
