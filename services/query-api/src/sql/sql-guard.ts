/**
 * The API-side gate of POST /v1/sql, in front of ClickHouse's own readonly = 1: one statement that
 * only reads, no SETTINGS (limits are ours to set), no FORMAT (the `format` field chooses), no
 * INTO OUTFILE (embedded ClickHouse would write on this machine). Each refusal says why.
 */
import { QueryApiError } from '../errors.js';
import { type SqlLexError, type Token, tokenize } from './sql-lexer.js';

export type StatementKind = 'select' | 'show' | 'describe' | 'explain';

export interface CheckedSql {
  /** The statement without trailing semicolons. */
  sql: string;
  kind: StatementKind;
}

const LEADING: Record<string, StatementKind> = {
  SELECT: 'select',
  WITH: 'select',
  SHOW: 'show',
  DESCRIBE: 'describe',
  DESC: 'describe',
  EXPLAIN: 'explain',
};

function refuse(message: string): never {
  throw new QueryApiError('SQL_REFUSED', message, { field: 'sql' });
}

function firstWord(tokens: readonly Token[]): Token | undefined {
  return tokens.find((t) => !(t.kind === 'punct' && t.text === '('));
}

export function checkSql(text: string, maxLength: number): CheckedSql {
  if (text.length > maxLength) refuse(`sql is longer than ${maxLength} characters`);
  let tokens: Token[];
  try {
    tokens = tokenize(text);
  } catch (error) {
    refuse(`sql could not be read: ${(error as SqlLexError).message}`);
  }
  if (tokens.length === 0) refuse('sql is empty');
  let end = tokens.length;
  while (end > 0 && tokens[end - 1]?.kind === 'punct' && tokens[end - 1]?.text === ';') end -= 1;
  const body = tokens.slice(0, end);
  if (body.some((t) => t.kind === 'punct' && t.text === ';')) {
    refuse('only one statement per request: remove the ";" between statements');
  }
  const first = firstWord(body);
  const kind = first?.kind === 'word' ? LEADING[first.upper] : undefined;
  if (kind === undefined) {
    const shown = first?.kind === 'word' ? first.upper : (first?.text ?? '');
    refuse(
      `only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN statements are allowed (read-only); got ${shown || 'nothing'}`,
    );
  }
  if (body[0]?.kind === 'punct' && kind !== 'select') refuse('only a SELECT may start with "("');
  for (let i = 0; i < body.length; i++) {
    const token = body[i] as Token;
    if (token.kind !== 'word') continue;
    const next = body[i + 1];
    if (token.upper === 'SETTINGS') {
      refuse('SETTINGS clauses are not allowed: the API sets the read-only limits itself');
    }
    if (token.upper === 'FORMAT' && !(next?.kind === 'punct' && next.text === '(')) {
      refuse('FORMAT clauses are not allowed: choose the output with the "format" field');
    }
    if (token.upper === 'OUTFILE') refuse('INTO OUTFILE is not allowed');
  }
  // Cut just past the last real token, so a trailing ";" or "-- comment" cannot swallow or
  // separate what the API appends (the SETTINGS clause with the limits).
  return { sql: text.slice(0, body[body.length - 1]?.end ?? 0), kind };
}
