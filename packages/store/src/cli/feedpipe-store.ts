/**
 * feedpipe-store backup --to DIR [--base NAME | --full]
 * feedpipe-store restore --from DIR [--name NAME] [--replace]
 * feedpipe-store retention
 *
 * The store's own operations, on the store the pipeline uses: CLICKHOUSE_URL (a server), else
 * embedded chDB in `$DATA_DIR/chdb` (DATA_DIR default `.data`), as the sink opens it.
 *
 * Why a bin of packages/store and not a service or a package of its own: a backup is an operation
 * of the store (its one database, its two adapters, the engine's BACKUP/RESTORE and the embedded
 * engine's backup path, which only this package configures), needs nothing of Kafka or HTTP, and
 * must reach the driver, which only this package may import (test/workspace-boundaries.test.ts).
 *
 * Embedded chDB locks its data directory: stop the processes that use it (the sink, `npm start`)
 * before a backup or a restore; Kafka holds the feed meanwhile, and the sink catches up from the
 * offsets stored in the rows. On a server, DIR is a path of the server's file system inside its
 * `<backups><allowed_path>`; the sink may keep running during a backup (backup-store.ts says what
 * that costs) but not during a restore. Prints one JSON line with the outcome; exit 1 with the
 * error's code and message on failure, 2 on a usage error.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupStore } from '../backup/backup-store.js';
import { restoreStore } from '../backup/restore-store.js';
import { createStore } from '../create-store.js';
import { STORE_ENV, storeConfigOf } from '../env/store-env.js';
import { StoreError } from '../errors.js';
import { runMigrations } from '../migrations.js';
import { applyRetention } from '../retention/apply-retention.js';
import { retentionFromEnv } from '../retention/retention-env.js';
import type { Store } from '../store.js';

const USAGE = `usage: feedpipe-store backup --to DIR [--base NAME | --full]
       feedpipe-store restore --from DIR [--name NAME] [--replace]
       feedpipe-store retention
env: CLICKHOUSE_URL (a server) or DATA_DIR (embedded chDB in $DATA_DIR/chdb, default .data)
`;

class UsageError extends Error {}

function openStore(backupDir: string | undefined): Store {
  const { url, dataDir } = storeConfigOf({
    CLICKHOUSE_URL: process.env.CLICKHOUSE_URL?.trim() || undefined,
    DATA_DIR: resolve(process.env.DATA_DIR?.trim() || STORE_ENV.DATA_DIR.default),
  });
  // A server reads its own backup configuration; the embedded engine is given DIR as its one path.
  return createStore(url ? { url } : { dataDir, backupDir });
}

async function backup(values: Record<string, string | boolean | undefined>): Promise<unknown> {
  const to = values.to;
  if (typeof to !== 'string') throw new UsageError('backup needs --to DIR');
  if (values.full === true && values.base !== undefined)
    throw new UsageError('--base and --full exclude each other');
  const dir = resolve(to);
  const store = openStore(dir);
  try {
    const base = values.full === true ? 'none' : (values.base as string | undefined);
    return { command: 'backup', dir, ...(await backupStore(store, { dir, base })) };
  } finally {
    await store.close();
  }
}

async function restore(values: Record<string, string | boolean | undefined>): Promise<unknown> {
  const from = values.from;
  if (typeof from !== 'string') throw new UsageError('restore needs --from DIR');
  const dir = resolve(from);
  const store = openStore(dir);
  try {
    const result = await restoreStore(store, {
      dir,
      name: values.name as string | undefined,
      replace: values.replace === true,
    });
    // A backup of an older schema comes forward like any store.
    const migrations = await runMigrations(store.internal);
    return { command: 'restore', dir, ...result, migrated: migrations.applied };
  } finally {
    await store.close();
  }
}

async function retention(): Promise<unknown> {
  const policy = retentionFromEnv(process.env);
  const store = openStore(undefined);
  try {
    await runMigrations(store.internal);
    return { command: 'retention', changes: await applyRetention(store.internal, policy) };
  } finally {
    await store.close();
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      to: { type: 'string' },
      from: { type: 'string' },
      base: { type: 'string' },
      name: { type: 'string' },
      full: { type: 'boolean' },
      replace: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected ${rest.join(' ')}`);
  const run =
    command === 'backup'
      ? backup
      : command === 'restore'
        ? restore
        : command === 'retention'
          ? retention
          : undefined;
  if (!run) throw new UsageError(`unknown command ${command ?? '(none)'}`);
  process.stdout.write(`${JSON.stringify(await run(values))}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`feedpipe-store: ${(error as Error).message}\n${USAGE}`);
      process.exit(2);
    }
    const code = error instanceof StoreError ? `${error.code}: ` : '';
    process.stderr.write(`feedpipe-store: ${code}${(error as Error).message}\n`);
    process.exit(1);
  },
);
