import { ISO_TIME_SETTINGS } from './time-columns.js';

/**
 * Output formats a notebook wants. ClickHouse writes every one of them itself, so the API only
 * names the format (from this allow-list, never from the request text) and passes bytes through.
 * `arrow` is the Arrow IPC file format (polars.read_ipc, pandas.read_feather); `arrowstream` the
 * IPC stream format (pyarrow.ipc.open_stream). Times follow one convention in all of them
 * (time-columns.ts): ISO 8601 with `Z` in the text formats, UTC timestamps in Arrow and Parquet.
 */
export const OUTPUT_FORMATS = {
  json: {
    clickhouse: 'JSON',
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    times: 'iso',
  },
  ndjson: {
    clickhouse: 'JSONEachRow',
    contentType: 'application/x-ndjson; charset=utf-8',
    extension: 'ndjson',
    times: 'iso',
  },
  csv: { clickhouse: 'CSVWithNames', contentType: 'text/csv; charset=utf-8', extension: 'csv', times: 'iso' },
  arrow: {
    clickhouse: 'Arrow',
    contentType: 'application/vnd.apache.arrow.file',
    extension: 'arrow',
    times: 'utc-timestamps',
  },
  arrowstream: {
    clickhouse: 'ArrowStream',
    contentType: 'application/vnd.apache.arrow.stream',
    extension: 'arrows',
    times: 'utc-timestamps',
  },
  parquet: {
    clickhouse: 'Parquet',
    contentType: 'application/vnd.apache.parquet',
    extension: 'parquet',
    times: 'native',
  },
} as const satisfies Record<string, OutputFormatSpec>;

interface OutputFormatSpec {
  clickhouse: string;
  contentType: string;
  extension: string;
  /**
   * How instants leave in this format: `iso` = ISO 8601 text with `Z` (a setting), `utc-timestamps`
   * = the statement is wrapped so instant columns are UTC timestamps, `native` = ClickHouse's own
   * writer already does it (Parquet: UTC timestamps).
   */
  times: 'iso' | 'utc-timestamps' | 'native';
}

/** The settings a format's time convention needs (see `times`). */
export function timeSettingsOf(format: OutputFormat): Readonly<Record<string, string>> {
  return OUTPUT_FORMATS[format].times === 'iso' ? ISO_TIME_SETTINGS : {};
}

export type OutputFormat = keyof typeof OUTPUT_FORMATS;
export const OUTPUT_FORMAT_NAMES = Object.keys(OUTPUT_FORMATS) as OutputFormat[];

/** Output settings: 64-bit integers as JSON numbers, strings as Arrow/Parquet strings, not binary. */
export const FORMAT_SETTINGS: Readonly<Record<string, number | string>> = {
  output_format_json_quote_64bit_integers: 0,
  output_format_arrow_string_as_string: 1,
  output_format_parquet_string_as_string: 1,
  // apache-arrow (JS) has no LZ4/ZSTD codec; uncompressed IPC is readable by every Arrow reader.
  output_format_arrow_compression_method: 'none',
};

/** No default here: without `format` the Accept header decides (query/negotiation.ts). */
export const FORMAT_QUERY_SCHEMA = {
  type: 'string',
  enum: OUTPUT_FORMAT_NAMES,
  description:
    'json (ClickHouse JSON: meta, data, rows, statistics), ndjson, csv (with header), arrow (IPC file), arrowstream (IPC stream) or parquet. Overrides the Accept header; without either, json',
} as const;

/** The media type of a format, without parameters (`text/csv`). */
export function mediaTypeOf(format: OutputFormat): string {
  return OUTPUT_FORMATS[format].contentType.split(';')[0] as string;
}
