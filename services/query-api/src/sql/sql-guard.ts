/**
 * The one gate for caller SQL (POST/GET /v1/sql; issue #16's ClickHouse-HTTP endpoint reuses it).
 * Nothing here reads SQL text on its own terms: ClickHouse's own parser judges it, and what runs is
 * what it judged. No step of the check evaluates anything the caller wrote: the guard's queries only
 * parse (formatQuerySingleLine, EXPLAIN AST) and read the catalogue; the caller's expressions first
 * run in the statement that runs, after every check has passed. (An analysis step, EXPLAIN QUERY
 * TREE, once folded constant expressions here: `file()` and `url()` in a lambda ran before any check
 * refused them, and their errors carried what they read.)
 *
 * 1. Canonical text. The caller's text goes to `formatQuerySingleLine` as a query PARAMETER (never
 *    spliced into SQL). ClickHouse parses exactly one statement (several, or garbage, are refused
 *    by the parser) and prints it back without comments, on one line. Formatting that text again
 *    must give the same text, so it is one balanced statement. From here on only that text is used.
 *    On the ClickHouse-protocol endpoint (`output: 'clause'`), a trailing `FORMAT <name>` of that
 *    text is split off (the caller's choice of output, never run as text) and the rest must be a
 *    canonical statement of its own; /v1/sql refuses FORMAT.
 * 2. Kind. SELECT / WITH / ( go on; SHOW TABLES [LIKE], SHOW COLUMNS, SHOW CREATE TABLE,
 *    DESCRIBE (metadata-answers.ts) and the catalogue probes of catalog-answers.ts (SHOW DATABASES,
 *    EXISTS, the connect probes of ClickHouse clients) are answered by a SELECT the API writes
 *    itself, from the allow-list; EXPLAIN [kind] of a statement that passes this whole guard first
 *    is the EXPLAIN of what the guard returned; system.databases/tables/columns are renamed to the
 *    API's views of the allow-list, the rename checked on the parse tree (catalog-views.ts);
 *    anything else is refused.
 * 3. Parse tree (`EXPLAIN AST`, which only parses; EXPLAIN in a subquery takes SELECTs only and
 *    refuses FORMAT and INTO OUTFILE). Every node type must be one a SELECT is made of and whose
 *    outline shows all its parts (an allow-list of node types: no `Set`, so no SETTINGS anywhere;
 *    no APPLY transformer, whose function the outline does not print); no table functions; every
 *    table named is an allowed market-data table (bare names must be CTEs: no table of that name
 *    may exist in the current database); every function is on the allow-list of function-policy.ts
 *    (no dictGet, joinGet, file, ...).
 * 4. Text (call-scan.ts), independently of step 3: every call in the canonical text, wherever it
 *    stands (lambdas, transformers, WITH, windows, JOIN conditions, subqueries in any clause), is
 *    on the same allow-list, and SETTINGS, FORMAT, INTO OUTFILE and APPLY do not occur.
 * 5. What runs is `SELECT * FROM (<canonical>)` with the API's SETTINGS appended by code
 *    (readonly = 1, or 2 as a server's reader user, and the limits), so the limits bind a whole UNION.
 * Behind the guard, the engine itself cannot reach the host (packages/store's engine sandbox on
 * embedded chDB; the reader user's grants on a server), and its errors reach the caller only as a
 * code and a message of ours (query/engine-errors.ts).
 *
 * Note: a SETTINGS clause inside a subquery DOES override an outer `SETTINGS readonly = 1` in
 * chDB 3.4 (checked: `SELECT * FROM (SELECT * FROM file(...) SETTINGS readonly = 0) SETTINGS
 * readonly = 1` reads the file). Steps 3 and 4 refuse every SETTINGS clause, which closes that; on a
 * server, the SQL user's profile makes readonly a constraint as well (see the README).
 */

