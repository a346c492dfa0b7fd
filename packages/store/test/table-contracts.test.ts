/** The table contracts of @feedpipe/contracts name exactly the columns the migrations create, in their order. */

import {
  FEED_TABLE_OF_TOPIC,
  FEED_TABLES,
  HISTORY_TABLES,
  KAFKA_SOURCE_COLUMNS,
  REFERENCE_TABLES,
  SERVICE_TABLES,
  TOPIC_KINDS,
} from '@feedpipe/contracts';
import { describe, expect, it } from 'vitest';
import { parseCreateTable, readMigrationSources, splitStatements } from '../src/index.js';

const statements = readMigrationSources().flatMap((m) => splitStatements(m.sql));
const created = new Map<string, string[]>(
  statements.flatMap((s) => {
    const t = parseCreateTable(s);
    return t ? [[`${t.database}.${t.table}`, t.columns] as const] : [];
  }),
);
// Columns later migrations add (ALTER TABLE ... ADD COLUMN IF NOT EXISTS c T [AFTER b]), in place.
for (const statement of statements) {
  const alter = /^ALTER TABLE (\w+\.\w+)\s/.exec(statement);
  const columns = alter ? created.get(alter[1] as string) : undefined;
  if (!columns) continue;
  // One clause a line: `ADD COLUMN IF NOT EXISTS c T [AFTER b],`
  for (const clause of statement.split(/,\s*\n/)) {
    const add = /ADD COLUMN IF NOT EXISTS (\w+)\s[^\n]*?(?:\sAFTER (\w+))?$/.exec(clause.trim());
    if (!add) continue;
    const after = add[2] === undefined ? columns.length - 1 : columns.indexOf(add[2]);
    columns.splice(after + 1, 0, add[1] as string);
  }
}

describe('table contracts', () => {
  it.each([
    ...Object.entries(FEED_TABLES),
    ...Object.entries(HISTORY_TABLES),
    ...Object.entries(SERVICE_TABLES),
    ...Object.entries(REFERENCE_TABLES),
  ])('%s has the columns of its migration', (_id, contract) => {
    expect(created.get(contract.name)).toEqual(contract.columns);
  });

  it('names every table the migrations create', () => {
    const named = new Set(
      [FEED_TABLES, HISTORY_TABLES, SERVICE_TABLES, REFERENCE_TABLES].flatMap((group) =>
        Object.values(group).map((t) => t.name),
      ),
    );
    expect([...created.keys()].filter((name) => !named.has(name))).toEqual([]);
  });

  it('stores every feed topic in a table that ends with its Kafka source columns', () => {
    for (const kind of TOPIC_KINDS) {
      expect(FEED_TABLE_OF_TOPIC[kind].columns.slice(-3)).toEqual([...KAFKA_SOURCE_COLUMNS]);
    }
  });
});
