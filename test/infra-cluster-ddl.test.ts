/**
 * The cluster DDL (infra/clickhouse/cluster) mirrors the single-node migrations
 * (packages/store/migrations) file by file: every table has a Replicated*MergeTree `<t>_local` on
 * every node with the same columns, codecs and keys, and a Distributed `<t>` under the single-node
 * name; views and ALTERs target the local tables; each file records its version for the runner.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitStatements } from '@feedpipe/store';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const SINGLE_DIR = join(root, 'packages/store/migrations');
const CLUSTER_DIR = join(root, 'infra/clickhouse/cluster');
const ON_CLUSTER = "ON CLUSTER '{cluster}'";

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The text inside the parenthesis that opens at `open`, and the index after its close. */
function balanced(text: string, open: number): { inner: string; end: number } {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')') {
      depth -= 1;
      if (depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
    }
  }
  throw new Error(`unbalanced parenthesis in: ${text.slice(0, 80)}`);
}

/** Splits on commas that are not inside parentheses or quotes. */
function topLevelSplit(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (!quoted && c === '(') depth += 1;
    else if (!quoted && c === ')') depth -= 1;
    else if (!quoted && depth === 0 && c === ',') {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

interface TableDdl {
  name: string;
  onCluster: boolean;
  /** `AS market.<source>` (the Distributed tables take the local table's structure). */
  asTable?: string;
  columns: string[];
  engine: string;
  engineArgs: string[];
  /** PARTITION BY / ORDER BY / TTL / SETTINGS, whitespace squashed. */
  clauses: string;
}

const CREATE_TABLE =
  /^CREATE TABLE IF NOT EXISTS market\.(\w+)(\s+ON CLUSTER '\{cluster\}')?\s*(?:AS market\.(\w+)\s*)?/;

function parseTable(statement: string): TableDdl | undefined {
  const head = CREATE_TABLE.exec(statement);
  if (!head) return undefined;
  let rest = statement.slice(head[0].length);
  let columns: string[] = [];
  if (rest.startsWith('(')) {
    const block = balanced(rest, 0);
    columns = topLevelSplit(block.inner).map(squash);
    rest = rest.slice(block.end).trimStart();
  }
  const engine = /^ENGINE = (\w+)/.exec(rest);
  if (!engine) throw new Error(`no ENGINE in: ${statement.slice(0, 80)}`);
  rest = rest.slice(engine[0].length);
  let engineArgs: string[] = [];
  if (rest.startsWith('(')) {
    const args = balanced(rest, 0);
    engineArgs = topLevelSplit(args.inner).map(squash);
    rest = rest.slice(args.end);
  }
  return {
    name: head[1] ?? '',
    onCluster: head[2] !== undefined,
    ...(head[3] === undefined ? {} : { asTable: head[3] }),
    columns,
    engine: engine[1] ?? '',
    engineArgs,
    clauses: squash(rest),
  };
}

interface Migration {
  file: string;
  version: number;
  name: string;
  statements: string[];
}

function migrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      file,
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      statements: splitStatements(readFileSync(join(dir, file), 'utf8')),
    }));
}

const single = migrations(SINGLE_DIR);
const cluster = migrations(CLUSTER_DIR);
const clusterByFile = new Map(cluster.map((m) => [m.file, m]));

/** Columns a sharding key expression reads. */
const identifiersOf = (expr: string) =>
  [...expr.matchAll(/[a-z_][a-z0-9_]*/gi)]
    .map((m) => m[0])
    .filter((id) => !/^(intHash64|cityHash64|rand)$/.test(id));

