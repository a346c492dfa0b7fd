/**
 * The catalogue SQL tools browse (DBeaver's JDBC driver, Grafana's plugin, clickhouse-connect read
 * `system.databases`, `system.tables` and `system.columns`), restricted to what a `read` key may
 * read: views the API writes itself in a database of its own, over the system tables filtered to
 * the market-data allow-list (allowed-tables.ts), each with the columns a browser needs (no data or
 * metadata paths, nothing about another table or database).
 *
 * A caller's statement that names those three system tables is run against the views instead. The
 * rename is done on the canonical text's tokens (only an unquoted `system` word followed by
 * `.tables`, `.columns` or `.databases`; string literals, quoted names and parameters are skipped
 * whole), then CHECKED ON THE PARSE TREE: the outline of the renamed statement must be the
 * original's outline line for line, with only the table and column identifiers that named those
 * tables renamed. A rename that touched anything else (a literal, an alias) fails that comparison
 * and the statement is refused. The renamed statement then takes the whole guard as any SELECT
 * (function allow-list, call scan, the analysis budget): the rename adds no power, it only swaps
 * three unreadable tables for three readable views.
 */
import type { StoreLane } from '@feedpipe/store';
import { CATALOG_DATABASE, CATALOG_TABLES, MARKET_DATA_TABLES, MARKET_DATABASE } from './allowed-tables.js';
import { skipParameter, skipQuoted } from './call-scan.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `'a', 'b'`: names from the allow-list (checked to be plain identifiers, never caller text). */
function nameList(names: readonly string[]): string {
  for (const name of names) {
    if (!IDENTIFIER.test(name)) throw new Error(`catalog-views: ${name} is not a plain identifier`);
  }
  return names.map((n) => `'${n}'`).join(', ');
}

/**
 * The DDL of the views, from the allow-list. Columns: what JDBC's DatabaseMetaData, Grafana's and
 * DBeaver's browsers select; `system.columns` has nothing else, so all of its columns.
 */
export function catalogViewStatements(): string[] {
  const tables = nameList(MARKET_DATA_TABLES.map((t) => t.slice(MARKET_DATABASE.length + 1)));
  const db = `'${MARKET_DATABASE}'`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${CATALOG_DATABASE}`,
    `CREATE OR REPLACE VIEW ${CATALOG_DATABASE}.databases AS
      SELECT name, engine, uuid, comment FROM system.databases WHERE name = ${db}`,
    `CREATE OR REPLACE VIEW ${CATALOG_DATABASE}.tables AS
      SELECT database, name, uuid, engine, is_temporary, metadata_modification_time, create_table_query,
        partition_key, sorting_key, primary_key, sampling_key, total_rows, total_bytes, comment
      FROM system.tables WHERE database = ${db} AND name IN (${tables})`,
    `CREATE OR REPLACE VIEW ${CATALOG_DATABASE}.columns AS
      SELECT * FROM system.columns WHERE database = ${db} AND table IN (${tables})`,
  ];
}

/** Creates (or replaces, so a changed allow-list takes effect) the views; run at the API's start. */
export async function installCatalogViews(lane: StoreLane): Promise<void> {
  for (const statement of catalogViewStatements()) await lane.command(statement);
}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const RENAMED = new RegExp(`^system\\.(${CATALOG_TABLES.join('|')})(?![A-Za-z0-9_$])`);

/**
 * The canonical text with every `system.databases|tables|columns` reference renamed to the views,
 * or undefined when it names none of them. A reference is an unquoted `system` word not preceded by
 * a dot (so not `x.system.tables`), outside literals, quoted names and parameters.
 */
export function renameCatalogTables(canonical: string): string | undefined {
  let out = '';
  let from = 0;
  let i = 0;
  let renamed = false;
  while (i < canonical.length) {
    const ch = canonical[i] as string;
    if (ch === "'" || ch === '`' || ch === '"') {
      i = skipQuoted(canonical, i);
    } else if (ch === '{') {
      const end = skipParameter(canonical, i);
      i = end === -1 ? i + 1 : end;
    } else if (WORD_START.test(ch) && (i === 0 || !WORD_PART.test(canonical[i - 1] as string))) {
      const match = canonical[i - 1] === '.' ? null : RENAMED.exec(canonical.slice(i, i + 32));
      if (match) {
        out += `${canonical.slice(from, i)}${CATALOG_DATABASE}.${match[1]}`;
        i += match[0].length;
        from = i;
        renamed = true;
        continue;
      }
      i += 1;
      while (i < canonical.length && WORD_PART.test(canonical[i] as string)) i += 1;
    } else {
      i += 1;
    }
  }
  return renamed ? out + canonical.slice(from) : undefined;
}

const IDENTIFIER_LINE = /^( *)(TableIdentifier|Identifier) system\.(databases|tables|columns)(?=[ .]|$)/;

/**
 * Whether `renamed` (the outline of the renamed statement) is `original` with only identifiers
 * renamed: same lines, same order, and where they differ, a table or column identifier that named a
 * system catalogue table in the original names its view in the renamed one.
 */
export function outlinesMatchRename(original: readonly string[], renamed: readonly string[]): boolean {
  if (original.length !== renamed.length) return false;
  return original.every(
    (line, index) => line.replace(IDENTIFIER_LINE, `$1$2 ${CATALOG_DATABASE}.$3`) === renamed[index],
  );
}
