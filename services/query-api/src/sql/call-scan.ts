/**
 * The guard's second, independent reading of a statement: its canonical text, token by token.
 * The parse-tree outline (explain-outline.ts) does not print every part of every node (an
 * `APPLY(x -> file(...))` transformer prints as one bare line), so the functions a statement calls
 * are also read from the text ClickHouse itself printed, where nothing is hidden:
 *  - in canonical text every call is printed as `name(` with no space (or `` `quoted name`( ``), and
 *    string literals, quoted names and `{name:Type}` parameters are skipped whole, so a word inside
 *    a string is never mistaken for a call and a call is never hidden inside a token;
 *  - a word followed by a space and `(` is a keyword (`IN (`, `OVER (`, `USING (`); any word there
 *    that is not one of those keywords counts as a call as well;
 *  - words that change what the statement does rather than what it computes are refused outright:
 *    `SETTINGS`, `FORMAT`, `INTO OUTFILE`, and `APPLY` (which names its function without brackets);
 *  - comment markers cannot occur in canonical text outside literals; finding one means the text is
 *    not what the guard thinks it is, and it is refused.
 * Anything the scanner cannot read (an unterminated literal) is refused. The scan is linear in the
 * text's length and allocates one string per call found.
 */

export class CallScanError extends Error {}

export interface ScannedCalls {
  /** Every function name called, in order of appearance (duplicates kept). */
  calls: string[];
}

/** Keywords that canonical text prints before a space and `(`; any other word there is a call. */
const KEYWORDS_BEFORE_BRACKET = new Set([
  'AND',
  'ALL',
  'ANY',
  'AS',
  'BY',
  'DISTINCT',
  'EXCEPT',
  'FROM',
  'IN',
  'INTERPOLATE',
  'INTERSECT',
  'JOIN',
  'NOT',
  'ON',
  'OR',
  'OVER',
  'REPLACE',
  'SELECT',
  'UNION',
  'USING',
  'WHERE',
  'PREWHERE',
  'HAVING',
  'QUALIFY',
  'WITH',
  'WINDOW',
  'THEN',
  'ELSE',
  'WHEN',
  'CASE',
  'BETWEEN',
  'LIKE',
  'ILIKE',
  'IS',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'TO',
  'STEP',
  'FILL',
]);

/** Keywords refused wherever they stand outside a literal (canonical text prints keywords in capitals). */
const REFUSED_KEYWORDS = new Map([
  ['SETTINGS', 'SETTINGS clauses are not allowed: the API sets the limits itself'],
  ['OUTFILE', 'INTO OUTFILE is not allowed'],
  ['APPLY', 'APPLY transformers are not allowed: call the function on the columns instead'],
]);

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;

/** The index just past a quoted token starting at `start` (quote char at `start`). */
export function skipQuoted(text: string, start: number): number {
  const quote = text[start] as string;
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      // A doubled quote is an escaped one.
      if (text[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  throw new CallScanError('an unterminated literal or quoted name');
}

/** The unquoted content of a quoted name (backslash and doubled-quote escapes undone). */
function unquote(token: string): string {
  const quote = token[0] as string;
  return token
    .slice(1, -1)
    .replace(/\\(.)/g, '$1')
    .split(quote + quote)
    .join(quote);
}

/** `{name:Type}`: a query parameter; returns the index past its closing brace, or -1 if not one. */
export function skipParameter(text: string, start: number): number {
  const head = /^\{[A-Za-z_][A-Za-z0-9_]*:/.exec(text.slice(start, start + 80));
  if (!head) return -1;
  let i = start + head[0].length;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '}') return i + 1;
    if (ch === "'" || ch === '`' || ch === '"') {
      i = skipQuoted(text, i);
      continue;
    }
    if (ch === '{') throw new CallScanError('a parameter type with a brace');
    i += 1;
  }
  throw new CallScanError('an unterminated parameter');
}

/** Reads the canonical text of one statement; throws CallScanError saying what it refused. */
export function scanCalls(text: string): ScannedCalls {
  const calls: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'") {
      i = skipQuoted(text, i);
    } else if (ch === '`' || ch === '"') {
      const end = skipQuoted(text, i);
      if (text[end] === '(') calls.push(unquote(text.slice(i, end)));
      i = end;
    } else if (ch === '{') {
      const end = skipParameter(text, i);
      i = end === -1 ? i + 1 : end;
    } else if ((ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*') || ch === '#') {
      throw new CallScanError('a comment marker outside a literal');
    } else if (WORD_START.test(ch) && (i === 0 || !WORD_PART.test(text[i - 1] as string))) {
      let end = i + 1;
      while (end < text.length && WORD_PART.test(text[end] as string)) end += 1;
      const word = text.slice(i, end);
      const refused = REFUSED_KEYWORDS.get(word);
      if (refused !== undefined) throw new CallScanError(refused);
      if (word === 'FORMAT' && text[end] === ' ') throw new CallScanError('FORMAT is not allowed here');
      if (text[end] === '(') {
        calls.push(word);
      } else if (text[end] === ' ' && text[end + 1] === '(' && !KEYWORDS_BEFORE_BRACKET.has(word)) {
        calls.push(word);
      }
      i = end;
    } else {
      i += 1;
    }
  }
  return { calls };
}
