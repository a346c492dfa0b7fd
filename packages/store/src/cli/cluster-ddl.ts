/**
 * cluster-ddl [--migrations DIR] [--out DIR]
 *
 * Prints the cluster DDL generated from the single-node migrations (default: this package's
 * migrations/), file after file, or with --out writes one `NNN_name.sql` per migration into DIR
 * (created if missing) for infra/clickhouse/cluster/apply.sh to run in order.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateClusterDdl } from '../ddl/cluster-ddl.js';
import { DEFAULT_MIGRATIONS_DIR, readMigrationSources } from '../migrations.js';

function main(): void {
  const { values } = parseArgs({
    options: {
      migrations: { type: 'string', default: DEFAULT_MIGRATIONS_DIR },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write('usage: cluster-ddl [--migrations DIR] [--out DIR]\n');
    return;
  }
  const files = generateClusterDdl(readMigrationSources(values.migrations));
  if (values.out === undefined) {
    process.stdout.write(files.map((f) => f.text).join('\n'));
    return;
  }
  mkdirSync(values.out, { recursive: true });
  for (const f of files) writeFileSync(join(values.out, f.file), f.text);
  process.stderr.write(`cluster-ddl: ${files.length} files written to ${values.out}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`cluster-ddl: ${(error as Error).message}\n`);
  process.exit(1);
}
