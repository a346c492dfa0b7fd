/**
 * The statements SQL tools send that are not a SELECT of theirs, answered by a SELECT the API
 * writes itself from the allow-list (step 2 of sql-guard.ts): SHOW TABLES [LIKE], SHOW COLUMNS,
 * SHOW CREATE TABLE, DESCRIBE, and the catalogue probes of catalog-answers.ts. Nothing of the
 * caller's text runs: names are matched against the allow-list, a LIKE pattern is bound as a value.
 */
import { MARKET_DATA_TABLES, MARKET_DATABASE } from './allowed-tables.js';
import { type CatalogFacts, catalogAnswer } from './catalog-answers.js';
import { type GuardedSql, refuse } from './refusal.js';

const SHOW_TABLES = new Set(['SHOW TABLES', `SHOW TABLES FROM ${MARKET_DATABASE}`]);
// A table named without its database (`DESCRIBE ticks`, as tools send with a default database) is
// the market database's: the endpoints' databases are `market` and `default`, which holds none.
const SHOW_COLUMNS = /^SHOW COLUMNS FROM ([A-Za-z_][A-Za-z0-9_]*)(?: FROM ([A-Za-z_][A-Za-z0-9_]*))?$/;
const SHOW_CREATE = /^SHOW CREATE TABLE (?:([A-Za-z_][A-Za-z0-9_]*)\.)?([A-Za-z_][A-Za-z0-9_]*)$/;
const DESCRIBE = /^DESCRIBE TABLE (?:([A-Za-z_][A-Za-z0-9_]*)\.)?([A-Za-z_][A-Za-z0-9_]*)$/;
/** `SHOW TABLES [FROM market] [NOT] [I]LIKE '<pattern>'`: the pattern goes in as a parameter. */
const SHOW_TABLES_LIKE = new RegExp(
  `^SHOW TABLES(?: FROM ${MARKET_DATABASE})? (NOT )?(I?LIKE) '((?:[^'\\\\]|\\\\.)*)'$`,
);

function allowedList(): string {
  return MARKET_DATA_TABLES.join(', ');
}

/** The API's own statement for `canonical`, undefined when it is none of these; refuses the rest of SHOW/DESCRIBE/EXISTS/EXPLAIN. */
export function metadataAnswer(canonical: string, facts: CatalogFacts): GuardedSql | undefined {
  if (SHOW_TABLES.has(canonical)) {
    return {
      kind: 'show-tables',
      sql: 'SELECT name FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)} ORDER BY name',
      params: {
        db: MARKET_DATABASE,
        names: MARKET_DATA_TABLES.map((t) => t.slice(MARKET_DATABASE.length + 1)),
      },
    };
  }
  const like = SHOW_TABLES_LIKE.exec(canonical);
  if (like) {
    const [, not, operator, literal] = like as unknown as [string, string | undefined, string, string];
    return {
      kind: 'show-tables',
      sql: `SELECT name FROM system.tables WHERE database = {db:String} AND name IN {names:Array(String)}
        AND ${not === undefined ? '' : 'NOT '}${operator === 'ILIKE' ? 'ilike' : 'like'}(name, {pattern:String}) ORDER BY name`,
      params: {
        db: MARKET_DATABASE,
        names: MARKET_DATA_TABLES.map((t) => t.slice(MARKET_DATABASE.length + 1)),
        // The literal as ClickHouse printed it, unescaped: a value, never SQL text.
        pattern: literal.replace(/\\(.)/g, '$1'),
      },
    };
  }
  const columns = SHOW_COLUMNS.exec(canonical);
  if (columns) {
    const [, name, db = MARKET_DATABASE] = columns as unknown as [string, string, string | undefined];
    if (!MARKET_DATA_TABLES.includes(`${db}.${name}`)) {
      refuse(`table ${db}.${name} is not readable with SQL; allowed: ${allowedList()}`);
    }
    // ClickHouse's own SHOW COLUMNS columns, from the catalogue view of the table.
    return {
      kind: 'describe',
      sql: `SELECT name AS field, type, if(startsWith(type, 'Nullable('), 'YES', 'NO') AS null,
        if(is_in_primary_key, 'PRI', if(is_in_sorting_key, 'SOR', '')) AS key,
        if(default_kind = '', NULL, default_expression) AS default, '' AS extra
        FROM system.columns WHERE database = {db:String} AND table = {table:String} ORDER BY position`,
      params: { db, table: name },
    };
  }
  const create = SHOW_CREATE.exec(canonical);
  if (create) {
    const [, db = MARKET_DATABASE, name] = create as unknown as [string, string | undefined, string];
    if (!MARKET_DATA_TABLES.includes(`${db}.${name}`)) {
      refuse(`table ${db}.${name} is not readable with SQL; allowed: ${allowedList()}`);
    }
    // The DDL DBeaver's DDL tab shows: the market-data table's own, from the catalogue.
    return {
      kind: 'describe',
      sql: 'SELECT create_table_query AS statement FROM system.tables WHERE database = {db:String} AND name = {table:String}',
      params: { db, table: name },
    };
  }
  const describe = DESCRIBE.exec(canonical);
  if (describe) {
    const [, db = MARKET_DATABASE, name] = describe as unknown as [string, string | undefined, string];
    if (!MARKET_DATA_TABLES.includes(`${db}.${name}`)) {
      refuse(`table ${db}.${name} is not readable with SQL; allowed: ${allowedList()}`);
    }
    return {
      kind: 'describe',
      sql: `SELECT name, type, default_kind AS default_type, default_expression, comment, compression_codec AS codec_expression
        FROM system.columns WHERE database = {db:String} AND table = {table:String} ORDER BY position`,
      params: { db, table: name },
    };
  }
  const answer = catalogAnswer(canonical, facts);
  if (answer) return { kind: 'catalog', ...answer };
  if (/^(SHOW|DESCRIBE|EXPLAIN|EXISTS)\b/.test(canonical)) {
    refuse(
      'of SHOW, DESCRIBE, EXISTS and EXPLAIN only "SHOW TABLES [FROM market] [[NOT] [I]LIKE \'...\']", "SHOW DATABASES", "SHOW COLUMNS FROM market.<table>", "SHOW CREATE TABLE market.<table>", "DESCRIBE [TABLE] market.<table>", "EXISTS [TABLE] market.<table>" and "EXPLAIN [AST|SYNTAX|PLAN|PIPELINE|ESTIMATE|QUERY TREE] <SELECT>" are answered',
    );
  }
  return undefined;
}