import type { SettingValue } from '@feedpipe/store';
import { QueryApiError } from '../errors.js';
import { ScrubbedEngineError } from '../query/engine-errors.js';
import type { QueryParams, QueryRunner } from '../query/query-runner.js';
import { MARKET_DATA_TABLES, SQL_READABLE_TABLES } from './allowed-tables.js';
import { analysisBudgetRefusal } from './analysis-budget.js';
import { CallScanError, scanCalls } from './call-scan.js';
import type { CatalogFacts } from './catalog-answers.js';
import { outlinesMatchRename, renameCatalogTables } from './catalog-views.js';
import { metadataAnswer } from './metadata-answers.js';
import { type GuardedSql, refuse } from './refusal.js';

export { type GuardedKind, type GuardedSql, type RefusalReason, SqlRefusal } from './refusal.js';

import { type AstNode, nodeName, OutlineError, parseAstOutline } from './explain-outline.js';
import { type FunctionPolicy, functionPolicy } from './function-policy.js';

export interface SqlGuardLimits {
  maxSqlLength: number;
  maxExecutionSec: number;
  /** What the settings probe reports (catalog-answers.ts); unset ones are not reported. */
  maxMemoryBytes?: number;
  maxResultRows?: number;
  maxResultBytes?: number;
}

export interface CheckOptions {
  /**
   * `refuse` (/v1/sql, the default): FORMAT and INTO OUTFILE are refused, the output is a field of
   * the request. `clause` (the ClickHouse HTTP protocol): a trailing FORMAT clause names the output.
   */
  output?: 'refuse' | 'clause';
}

/** Outlines are bounded by the query's length; this bounds what the guard buffers anyway. */
const MAX_OUTLINE_BYTES = 32 * 1024 * 1024;

/** What a SELECT is made of (EXPLAIN AST node types). Unknown types are refused, not guessed. */
const SELECT_NODES = new Set([
  'SelectWithUnionQuery',
  'SelectIntersectExceptQuery',
  'SelectQuery',
  'ExpressionList',
  'WithElement',
  'Subquery',
  'TablesInSelectQuery',
  'TablesInSelectQueryElement',
  'TableExpression',
  'TableIdentifier',
  'TableJoin',
  'ArrayJoin',
  'SampleRatio',
  'Identifier',
  'Function',
  'Literal',
  'Asterisk',
  'QualifiedAsterisk',
  'ColumnsRegexpMatcher',
  'ColumnsListMatcher',
  'QualifiedColumnsRegexpMatcher',
  'QualifiedColumnsListMatcher',
  'ColumnsTransformerList',
  'ColumnsApplyTransformer',
  'ColumnsExceptTransformer',
  'ColumnsReplaceTransformer',
  'ColumnsReplaceTransformer::Replacement',
  // Not 'ColumnsApplyTransformer': its outline is one bare line, the function it applies unprinted.
  'OrderByElement',
  'InterpolateElement',
  'WindowDefinition',
  'WindowListElement',
]);

/** What may stand in a FROM or JOIN: a table or a subquery (so no table function). */
const TABLE_EXPRESSION_CHILDREN = new Set(['TableIdentifier', 'Subquery', 'SampleRatio']);

/** Functions whose right-hand argument may be a bare table name (`x IN market.ticks`). */
const IN_FUNCTIONS = /^(global)?(not)?(null)?in(ignoreset)?$/i;

/**
 * `EXPLAIN [kind] <statement>` without EXPLAIN settings: the statement takes the whole guard first
 * and the EXPLAIN is of what the guard returned, so kinds that analyse it (PLAN, PIPELINE, QUERY
 * TREE, ESTIMATE fold constants) evaluate only what a SELECT of the caller's may run anyway.
 */
