/**
 * The cluster DDL, generated from the single-node migrations (packages/store/migrations): what
 * infra/clickhouse/cluster/apply.sh runs on a ClickHouse cluster instead of the migrations. Rules:
 *
 *   single node                              cluster (every statement ON CLUSTER '{cluster}')
 *   CREATE DATABASE d                        the same; for `market` also market.schema_migrations,
 *                                            replicated to EVERY node (no {shard} in its path)
 *   CREATE TABLE market.t ... ENGINE = E(a)  market.t_local: ReplicatedE('/clickhouse/tables/{shard}/
 *                                            market/t_local', '{replica}', a), columns and clauses as
 *                                            written; market.t: Distributed over t_local by the key
 *                                            of ddl/sharding-keys.ts, under the single-node name
 *   CREATE MATERIALIZED VIEW v TO market.t   the same view reading and writing the LOCAL tables
 *   ALTER TABLE market.t ...                 the same on market.t_local (a Distributed table has no
 *                                            indexes of its own); ADD COLUMN on market.t too
 *   DROP VIEW IF EXISTS market.v             the same (a view keeps its name on the cluster)
 *   end of each migration                    INSERT INTO market.schema_migrations its version
 *
 * The runner (packages/store runMigrations) pointed at any node then finds every version recorded
 * and never runs single-node DDL there. Anything else in a migration is refused with
 * DDL_UNSUPPORTED: the generator must be taught the new kind of statement, not guess.
 */
import { StoreError } from '../errors.js';
import { CLUSTER_SHARDING_KEYS, shardingKeyColumns } from './sharding-keys.js';
import { type CreateTable, orderByColumns, parseCreateTable, splitStatements } from './sql-statements.js';

export const ON_CLUSTER = "ON CLUSTER '{cluster}'";

export interface MigrationSource {
  version: number;
  /** snake_case name, as in `NNN_name.sql`. */
  name: string;
  /** The file's text. */
  sql: string;
}

export interface ClusterDdlFile {
  /** `NNN_name.sql`, the migration's own file name. */
  file: string;
  version: number;
  name: string;
  /** The statements, each ending in `;`. */
  statements: string[];
  /** The file's text: a header naming its source, then the statements. */
  text: string;
}

export interface ClusterDdlOptions {
  /** Sharding key per table name (without database). Default CLUSTER_SHARDING_KEYS. */
  shardingKeys?: Readonly<Record<string, string>>;
}

