/**
 * record-schemas [--out DIR] [--check]
 *
 * Writes the JSON Schema of every Kafka topic's records (generated from the record contracts) as
 * one `<name>.v<version>.schema.json` per schema into DIR (default: packages/contracts/schemas, the
 * shipped copies), removing schema files there that the contracts no longer generate. With
 * --check it writes nothing and exits 1 when DIR's files differ from the generated ones.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateRecordSchemas, RECORD_SCHEMAS_DIR, schemaFileText } from '../record-schemas/catalog.js';

const SCHEMA_FILE = /\.schema\.json$/;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function main(): number {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: RECORD_SCHEMAS_DIR },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write('usage: record-schemas [--out DIR] [--check]\n');
    return 0;
  }
  const dir = values.out;
  const wanted = new Map(generateRecordSchemas().map((e) => [e.fileName, schemaFileText(e.schema)]));
  mkdirSync(dir, { recursive: true });
  const stale = readdirSync(dir).filter((f) => SCHEMA_FILE.test(f) && !wanted.has(f));
  const changed = [...wanted].filter(([file, text]) => read(join(dir, file)) !== text).map(([f]) => f);
  if (values.check) {
    if (changed.length + stale.length === 0) return 0;
    process.stderr.write(
      `record-schemas: ${dir} is out of date (changed: ${changed.join(', ') || 'none'}; stale: ${stale.join(', ') || 'none'}); run npx record-schemas\n`,
    );
    return 1;
  }
  for (const file of changed) writeFileSync(join(dir, file), wanted.get(file) as string);
  for (const file of stale) rmSync(join(dir, file));
  process.stderr.write(
    `record-schemas: ${wanted.size} schemas in ${dir} (${changed.length} written, ${stale.length} removed)\n`,
  );
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`record-schemas: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
