/**
 * CSV records (RFC 4180) of a whole downloaded file, one at a time: fields split on commas, quoted
 * fields may hold commas, doubled quotes and line breaks, CRLF and LF both end a record. A state
 * machine over the text with hard limits, so a broken file (an unclosed quote that swallows the
 * rest, a line of megabytes) yields a record marked too long instead of growing without bound.
 */

/** Most fields one record may have; a wider one is malformed. */
export const MAX_FIELDS = 256;
/** Longest field; the list's longest real values are tens of characters. */
export const MAX_FIELD_CHARS = 4_096;

export interface CsvRecord {
  /** 1-based line number where the record starts. */
  line: number;
  fields: string[];
  /** Set when the record broke a limit or a quote was left open; its fields are then incomplete. */
  fault?: 'too_many_fields' | 'field_too_long' | 'unclosed_quote';
}

type State = 'field_start' | 'unquoted' | 'quoted' | 'quote_in_quoted';

export function* csvRecords(text: string): Generator<CsvRecord> {
  let line = 1;
  let startLine = 1;
  let fields: string[] = [];
  let field = '';
  let state: State = 'field_start';
  let fault: CsvRecord['fault'];
  const endField = (): void => {
    if (fields.length >= MAX_FIELDS) fault ??= 'too_many_fields';
    else fields.push(field);
    field = '';
  };
  const add = (ch: string): void => {
    if (field.length >= MAX_FIELD_CHARS) fault ??= 'field_too_long';
    else field += ch;
  };
  const finish = (): CsvRecord => {
    endField();
    const record: CsvRecord = fault ? { line: startLine, fields, fault } : { line: startLine, fields };
    fields = [];
    fault = undefined;
    state = 'field_start';
    return record;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (state === 'quoted') {
      if (ch === '"') state = 'quote_in_quoted';
      else {
        if (ch === '\n') line += 1;
        add(ch);
      }
      continue;
    }
    if (state === 'quote_in_quoted' && ch === '"') {
      add('"');
      state = 'quoted';
      continue;
    }
    // Outside quotes (a closed quoted field continues unquoted, as lenient readers take it).
    if (ch === ',') {
      endField();
      state = 'field_start';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      const blank = fields.length === 0 && field === '' && state === 'field_start';
      if (!blank) yield finish();
      line += 1;
      startLine = line;
    } else if (ch === '"' && state === 'field_start') {
      state = 'quoted';
    } else {
      add(ch);
      state = 'unquoted';
    }
  }
  if (state === 'quoted') fault ??= 'unclosed_quote';
  if (fields.length > 0 || field !== '' || state !== 'field_start') yield finish();
}
