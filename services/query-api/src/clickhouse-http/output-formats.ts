/**
 * Output formats of the ClickHouse HTTP endpoint: an allow-list of names ClickHouse itself writes
 * (the store's STREAM_FORMATS), with the aliases ClickHouse accepts and the Content-Type a server
 * sends with each. A name is looked up here and the store is handed the canonical name, never the
 * caller's text. ClickHouse reads format names case-insensitively; so does this table.
 */
import type { StreamFormat } from '@feedpipe/store';

export interface ClickHouseFormat {
  /** Canonical name, as written to the store and echoed in X-ClickHouse-Format. */
  name: StreamFormat;
  contentType: string;
}

const TSV = 'text/tab-separated-values; charset=UTF-8';
const BINARY = 'application/octet-stream';
const JSON_TYPE = 'application/json; charset=UTF-8';
const TEXT = 'text/plain; charset=UTF-8';

const FORMATS: readonly ClickHouseFormat[] = [
  { name: 'TabSeparated', contentType: TSV },
  { name: 'TabSeparatedRaw', contentType: TSV },
  { name: 'TabSeparatedWithNames', contentType: TSV },
  { name: 'TabSeparatedWithNamesAndTypes', contentType: TSV },
  { name: 'CSV', contentType: 'text/csv; charset=UTF-8; header=absent' },
  { name: 'CSVWithNames', contentType: 'text/csv; charset=UTF-8; header=present' },
  { name: 'CSVWithNamesAndTypes', contentType: 'text/csv; charset=UTF-8; header=present' },
  { name: 'JSON', contentType: JSON_TYPE },
  { name: 'JSONCompact', contentType: JSON_TYPE },
  { name: 'JSONStrings', contentType: JSON_TYPE },
  { name: 'JSONEachRow', contentType: 'application/x-ndjson; charset=UTF-8' },
  { name: 'JSONCompactEachRow', contentType: 'application/x-ndjson; charset=UTF-8' },
  { name: 'JSONCompactEachRowWithNamesAndTypes', contentType: 'application/x-ndjson; charset=UTF-8' },
  { name: 'Values', contentType: TEXT },
  { name: 'PrettyCompact', contentType: TEXT },
  { name: 'Parquet', contentType: BINARY },
  { name: 'Arrow', contentType: BINARY },
  { name: 'ArrowStream', contentType: BINARY },
  { name: 'Native', contentType: BINARY },
  { name: 'RowBinary', contentType: BINARY },
  { name: 'RowBinaryWithNames', contentType: BINARY },
  { name: 'RowBinaryWithNamesAndTypes', contentType: BINARY },
];

/** ClickHouse's short names. */
const ALIASES: Readonly<Record<string, StreamFormat>> = {
  tsv: 'TabSeparated',
  tsvraw: 'TabSeparatedRaw',
  raw: 'TabSeparatedRaw',
  tsvwithnames: 'TabSeparatedWithNames',
  tsvwithnamesandtypes: 'TabSeparatedWithNamesAndTypes',
  jsonl: 'JSONEachRow',
  ndjson: 'JSONEachRow',
};

const BY_NAME = new Map<string, ClickHouseFormat>(FORMATS.map((f) => [f.name.toLowerCase(), f]));

/** The format ClickHouse answers with when the request names none. */
export const DEFAULT_FORMAT = 'TabSeparated';

/** The names this endpoint writes, for error messages and the docs. */
export const CLICKHOUSE_FORMAT_NAMES: readonly string[] = FORMATS.map((f) => f.name);

export function clickHouseFormat(name: string): ClickHouseFormat | undefined {
  const key = name.toLowerCase();
  const alias = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
  return BY_NAME.get(alias?.toLowerCase() ?? key);
}
