/**
 * The cluster DDL generator (replacing the hand-kept twin of the migrations that lived in
 * infra/clickhouse/cluster/): its output for today's migrations equals what those files declared,
 * every migration's tables appear replicated and distributed, and what it cannot map is refused.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLUSTER_SHARDING_KEYS,
  generateClusterDdl,
  ON_CLUSTER,
  parseCreateTable,
  readMigrationSources,
  StoreError,
  splitStatements,
  squash,
} from '../src/index.js';

const sources = readMigrationSources();
const generated = generateClusterDdl(sources);
const golden = readFileSync(join(import.meta.dirname, 'fixtures/cluster-ddl-001-006.sql'), 'utf8');

function refusal(sql: string, keys?: Record<string, string>): StoreError {
  try {
    generateClusterDdl(
      [{ version: 7, name: 'probe', sql }],
      keys === undefined ? {} : { shardingKeys: keys },
    );
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('the generator accepted it');
}

describe('cluster DDL generator', () => {
  it('gives exactly what the hand-kept cluster files declared for migrations 001-006', () => {
    const statements = generated
      .filter((f) => f.version <= 6)
      .flatMap((f) => splitStatements(f.text))
      .map(squash);
    expect(generated.filter((f) => f.version <= 6).map((f) => f.file)).toEqual([
      '001_market_database.sql',
      '002_feed_tables.sql',
      '003_history_tables.sql',
      '004_api_tables.sql',
      '005_order_events.sql',
      '006_postback_dead_letters.sql',
    ]);
    expect(statements).toEqual(splitStatements(golden).map(squash));
  });

  it('has one file per migration, each ending with its version recorded for the runner', () => {
    expect(generated.map((f) => f.version)).toEqual(sources.map((s) => s.version));
    for (const file of generated) {
      expect(file.statements.at(-1), file.file).toBe(
        `INSERT INTO market.schema_migrations (version, name) VALUES (${file.version}, '${file.name}');`,
      );
    }
  });

  it('gives every table of every migration a replicated local table and a Distributed one', () => {
    const problems: string[] = [];
    for (const [i, source] of sources.entries()) {
      const out = (generated[i]?.statements ?? []).map((s) => squash(s.replace(/;$/, '')));
      for (const statement of splitStatements(source.sql)) {
        const t = parseCreateTable(statement);
        if (!t) continue;
        const local = out.map((s) => parseCreateTable(s)).find((c) => c?.table === `${t.table}_local`);
        if (!local) {
          problems.push(`${source.name}: no ${t.table}_local`);
          continue;
        }
        expect(local.engine).toBe(`Replicated${t.engine}`);
        expect(local.engineArgs).toEqual([
          `'/clickhouse/tables/{shard}/market/${t.table}_local'`,
          "'{replica}'",
          ...t.engineArgs,
        ]);
        expect(local.columns).toEqual(t.columns);
        expect(squash(local.clauses)).toBe(squash(t.clauses));
        const key = CLUSTER_SHARDING_KEYS[t.table];
        expect(out).toContain(
          `CREATE TABLE IF NOT EXISTS market.${t.table} ${ON_CLUSTER} AS market.${t.table}_local ENGINE = Distributed('{cluster}', market, ${t.table}_local, ${key})`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs every DDL statement ON CLUSTER and replicates schema_migrations to every node', () => {
    for (const file of generated) {
      for (const statement of file.statements) {
        if (statement.startsWith('INSERT INTO')) continue;
        expect(statement, file.file).toContain(ON_CLUSTER);
      }
    }
    const migrations = generated[0]?.statements
      .map((s) => parseCreateTable(s))
      .find((t) => t?.table === 'schema_migrations');
    expect(migrations?.engine).toBe('ReplicatedReplacingMergeTree');
    expect(migrations?.engineArgs[0]).not.toContain('{shard}');
    expect(migrations?.columns).toEqual(['version', 'name', 'applied_at']);
  });

  it('moves views and ALTERs onto the local tables', () => {
    const [file] = generateClusterDdl(
      [
        {
          version: 1,
          name: 'probe',
          sql: `CREATE TABLE IF NOT EXISTS market.a (id UInt32, v Float32) ENGINE = MergeTree ORDER BY id;
CREATE TABLE IF NOT EXISTS market.b (id UInt32, n UInt64) ENGINE = SummingMergeTree ORDER BY id;
CREATE MATERIALIZED VIEW IF NOT EXISTS market.b_mv TO market.b AS
SELECT id, count() AS n FROM market.a GROUP BY id;
ALTER TABLE market.a ADD INDEX IF NOT EXISTS a_v v TYPE minmax GRANULARITY 1;`,
        },
      ],
      { shardingKeys: { a: 'intHash64(id)', b: 'intHash64(id)' } },
    );
    const out = (file?.statements ?? []).map(squash);
    expect(out).toContain(
      `CREATE MATERIALIZED VIEW IF NOT EXISTS market.b_mv ${ON_CLUSTER} TO market.b_local AS SELECT id, count() AS n FROM market.a_local GROUP BY id;`,
    );
    expect(out).toContain(
      `ALTER TABLE market.a_local ${ON_CLUSTER} ADD INDEX IF NOT EXISTS a_v v TYPE minmax GRANULARITY 1;`,
    );
  });

  it('adds a column to the local and the Distributed table, and replaces a view on every node', () => {
    const quantity = generated.find((f) => f.name === 'trade_quantity');
    const out = (quantity?.statements ?? []).map(squash);
    expect(out).toContain(
      `ALTER TABLE market.ticks_local ${ON_CLUSTER} ADD COLUMN IF NOT EXISTS quantity UInt32 CODEC(T64, ZSTD(1)) AFTER volume;`,
    );
    // The Distributed table stores nothing: the column without its codec.
    expect(out).toContain(
      `ALTER TABLE market.ticks ${ON_CLUSTER} ADD COLUMN IF NOT EXISTS quantity UInt32 AFTER volume;`,
    );
    // A comment is the local table's only.
    expect(out.filter((s) => s.startsWith(`ALTER TABLE market.ticks ${ON_CLUSTER} COMMENT`))).toEqual([]);
    const drop = out.indexOf(`DROP VIEW IF EXISTS market.bars_1m_mv ${ON_CLUSTER};`);
    const create = out.findIndex((s) =>
      s.startsWith(
        `CREATE MATERIALIZED VIEW IF NOT EXISTS market.bars_1m_mv ${ON_CLUSTER} TO market.bars_1m_local`,
      ),
    );
    expect(drop).toBeGreaterThan(-1);
    expect(create).toBeGreaterThan(drop);
    expect(out[create]).toContain('FROM market.ticks_local');
  });

  it('puts the retention TTLs and settings of migration 009 on the local tables, metadata only', () => {
    const retention = generated.find((f) => f.name === 'retention');
    const out = (retention?.statements ?? []).map(squash);
    expect(out).toContain(
      `ALTER TABLE market.ticks_local ${ON_CLUSTER} MODIFY TTL received_at + INTERVAL 90 DAY SETTINGS materialize_ttl_after_modify = 0;`,
    );
    expect(out).toContain(
      `ALTER TABLE market.bars_1m_local ${ON_CLUSTER} MODIFY SETTING ttl_only_drop_parts = 1;`,
    );
    // Never the Distributed table, which holds no rows and takes no TTL.
    expect(out.filter((s) => /^ALTER TABLE market\.\w+ /.test(s) && !/_local /.test(s))).toEqual([]);
  });

  it('refuses what it cannot map instead of guessing', () => {
    expect(refusal('DROP TABLE market.ticks').code).toBe('DDL_UNSUPPORTED');
    expect(refusal('ALTER TABLE market.unknown ADD COLUMN x UInt8').code).toBe('DDL_UNSUPPORTED');
    expect(
      refusal('CREATE TABLE IF NOT EXISTS market.fresh (id UInt32) ENGINE = MergeTree ORDER BY id').code,
    ).toBe('DDL_NO_SHARDING_KEY');
    // A replacing table sharded off its ORDER BY key would keep both copies of a row on two shards.
    const replacing =
      'CREATE TABLE IF NOT EXISTS market.r (id UInt32, other UInt32, v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY id';
    expect(refusal(replacing, { r: 'rand()' }).code).toBe('DDL_SHARDING_KEY_INVALID');
    expect(refusal(replacing, { r: 'intHash64(other)' }).code).toBe('DDL_SHARDING_KEY_INVALID');
    expect(refusal(replacing, { r: 'intHash64(nope)' }).code).toBe('DDL_SHARDING_KEY_INVALID');
  });

  it('writes one file per migration from its CLI, as apply.sh runs it', () => {
    const out = mkdtempSync(join(tmpdir(), 'cluster-ddl-'));
    try {
      const bin = join(import.meta.dirname, '..', 'bin', 'cluster-ddl.mjs');
      const run = spawnSync(process.execPath, [bin, '--out', out], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(generated.map((f) => f.file));
      expect(readFileSync(join(out, '002_feed_tables.sql'), 'utf8')).toBe(generated[1]?.text);
      const printed = spawnSync(process.execPath, [bin], { encoding: 'utf8' });
      expect(printed.status, printed.stderr).toBe(0);
      expect(printed.stdout).toContain('ENGINE = Distributed(');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