describe('ClickHouse cluster DDL', () => {
  it('has one cluster file per single-node migration, same number and name', () => {
    expect(single.length).toBeGreaterThanOrEqual(4);
    expect(cluster.map((m) => m.file)).toEqual(single.map((m) => m.file));
  });

  it('gives every single-node table a replicated local table with identical columns and keys', () => {
    const problems: string[] = [];
    for (const migration of single) {
      const counterpart = clusterByFile.get(migration.file);
      const tables = new Map(
        (counterpart?.statements ?? []).flatMap((s) => {
          const t = parseTable(s);
          return t ? [[t.name, t] as const] : [];
        }),
      );
      for (const statement of migration.statements) {
        const original = parseTable(statement);
        if (!original) continue;
        const where = `${migration.file} ${original.name}`;
        const local = tables.get(`${original.name}_local`);
        if (!local) {
          problems.push(`${where}: no market.${original.name}_local`);
          continue;
        }
        if (!local.onCluster) problems.push(`${where}: local table without ${ON_CLUSTER}`);
        if (local.engine !== `Replicated${original.engine}`) {
          problems.push(`${where}: engine ${local.engine}, expected Replicated${original.engine}`);
        }
        const expectedArgs = [
          `'/clickhouse/tables/{shard}/market/${original.name}_local'`,
          "'{replica}'",
          ...original.engineArgs,
        ];
        if (JSON.stringify(local.engineArgs) !== JSON.stringify(expectedArgs)) {
          problems.push(`${where}: engine arguments ${local.engineArgs.join(', ')}`);
        }
        if (JSON.stringify(local.columns) !== JSON.stringify(original.columns)) {
          problems.push(`${where}: columns differ from the single-node table`);
        }
        if (local.clauses !== original.clauses) {
          problems.push(`${where}: "${local.clauses}" instead of "${original.clauses}"`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every single-node table a Distributed table under its own name over the local one', () => {
    const problems: string[] = [];
    for (const migration of single) {
      const tables = (clusterByFile.get(migration.file)?.statements ?? []).flatMap(
        (s) => parseTable(s) ?? [],
      );
      for (const statement of migration.statements) {
        const original = parseTable(statement);
        if (!original) continue;
        const where = `${migration.file} ${original.name}`;
        const distributed = tables.find((t) => t.name === original.name);
        if (!distributed) {
          problems.push(`${where}: no Distributed market.${original.name}`);
          continue;
        }
        const [clusterArg, database, table, shardingKey] = distributed.engineArgs;
        if (
          !distributed.onCluster ||
          distributed.engine !== 'Distributed' ||
          distributed.asTable !== `${original.name}_local` ||
          clusterArg !== "'{cluster}'" ||
          database !== 'market' ||
          table !== `${original.name}_local` ||
          shardingKey === undefined
        ) {
          problems.push(
            `${where}: expected ${ON_CLUSTER} AS market.${original.name}_local ENGINE = Distributed('{cluster}', market, ${original.name}_local, <key>)`,
          );
          continue;
        }
        // Replacing and aggregating engines merge rows of one key within one shard only.
        if (/Replacing|Aggregating/.test(original.engine)) {
          const orderBy = /ORDER BY \(?([^)]*?)\)?(?: TTL| SETTINGS|$)/.exec(original.clauses)?.[1] ?? '';
          const keyColumns = new Set(orderBy.split(',').map((c) => c.trim()));
          const outside = identifiersOf(shardingKey).filter((id) => !keyColumns.has(id));
          if (outside.length > 0 || shardingKey.includes('rand()')) {
            problems.push(`${where}: sharding key ${shardingKey} is not a function of ORDER BY (${orderBy})`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('recreates views and ALTERs on the local tables, and every DDL statement runs ON CLUSTER', () => {
    const problems: string[] = [];
    for (const migration of single) {
      const counterpart = (clusterByFile.get(migration.file)?.statements ?? []).map(squash);
      for (const statement of migration.statements.map(squash)) {
        const view = /^CREATE MATERIALIZED VIEW IF NOT EXISTS market\.(\w+) TO market\.(\w+) AS (.*)$/.exec(
          statement,
        );
        if (view) {
          const body = (view[3] ?? '').replace(/FROM market\.(\w+)/g, 'FROM market.$1_local');
          const expected = `CREATE MATERIALIZED VIEW IF NOT EXISTS market.${view[1]} ${ON_CLUSTER} TO market.${view[2]}_local AS ${body}`;
          if (!counterpart.includes(expected))
            problems.push(`${migration.file}: view ${view[1]} not mirrored`);
        }
        const alter = /^ALTER TABLE market\.(\w+) (.*)$/.exec(statement);
        if (alter) {
          const expected = `ALTER TABLE market.${alter[1]}_local ${ON_CLUSTER} ${alter[2]}`;
          if (!counterpart.includes(expected))
            problems.push(`${migration.file}: ALTER of ${alter[1]} not mirrored`);
        }
      }
    }
    for (const migration of cluster) {
      for (const statement of migration.statements.map(squash)) {
        if (statement.startsWith('INSERT INTO')) continue;
        if (!statement.includes(ON_CLUSTER))
          problems.push(`${migration.file}: not ON CLUSTER: ${statement.slice(0, 60)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('records each file in a schema_migrations table replicated to every node', () => {
    const first = cluster[0];
    const migrationsTable = first?.statements.map(parseTable).find((t) => t?.name === 'schema_migrations');
    expect(migrationsTable?.onCluster).toBe(true);
    expect(migrationsTable?.engine).toBe('ReplicatedReplacingMergeTree');
    // No {shard} in the path: one replica set spanning the whole cluster.
    expect(migrationsTable?.engineArgs[0]).not.toContain('{shard}');
    // The same columns the store's runner creates and inserts.
    expect(migrationsTable?.columns.map((c) => c.split(' ')[0])).toEqual(['version', 'name', 'applied_at']);
    for (const migration of cluster) {
      const last = squash(migration.statements.at(-1) ?? '');
      expect(last, migration.file).toBe(
        `INSERT INTO market.schema_migrations (version, name) VALUES (${migration.version}, '${migration.name}')`,
      );
    }
  });
});
