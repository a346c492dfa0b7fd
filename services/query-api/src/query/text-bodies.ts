/**
 * The text formats' envelopes around rows that ClickHouse wrote one by one (formatRowNoNewline):
 * what ClickHouse's own JSON, JSONEachRow and CSVWithNames writers put around the same rows, so an
 * answer assembled from a folded statement (analytics/bars-folding.ts) reads exactly as one written
 * whole. The rows themselves are never written here, only joined.
 */
import type { OutputFormat } from './formats.js';
import type { ResultColumn } from './time-columns.js';

/** The formats whose answer can be assembled from rows, and the ClickHouse format of each row. */
export const ROW_FORMATS = {
  json: 'JSONEachRow',
  ndjson: 'JSONEachRow',
  csv: 'CSV',
} as const satisfies Partial<Record<OutputFormat, string>>;

export type RowTextFormat = keyof typeof ROW_FORMATS;

export function isRowTextFormat(format: OutputFormat): format is RowTextFormat {
  return Object.hasOwn(ROW_FORMATS, format);
}

/**
 * The whole answer in `format`, from the rows as bytes (slices of the statement's result, copied
 * once, here). `elapsedSec` fills JSON's statistics (from sending the statement to its whole
 * result, its wait for a turn included; the rows read by a statement that answered several
 * requests at once belong to no single one of them, so they are left out, which the format allows).
 */
export function textBody(
  format: RowTextFormat,
  columns: readonly ResultColumn[],
  rows: readonly Buffer[],
  elapsedSec: number,
): Buffer {
  switch (format) {
    case 'ndjson':
      return joined([], rows, NEWLINE, NEWLINE, []);
    case 'csv': {
      const header = columns.map((column) => `"${column.name.replaceAll('"', '""')}"`).join(',');
      return joined([Buffer.from(`${header}\n`)], rows, NEWLINE, NEWLINE, []);
    }
    case 'json': {
      const meta = JSON.stringify(columns.map(({ name, type }) => ({ name, type })));
      const tail = `],"rows":${rows.length},"statistics":${JSON.stringify({ elapsed: elapsedSec })}}\n`;
      return joined([Buffer.from(`{"meta":${meta},"data":[`)], rows, COMMA, EMPTY, [Buffer.from(tail)]);
    }
  }
}

const NEWLINE = Buffer.from('\n');
const COMMA = Buffer.from(',');
const EMPTY = Buffer.alloc(0);

/** head, the rows with `between` after each but the last and `after` after the last, then tail. */
function joined(
  head: readonly Buffer[],
  rows: readonly Buffer[],
  between: Buffer,
  after: Buffer,
  tail: readonly Buffer[],
): Buffer {
  const parts: Buffer[] = [...head];
  rows.forEach((row, i) => {
    parts.push(row, i < rows.length - 1 ? between : after);
  });
  parts.push(...tail);
  return Buffer.concat(parts);
}
