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
 * The whole answer in `format`. `elapsedSec` fills JSON's statistics (the statement's time; the
 * rows read by a statement that answered several requests at once belong to no single one of
 * them, so they are left out, which the format allows).
 */
export function textBody(
  format: RowTextFormat,
  columns: readonly ResultColumn[],
  rows: readonly string[],
  elapsedSec: number,
): Buffer {
  switch (format) {
    case 'ndjson':
      return Buffer.from(rows.map((row) => `${row}\n`).join(''));
    case 'csv': {
      const header = columns.map((column) => `"${column.name.replaceAll('"', '""')}"`).join(',');
      return Buffer.from([header, ...rows].map((line) => `${line}\n`).join(''));
    }
    case 'json':
      return Buffer.from(
        `{"meta":${JSON.stringify(columns.map(({ name, type }) => ({ name, type })))},` +
          `"data":[${rows.join(',')}],"rows":${rows.length},` +
          `"statistics":${JSON.stringify({ elapsed: elapsedSec })}}\n`,
      );
  }
}
