/**
 * The catalogue rename (sql/catalog-views.ts) on its own: only unquoted `system.databases|tables|
 * columns` references are renamed (never inside a literal, a quoted name or a parameter, never a
 * `x.system.tables` path or a longer word), and the parse-tree check accepts only outlines that
 * differ by those identifiers. The end-to-end refusals are in sql-catalog.test.ts and the corpus.
 */
import { describe, expect, it } from 'vitest';
import { outlinesMatchRename, renameCatalogTables } from '../src/sql/catalog-views.js';

describe('renameCatalogTables', () => {
  it('renames table references and the column paths that name them', () => {
    expect(
      renameCatalogTables(
        'SELECT t.name FROM system.tables AS t INNER JOIN system.databases AS d ON system.tables.database = system.databases.name',
      ),
    ).toBe(
      'SELECT t.name FROM feedpipe_catalog.tables AS t INNER JOIN feedpipe_catalog.databases AS d ON feedpipe_catalog.tables.database = feedpipe_catalog.databases.name',
    );
    expect(renameCatalogTables('SELECT name FROM system.columns')).toBe(
      'SELECT name FROM feedpipe_catalog.columns',
    );
  });

  it('leaves literals, quoted names, parameters, other tables and longer words alone', () => {
    expect(renameCatalogTables("SELECT 'system.tables' AS s FROM system.one")).toBeUndefined();
    expect(renameCatalogTables('SELECT `system.tables` FROM market.ticks')).toBeUndefined();
    expect(renameCatalogTables('SELECT {p:String} FROM system.settings')).toBeUndefined();
    expect(renameCatalogTables('SELECT * FROM system.tables_other')).toBeUndefined();
    expect(renameCatalogTables('SELECT x.system.tables FROM market.ticks AS x')).toBeUndefined();
    expect(renameCatalogTables('SELECT mysystem.tables FROM market.ticks')).toBeUndefined();
    expect(renameCatalogTables("SELECT 'a\\'system.tables' AS s FROM system.tables")).toBe(
      "SELECT 'a\\'system.tables' AS s FROM feedpipe_catalog.tables",
    );
  });
});

describe('outlinesMatchRename', () => {
  const original = [
    'SelectWithUnionQuery (children 1)',
    ' ExpressionList (children 1)',
    '  SelectQuery (children 2)',
    '   ExpressionList (children 2)',
    '    Identifier system.tables.name',
    "    Literal 'system.tables'",
    '   TablesInSelectQuery (children 1)',
    '    TablesInSelectQueryElement (children 1)',
    '     TableExpression (children 1)',
    '      TableIdentifier system.tables (alias t)',
  ];
  const renamed = original.map((l) =>
    l.includes('Literal') ? l : l.replace('system.tables', 'feedpipe_catalog.tables'),
  );

  it('accepts an outline that differs only in the renamed identifiers', () => {
    expect(outlinesMatchRename(original, renamed)).toBe(true);
  });

  it('refuses one whose literal changed, one with a line more, and one with a name left over', () => {
    expect(
      outlinesMatchRename(
        original,
        renamed.map((l) => l.replace("'system.tables'", "'feedpipe_catalog.tables'")),
      ),
    ).toBe(false);
    expect(outlinesMatchRename(original, [...renamed, '    Literal 1'])).toBe(false);
    expect(outlinesMatchRename(original, original)).toBe(false);
  });
});
