/**
 * Reads the outline ClickHouse prints of a query's parse tree, `EXPLAIN AST` (one node a line, one
 * space of indent per level: `Function plus (alias x) (children 1)`). Some nodes print less than
 * they hold (an APPLY transformer is one bare line); the guard refuses those by type and reads
 * every call from the canonical text as well (call-scan.ts).
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
