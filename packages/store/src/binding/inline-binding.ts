/**
 * Binds `{name:Type}` placeholders in the statement text, for the embedded engine.
 *
 * Why: chDB 3.4's Node binding runs every parameterised statement of the process one at a time
 * (its parameter state is not isolated per connection, so it chains them process-wide), which
 * made every caller's query wait for every other one and for the pipeline's. A statement whose
 * values are already literals takes no parameters, so it runs on its own session in parallel with
 * the others. Values become literals only through literal.ts (validated by type, one escaped string
 * literal at most per value), never by pasting text.
 *
 * The scanner reads the statement the way ClickHouse's lexer does for what it needs: quoted strings
 * and identifiers ('...', "...", `...`, with backslash escapes and doubled quotes), `--` and nested
 * block comments are skipped; a `{` followed by a name and `:` is a placeholder. Anything it does
 * not read with certainty (a `$` heredoc, a `#` comment, an unterminated quote, a placeholder
 * written with spaces or naming a type outside bind-type.ts) makes it give up: the statement then
 * goes to the engine with its parameters, as before, which is correct and only slower.
 */
import { StoreError } from '../errors.js';
import type { QueryParams } from '../port.js';
import { parseBindType } from './bind-type.js';
import { literalFor } from './literal.js';

/** `sql` with every placeholder bound, or undefined when the engine must bind it (see above). */
export function bindInline(sql: string, params: QueryParams): string | undefined {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    if (c === "'" || c === '"' || c === '`') {
      const end = quotedEnd(sql, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline < 0 ? sql.length : newline + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = commentEnd(sql, i);
      if (end < 0) return undefined;
      i = end;
    } else if (c === '$' || c === '#') {
      return undefined;
    } else if (c === '{') {
      const placeholder = readPlaceholder(sql, i);
      if (placeholder === 'unknown') return undefined;
      if (placeholder === undefined) {
        i += 1;
        continue;
      }
      out += sql.slice(copied, i) + bound(placeholder.name, placeholder.type, params);
      i = placeholder.end;
      copied = i;
    } else {
      i += 1;
    }
  }
  return out + sql.slice(copied);
}

function bound(name: string, typeText: string, params: QueryParams): string {
  if (!Object.hasOwn(params, name)) {
    throw new StoreError('STORE_QUERY_INVALID', `query parameter "${name}" has no value`);
  }
  const type = parseBindType(typeText);
  // readPlaceholder has parsed it already; a second parse cannot fail.
  if (type === undefined) throw new StoreError('STORE_QUERY_INVALID', `unexpected type of "${name}"`);
  return literalFor(name, type, params[name]);
}

/** Index after the quoted token starting at `start`, or -1 when it is not closed. */
function quotedEnd(sql: string, start: number): number {
  const quote = sql[start];
  for (let i = start + 1; i < sql.length; i++) {
    const c = sql[i];
    if (c === '\\') {
      i += 1;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 1;
      else return i + 1;
    }
  }
  return -1;
}

/** Index after the block comment starting at `start` (ClickHouse nests them), or -1. */
function commentEnd(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length - 1; i++) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth += 1;
      i += 1;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth -= 1;
      i += 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

const NAME_AND_COLON = /\{\s*[A-Za-z_][A-Za-z0-9_]*\s*:/y;
/** A comment right after the brace: the lexer skips it, so a placeholder may follow. */
const COMMENT_AFTER_BRACE = /\{\s*(?:--|\/\*)/y;
const STRICT = /\{([A-Za-z_][A-Za-z0-9_]*):/y;

/**
 * The placeholder at `start` (a `{`): its name, type text and end; undefined when the brace opens
 * something else (a map literal); 'unknown' when it is a placeholder this module does not bind.
 */
function readPlaceholder(
  sql: string,
  start: number,
): { name: string; type: string; end: number } | undefined | 'unknown' {
  COMMENT_AFTER_BRACE.lastIndex = start;
  if (COMMENT_AFTER_BRACE.test(sql)) return 'unknown';
  NAME_AND_COLON.lastIndex = start;
  if (!NAME_AND_COLON.test(sql)) return undefined;
  STRICT.lastIndex = start;
  const head = STRICT.exec(sql);
  if (head === null) return 'unknown';
  const close = typeEnd(sql, STRICT.lastIndex);
  if (close < 0) return 'unknown';
  const type = sql.slice(STRICT.lastIndex, close);
  if (parseBindType(type) === undefined) return 'unknown';
  return { name: head[1] as string, type, end: close + 1 };
}

/** Index of the `}` closing a placeholder's type (quotes inside skipped), or -1. */
function typeEnd(sql: string, from: number): number {
  for (let i = from; i < sql.length; i++) {
    const c = sql[i];
    if (c === '}') return i;
    if (c === "'") {
      const end = quotedEnd(sql, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === '{' || c === '\n') {
      return -1;
    }
  }
  return -1;
}
