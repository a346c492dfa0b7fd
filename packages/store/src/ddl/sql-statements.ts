/**
 * Just enough SQL reading for the migrations' DDL: statements split as the store's migration runner
 * splits them (it calls splitStatements too: a line ending in `;`, `--` comment lines dropped), and a CREATE TABLE taken
 * apart into its name, column block, engine and trailing clauses, each kept as written.
 */

export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The text inside the parenthesis that opens at `open`, and the index after its close; undefined if unbalanced. */
export function balanced(text: string, open: number): { inner: string; end: number } | undefined {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth += 1;
    else if (c === ')') {
      depth -= 1;
      if (depth === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
    }
  }
  return undefined;
}

/** Splits on commas that are not inside parentheses or quotes; parts trimmed, empty ones dropped. */
export function topLevelSplit(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (depth === 0 && c === ',') {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

/** Whitespace runs as one space: statements compared by meaning, not layout. */
export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

export interface CreateTable {
  database: string;
  table: string;
  /** Whether the statement already runs ON CLUSTER (generated output; never in a migration). */
  onCluster: boolean;
  /** The column block as written, parentheses included. */
  columnBlock: string;
  /** Column names in order. */
  columns: string[];
  /** e.g. `ReplacingMergeTree`. */
  engine: string;
  /** The engine's arguments as written (`loaded_at`), empty without any. */
  engineArgs: string[];
  /** PARTITION BY / ORDER BY / TTL / SETTINGS as written. */
  clauses: string;
}

const CREATE_TABLE_HEAD = /^CREATE TABLE IF NOT EXISTS (\w+)\.(\w+)(\s+ON CLUSTER '[^']*')?\s*(?=\()/;

/** A CREATE TABLE with a column block and an engine, or undefined for any other statement. */
export function parseCreateTable(statement: string): CreateTable | undefined {
  const head = CREATE_TABLE_HEAD.exec(statement);
  if (!head) return undefined;
  const block = balanced(statement, head[0].length);
  if (!block) return undefined;
  let rest = statement.slice(block.end).trimStart();
  const engine = /^ENGINE\s*=\s*(\w+)/.exec(rest);
  if (!engine) return undefined;
  rest = rest.slice(engine[0].length);
  let engineArgs: string[] = [];
  if (rest.startsWith('(')) {
    const args = balanced(rest, 0);
    if (!args) return undefined;
    engineArgs = topLevelSplit(args.inner).map(squash);
    rest = rest.slice(args.end);
  }
  return {
    database: head[1] ?? '',
    table: head[2] ?? '',
    onCluster: head[3] !== undefined,
    columnBlock: statement.slice(head[0].length, block.end),
    columns: topLevelSplit(block.inner).map((c) => c.split(/\s+/)[0] ?? ''),
    engine: engine[1] ?? '',
    engineArgs,
    clauses: rest.trim(),
  };
}

/** The columns of an ORDER BY clause (`ORDER BY (a, b)` or `ORDER BY a`) in `clauses`. */
export function orderByColumns(clauses: string): string[] {
  const match = /ORDER BY\s+(\([^)]*\)|\w+)/.exec(clauses);
  if (!match?.[1]) return [];
  return match[1]
    .replace(/^\(|\)$/g, '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
}