export const SCHEMA_MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS market.schema_migrations ${ON_CLUSTER}
(
    version    UInt32,
    name       String,
    applied_at DateTime64(3) DEFAULT now64(3)
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/market/schema_migrations', '{replica}')
ORDER BY version`;

export const fileNameOf = (version: number, name: string): string =>
  `${String(version).padStart(3, '0')}_${name}.sql`;

function localTable(t: CreateTable): string {
  const local = `${t.table}_local`;
  const args = [`'/clickhouse/tables/{shard}/${t.database}/${local}'`, "'{replica}'", ...t.engineArgs];
  const clauses = t.clauses === '' ? '' : `\n${t.clauses}`;
  return `CREATE TABLE IF NOT EXISTS ${t.database}.${local} ${ON_CLUSTER}\n${t.columnBlock}\nENGINE = Replicated${t.engine}(${args.join(', ')})${clauses}`;
}

function checkedShardingKey(t: CreateTable, keys: Readonly<Record<string, string>>, where: string): string {
  const key = Object.hasOwn(keys, t.table) ? keys[t.table] : undefined;
  if (key === undefined) {
    throw new StoreError(
      'DDL_NO_SHARDING_KEY',
      `${where}: table ${t.database}.${t.table} has no cluster sharding key; add one to packages/store/src/ddl/sharding-keys.ts`,
    );
  }
  const unknown = shardingKeyColumns(key).filter((c) => !t.columns.includes(c));
  if (unknown.length > 0) {
    throw new StoreError(
      'DDL_SHARDING_KEY_INVALID',
      `${where}: sharding key ${key} of ${t.table} reads ${unknown.join(', ')}, not columns of the table`,
    );
  }
  if (/Replacing|Aggregating|Collapsing/.test(t.engine)) {
    const orderBy = orderByColumns(t.clauses);
    const outside = shardingKeyColumns(key).filter((c) => !orderBy.includes(c));
    if (outside.length > 0 || key.includes('rand()')) {
      throw new StoreError(
        'DDL_SHARDING_KEY_INVALID',
        `${where}: ${t.table} (${t.engine}) merges rows within a shard only, so its sharding key must be a function of ORDER BY (${orderBy.join(', ')}); got ${key}`,
      );
    }
  }
  return key;
}

function distributedTable(t: CreateTable, key: string): string {
  return `CREATE TABLE IF NOT EXISTS ${t.database}.${t.table} ${ON_CLUSTER} AS ${t.database}.${t.table}_local\nENGINE = Distributed('{cluster}', ${t.database}, ${t.table}_local, ${key})`;
}

const CREATE_DATABASE = /^CREATE DATABASE IF NOT EXISTS (\w+)$/;
const CREATE_VIEW = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)\.(\w+) TO (\w+)\.(\w+) AS(\s[\s\S]*)$/;
const ALTER_TABLE = /^ALTER TABLE (\w+)\.(\w+)(\s[\s\S]*)$/;
/** An ALTER whose every clause adds a column (nothing else: indexes and TTLs stay local). */
const onlyAddsColumns = (clauses: string): boolean =>
  /^\s*ADD COLUMN\b/.test(clauses) &&
  !/\b(MODIFY|DROP|COMMENT|RENAME|CLEAR|MATERIALIZE|ADD (INDEX|PROJECTION|CONSTRAINT|STATISTICS))\b/.test(
    clauses,
  );
const CODEC_CLAUSE = /\s+CODEC\((?:[^()]|\([^()]*\))*\)/g;
const DROP_VIEW = /^DROP VIEW IF EXISTS (\w+)\.(\w+)$/;

/** Generates the cluster counterpart of each migration, in version order. */
export function generateClusterDdl(
  migrations: readonly MigrationSource[],
  options: ClusterDdlOptions = {},
): ClusterDdlFile[] {
  const keys = options.shardingKeys ?? CLUSTER_SHARDING_KEYS;
  /** Tables made local so far (`db.table`): views and ALTERs of later migrations refer to them. */
  const localised = new Set<string>();
  const toLocal = (db: string, name: string, where: string): string => {
    if (!localised.has(`${db}.${name}`)) {
      throw new StoreError('DDL_UNSUPPORTED', `${where}: ${db}.${name} is not a table of the migrations`);
    }
    return `${db}.${name}_local`;
  };
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  return sorted.map((migration) => {
    const file = fileNameOf(migration.version, migration.name);
    const out: string[] = [];
    for (const statement of splitStatements(migration.sql)) {
      const where = `${file}: ${statement.slice(0, 60).replace(/\s+/g, ' ')}`;
      const database = CREATE_DATABASE.exec(statement);
      if (database) {
        out.push(`CREATE DATABASE IF NOT EXISTS ${database[1]} ${ON_CLUSTER}`);
        if (database[1] === 'market') out.push(SCHEMA_MIGRATIONS_DDL);
        continue;
      }
      const table = parseCreateTable(statement);
      if (table?.onCluster) {
        throw new StoreError('MIGRATION_FILE_INVALID', `${where}: a single-node migration has no ON CLUSTER`);
      }
      if (table) {
        const key = checkedShardingKey(table, keys, file);
        out.push(localTable(table), distributedTable(table, key));
        localised.add(`${table.database}.${table.table}`);
        continue;
      }
      const view = CREATE_VIEW.exec(statement);
      if (view) {
        const [, db, name, targetDb, target, body] = view as unknown as [
          string,
          string,
          string,
          string,
          string,
          string,
        ];
        const localBody = body.replace(
          /\b(FROM|JOIN)\s+(\w+)\.(\w+)/g,
          (_m, word: string, d: string, t: string) => `${word} ${toLocal(d, t, where)}`,
        );
        out.push(
          `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${name} ${ON_CLUSTER} TO ${toLocal(targetDb, target, where)} AS${localBody}`,
        );
        continue;
      }
      // A view is replaced by dropping it and creating it anew: on a cluster it has one name on
      // every node (views are not made local), so the drop is the same statement ON CLUSTER.
      const dropView = DROP_VIEW.exec(statement);
      if (dropView) {
        out.push(`DROP VIEW IF EXISTS ${dropView[1]}.${dropView[2]} ${ON_CLUSTER}`);
        continue;
      }
      const alter = ALTER_TABLE.exec(statement);
      if (alter) {
        const [, db, name, rest] = alter as unknown as [string, string, string, string];
        out.push(`ALTER TABLE ${toLocal(db, name, where)} ${ON_CLUSTER}${rest}`);
        // A Distributed table lists columns of its own: a column added to the rows is added to it
        // too (without a codec: it stores nothing to compress).
        if (onlyAddsColumns(rest))
          out.push(`ALTER TABLE ${db}.${name} ${ON_CLUSTER}${rest.replace(CODEC_CLAUSE, '')}`);
        continue;
      }
      throw new StoreError(
        'DDL_UNSUPPORTED',
        `${where}: no cluster rule for this statement (packages/store/src/ddl/cluster-ddl.ts)`,
      );
    }
    // Recorded once on any node; replication carries it to every node.
    out.push(
      `INSERT INTO market.schema_migrations (version, name) VALUES (${migration.version}, '${migration.name}')`,
    );
    const statements = out.map((s) => `${s};`);
    const header =
      `-- Generated from packages/store/migrations/${file} by packages/contracts (cluster-ddl):\n` +
      '-- edit the migration (or ddl/sharding-keys.ts), never this output.\n';
    return {
      file,
      version: migration.version,
      name: migration.name,
      statements,
      text: `${header}\n${statements.join('\n\n')}\n`,
    };
  });
}
