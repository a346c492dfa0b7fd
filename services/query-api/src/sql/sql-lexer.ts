/**
 * Just enough of a ClickHouse SQL lexer to judge a statement's shape: words, `;` and punctuation,
 * with string literals, quoted identifiers, heredocs and comments skipped, so a `;` or SETTINGS
 * inside a string or a comment is never mistaken for syntax. Anything it cannot close (an
 * unterminated string or comment) is an error: refusing is safer than guessing.
 */
/** `end` is the offset just past the token in the source text. */
export type Token =
  | { kind: 'word'; text: string; upper: string; end: number }
  | { kind: 'punct'; text: string; end: number };

export class SqlLexError extends Error {}

function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  throw new SqlLexError(`unterminated ${quote === "'" ? 'string literal' : 'quoted identifier'}`);
}

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i] as string;
    if (/\s/.test(ch)) {
      i += 1;
    } else if ((ch === '-' && sql[i + 1] === '-') || ch === '#') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) throw new SqlLexError('unterminated /* comment');
      i = end + 2;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      i = skipQuoted(sql, i, ch);
      tokens.push({ kind: 'punct', text: ch === "'" ? 'literal' : 'identifier', end: i });
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z0-9_]*\$/.exec(sql.slice(i, i + 64));
      if (!tag) {
        i += 1;
        tokens.push({ kind: 'punct', text: ch, end: i });
        continue;
      }
      const end = sql.indexOf(tag[0], i + tag[0].length);
      if (end === -1) throw new SqlLexError('unterminated heredoc string');
      i = end + tag[0].length;
      tokens.push({ kind: 'punct', text: 'literal', end: i });
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i, i + 256)) as RegExpExecArray;
      const text = match[0];
      i += text.length;
      tokens.push({ kind: 'word', text, upper: text.toUpperCase(), end: i });
    } else {
      i += 1;
      tokens.push({ kind: 'punct', text: ch, end: i });
    }
  }
  return tokens;
}
