/**
 * Reads the two outlines ClickHouse prints about a query: `EXPLAIN AST` (the parse tree, one node a
 * line, one space of indent per level: `Function plus (alias x) (children 1)`) and
 * `EXPLAIN QUERY TREE` (the analysed tree: `TABLE id: 8, table_name: market.ticks`).
 *
 * Literals are printed escaped, but names and aliases are printed raw: a quoted name holding a
 * newline (`AS \`a<newline> TableIdentifier x\``) splits its own line and adds lines of the
 * caller's choosing. Such lines can only ADD nodes, never remove or move real ones, provided the
 * tree is consistent: every node must have exactly the number of children its line declares, and
 * there is one root. A line added at a depth above the split line would give a real node one child
 * too many; so added lines can only hang under the split node itself, real nodes keep their real
 * parents, and every check below runs over real nodes (plus, harmlessly, some invented ones).
 * Anything that does not have the expected shape is an error: the guard refuses what it cannot read.
 */

export class OutlineError extends Error {}

export interface AstNode {
  /** `SelectQuery`, `TableIdentifier`, `Function`, ... */
  type: string;
  /** What follows the type: a name, `(alias x)`, `(children n)`. */
  rest: string;
  /** The `(children n)` the line declares; 0 when it declares none. */
  declared: number;
  children: AstNode[];
}

const DECLARED = /(?:^| )\(children (\d+)\)$/;

function checkCounts(root: AstNode): void {
  const pending: AstNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as AstNode;
    if (node.children.length !== node.declared) {
      throw new OutlineError(
        `node ${node.type} declares ${node.declared} children and has ${node.children.length}`,
      );
    }
    pending.push(...node.children);
  }
}

/** The AST outline as a tree with one root; the indent must grow one level at a time. */
export function parseAstOutline(lines: readonly string[]): AstNode {
  const roots: AstNode[] = [];
  const stack: AstNode[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    const depth = line.length - line.trimStart().length;
    if (depth > stack.length) throw new OutlineError(`unexpected indent in "${line.slice(0, 80)}"`);
    const body = line.slice(depth);
    const space = body.indexOf(' ');
    const rest = space === -1 ? '' : body.slice(space + 1);
    const node: AstNode = {
      type: space === -1 ? body : body.slice(0, space),
      rest,
      declared: Number(DECLARED.exec(rest)?.[1] ?? 0),
      children: [],
    };
    stack.length = depth;
    if (depth === 0) roots.push(node);
    else (stack[depth - 1] as AstNode).children.push(node);
    stack.push(node);
  }
  if (roots.length !== 1) throw new OutlineError(`expected one statement, found ${roots.length}`);
  const root = roots[0] as AstNode;
  checkCounts(root);
  return root;
}

const SIMPLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The name of a `Function`, `TableIdentifier` or `Identifier` node: the text before ` (alias ...)`
 * or ` (children n)`. Only plain names (letters, digits, _; one dot for db.table) are returned;
 * anything else (a quoted name with spaces or punctuation) is undefined, which callers refuse.
 */
export function nodeName(node: AstNode, dotted: boolean): string | undefined {
  let text = node.rest.replace(DECLARED, '');
  const alias = text.indexOf(' (alias ');
  if (alias !== -1) text = text.slice(0, alias);
  const parts = text.split('.');
  if (parts.length > (dotted ? 2 : 1)) return undefined;
  return parts.every((p) => SIMPLE_NAME.test(p)) ? text : undefined;
}

export interface QueryTreeFacts {
  tables: string[];
  tableFunctions: string[];
  functions: string[];
  /** Lines about tables or functions whose shape was not understood. */
  unreadable: string[];
}

// The analyser replaces user aliases of tables by __tableN, and the table name comes last but for
// the `final` flag; the whole line must match, so no alias or name can imitate another field.
const TABLE_LINE =
  /^TABLE id: \d+(?:, alias: __table\d+)?, table_name: ([A-Za-z0-9_]+\.[A-Za-z0-9_]+)(?:, final: 1)?$/;
const FUNCTION_LINE = /^FUNCTION id: \d+, function_name: ([A-Za-z_][A-Za-z0-9_]*), function_type: [a-z_]+, /;
const TABLE_FUNCTION_LINE = /^TABLE_FUNCTION id: \d+,.*table_function_name: ([A-Za-z0-9_]+)/;

/** Every table, table function and function the analysed query uses. */
export function readQueryTree(lines: readonly string[]): QueryTreeFacts {
  const facts: QueryTreeFacts = { tables: [], tableFunctions: [], functions: [], unreadable: [] };
  for (const line of lines) {
    const body = line.trimStart();
    if (body.startsWith('TABLE_FUNCTION')) {
      facts.tableFunctions.push(TABLE_FUNCTION_LINE.exec(body)?.[1] ?? body.slice(0, 120));
    } else if (body.startsWith('TABLE')) {
      const match = TABLE_LINE.exec(body);
      if (match) facts.tables.push(match[1] as string);
      else facts.unreadable.push(body.slice(0, 120));
    } else if (body.startsWith('FUNCTION')) {
      const match = FUNCTION_LINE.exec(body);
      if (match) facts.functions.push(match[1] as string);
      else facts.unreadable.push(body.slice(0, 120));
    }
  }
  return facts;
}