const EXPLAIN = /^EXPLAIN(?: (AST|SYNTAX|PLAN|PIPELINE|ESTIMATE|QUERY TREE))? ((?:SELECT|WITH|\().*)$/;

/** A trailing FORMAT clause of a canonical (single-line) statement: ` FORMAT <identifier>`. */
const FORMAT_CLAUSE = /^(.+) FORMAT ([A-Za-z][A-Za-z0-9_]*)$/;

function allowedList(): string {
  return MARKET_DATA_TABLES.join(', ');
}

/**
 * Where the parser stopped, in the caller's own text: the position and the few characters there,
 * taken from the text the caller sent (the engine's message itself is not passed on).
 */
function parsePlace(error: unknown, text: string): string {
  const cause = error instanceof QueryApiError ? error.cause : error;
  const position = cause instanceof ScrubbedEngineError ? cause.failure.position : undefined;
  if (position === undefined) return 'syntax error';
  const near = text.slice(position, position + 20).replace(/\s+/g, ' ');
  return `syntax error at position ${position}${near === '' ? ' (end of text)' : ` (near ${JSON.stringify(near)})`}`;
}

export class SqlGuard {
  readonly #runner: QueryRunner;
  readonly #limits: SqlGuardLimits;
  readonly #settings: Readonly<Record<string, SettingValue>>;
  readonly #explainSettings: Readonly<Record<string, SettingValue>>;
  readonly #facts: CatalogFacts;

  constructor(runner: QueryRunner, limits: SqlGuardLimits) {
    this.#runner = runner;
    this.#limits = limits;
    this.#facts = { readonlyLevel: runner.readonlyLevel, limits };
    // The guard's own queries run under the same time wall as the caller's, and read-only (at the
    // level the runner's login allows asking for: see QueryRunner's `readonly` option).
    this.#settings = { readonly: runner.readonlyLevel, max_execution_time: limits.maxExecutionSec };
    // ClickHouse refuses EXPLAIN under readonly = 1; readonly = 2 still refuses every write and DDL.
    this.#explainSettings = { readonly: 2, max_execution_time: limits.maxExecutionSec };
  }

  /** Rows of one of the guard's inspection queries; the caller's mistakes are their 400. */
  async #lines<T>(
    sql: string,
    params: QueryParams,
    settings: Readonly<Record<string, SettingValue>> = this.#settings,
  ): Promise<T[]> {
    const stream = await this.#runner.stream({ sql, params, format: 'ndjson', settings }, 'caller');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buffer.length;
      if (size > MAX_OUTLINE_BYTES) {
        stream.destroy();
        refuse('sql is too complex to verify');
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as T);
  }

  async #canonical(text: string): Promise<string> {
    // The OrNull form tells "not one statement" from a store failure without reading messages.
    const rows = await this.#lines<{ canonical: string | null; again: string | null }>(
      'SELECT formatQuerySingleLineOrNull({text:String}) AS canonical, formatQuerySingleLineOrNull(canonical) AS again',
      { text },
    );
    const row = rows[0];
    if (row === undefined || rows.length !== 1) refuse('sql could not be parsed', undefined, 'syntax');
    if (row.canonical === null)
      refuse(
        `sql is not exactly one statement ClickHouse can parse: ${await this.#parseError(text)}`,
        undefined,
        'syntax',
      );
    if (row.canonical !== row.again) refuse('sql does not have a stable canonical form');
    if (row.canonical.includes('\n')) refuse('sql does not have a single-line canonical form');
    return row.canonical;
  }

  /** The parser's reason, for the 400: the position in the caller's own text. */
  async #parseError(text: string): Promise<string> {
    try {
      await this.#lines('SELECT formatQuerySingleLine({text:String})', { text });
    } catch (error) {
      if (error instanceof QueryApiError) return parsePlace(error, text);
    }
    return 'no statement';
  }

  async #explain(kind: 'AST', sql: string, params: QueryParams): Promise<string[]> {
    const rows = await this.#lines<{ explain: string }>(
      `SELECT explain FROM (EXPLAIN ${kind} ${sql})`,
      params,
      this.#explainSettings,
    );
    return rows.map((r) => r.explain);
  }

  /** Step 3: the parse tree. Returns bare names that must be CTEs, not tables. */
  #checkAst(root: AstNode, policy: FunctionPolicy): Set<string> {
    if (root.type !== 'SelectWithUnionQuery' && root.type !== 'SelectIntersectExceptQuery') {
      refuse('only one SELECT statement is accepted');
    }
    const bare = new Set<string>();
    const table = (name: string | undefined, raw: string): void => {
      if (name === undefined) refuse(`table name ${raw} is not allowed: use market.<table>`);
      if (!name.includes('.')) {
        bare.add(name);
      } else if (!SQL_READABLE_TABLES.has(name)) {
        refuse(`table ${name} is not readable with SQL; allowed: ${allowedList()}`);
      }
    };
    const pending: AstNode[] = [root];
    while (pending.length > 0) {
      const node = pending.pop() as AstNode;
      if (node.type === 'Set') {
        refuse('SETTINGS clauses are not allowed: the API sets the limits itself', undefined, 'readonly');
      }
      if (node.type === 'ColumnsApplyTransformer') {
        refuse('APPLY transformers are not allowed: call the function on the columns instead');
      }
      if (!SELECT_NODES.has(node.type)) refuse(`the SQL construct ${node.type} is not allowed`);
      if (node.type === 'TableExpression') {
        for (const child of node.children) {
          if (child.type === 'Function') {
            refuse(
              `table functions are not allowed (${nodeName(child, false) ?? 'unnamed'}): read market.<table>`,
            );
          }
          if (!TABLE_EXPRESSION_CHILDREN.has(child.type)) refuse(`${child.type} is not allowed in FROM`);
        }
      } else if (node.type === 'TableIdentifier') {
        table(nodeName(node, true), node.rest);
      } else if (node.type === 'Function') {
        const name = nodeName(node, false);
        if (name === undefined || !policy.allows(name)) {
          refuse(`function ${name ?? node.rest} is not allowed`);
        }
        // `x IN name`: the name is a table or a CTE.
        const right = IN_FUNCTIONS.test(name) ? node.children[0]?.children[1] : undefined;
        if (right?.type === 'Identifier') table(nodeName(right, true), right.rest);
      }
      pending.push(...node.children);
    }
    return bare;
  }

  /** Bare names resolve to a CTE or else to a table of the current database: allow only the first. */
  async #checkBareNames(names: Set<string>): Promise<void> {
    if (names.size === 0) return;
    const tables = await this.#runner.rows<{ name: string }>(
      'SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)}',
      { names: [...names] },
    );
    const first = tables[0];
    if (first !== undefined) refuse(`table ${first.name} is not readable with SQL: use market.<table>`);
  }

  /** Step 4: every call the canonical text makes is allowed (see call-scan.ts). */
  #checkCalls(canonical: string, policy: FunctionPolicy): void {
    let calls: string[];
    try {
      ({ calls } = scanCalls(canonical));
    } catch (error) {
      if (error instanceof CallScanError) refuse(error.message, error);
      throw error;
    }
    for (const name of calls) {
      if (!policy.allows(name)) refuse(`function ${name} is not allowed`);
    }
    const overBudget = analysisBudgetRefusal(calls);
    if (overBudget !== undefined) refuse(overBudget);
  }

  #metadata(canonical: string): GuardedSql | undefined {
    return metadataAnswer(canonical, this.#facts);
  }

  /** Step 1b (`output: 'clause'`): a trailing FORMAT clause split off a canonical statement. */
  async #splitFormat(canonical: string): Promise<{ body: string; format?: string }> {
    const match = FORMAT_CLAUSE.exec(canonical);
    if (!match) return { body: canonical };
    const [, body, format] = match as unknown as [string, string, string];
    // What is left must be a statement in its own canonical form, or the split misread the text.
    if ((await this.#canonical(body)) !== body) refuse('sql has a FORMAT clause that is not its last clause');
    return { body, format };
  }

  /**
   * The renamed statement, once its parse tree is the original's with only the catalogue tables'
   * identifiers renamed (catalog-views.ts); anything else is refused.
   */
  async #checkedRename(canonical: string, renamed: string, params: QueryParams): Promise<string> {
    let same = false;
    try {
      const [before, after] = [
        await this.#explain('AST', canonical, params),
        await this.#explain('AST', renamed, params),
      ];
      same = outlinesMatchRename(before, after);
    } catch (error) {
      refuse('a statement over the system catalogue tables could not be verified', error);
    }
    if (!same) refuse('a statement over the system catalogue tables could not be verified');
    return renamed;
  }

  /** EXPLAIN of a statement that passed the whole guard (EXPLAIN above). */
  async #explainOf(match: RegExpExecArray, params: QueryParams): Promise<GuardedSql> {
    const [, kind, statement] = match as unknown as [string, string | undefined, string];
    // The split must leave a statement in its own canonical form, or it misread the text.
    if ((await this.#canonical(statement)) !== statement)
      refuse('EXPLAIN of a statement that could not be read');
    const inner = await this.check(statement, params);
    if (inner.kind !== 'select') refuse('EXPLAIN is answered for SELECT statements only');
    return {
      kind: 'explain',
      sql: `EXPLAIN ${kind === undefined ? '' : `${kind} `}${inner.sql}`,
      params: inner.params,
    };
  }

  /** Verifies caller SQL; returns the statement to run, or throws SQL_REFUSED (400) saying why. */
  async check(text: string, params: QueryParams = {}, options: CheckOptions = {}): Promise<GuardedSql> {
    if (text.length > this.#limits.maxSqlLength) {
      refuse(`sql is longer than ${this.#limits.maxSqlLength} characters`, undefined, 'size');
    }
    if (text.trim() === '') refuse('sql is empty', undefined, 'syntax');
    let canonical = await this.#canonical(text);
    let format: string | undefined;
    if (options.output === 'clause') ({ body: canonical, format } = await this.#splitFormat(canonical));
    const named = format === undefined ? {} : { format };
    const explained = EXPLAIN.exec(canonical);
    if (explained) return { ...(await this.#explainOf(explained, params)), ...named };
    const metadata = this.#metadata(canonical);
    if (metadata) return { ...metadata, ...named };
    // system.databases/tables/columns: the API's views of them (catalog-views.ts), checked below.
    const renamed = renameCatalogTables(canonical);
    if (renamed !== undefined) canonical = await this.#checkedRename(canonical, renamed, params);
    // The canonical text starts with its statement's keyword; the parse tree below decides.
    if (!/^(SELECT|WITH|\()/.test(canonical)) {
      refuse(
        `only one SELECT statement is accepted (read-only); got ${canonical.split(' ', 1)[0]}`,
        undefined,
        'readonly',
      );
    }
    const policy = await functionPolicy(this.#runner);
    // Judge exactly the text that will run. Wrapped, the caller's SETTINGS (refused below anyway)
    // belong to a subquery, so they do not even apply to the EXPLAIN itself.
    const sql = `SELECT * FROM (\n${canonical}\n)`;
    let root: AstNode;
    try {
      root = parseAstOutline(await this.#explain('AST', sql, params));
    } catch (error) {
      if (error instanceof OutlineError) refuse(`the query could not be verified: ${error.message}`, error);
      if (error instanceof QueryApiError && error.code === 'QUERY_FAILED') {
        // The canonical text parsed alone but not as a subquery: it carries output options. The
        // refusal does not depend on this reading of the message, only its wording does.
        if (error.cause instanceof ScrubbedEngineError && error.cause.failure.code === 62) {
          refuse(
            options.output === 'clause'
              ? 'INTO OUTFILE is not allowed, and FORMAT only as the last clause'
              : 'FORMAT and INTO OUTFILE are not allowed: choose the output with the "format" field',
            error,
          );
        }
        refuse(
          `not a single plain SELECT: ${error.message.replace(/^ClickHouse refused the query: /, '')}`,
          error,
        );
      }
      throw error;
    }
    const bareNames = this.#checkAst(root, policy);
    this.#checkCalls(canonical, policy);
    await this.#checkBareNames(bareNames);
    return { kind: 'select', sql, params, ...named };
  }
}

/** One guard per runner: the function catalogue is read once per engine. */
export function guardUserSql(
  runner: QueryRunner,
  limits: SqlGuardLimits,
  text: string,
  params: QueryParams = {},
): Promise<GuardedSql> {
  return new SqlGuard(runner, limits).check(text, params);
}
