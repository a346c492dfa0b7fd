/**
 * One convention for times in every tabular answer (the routes' own queries and caller SQL alike):
 * an instant is UTC, and says so in each format.
 *
 * - json, ndjson, csv: ISO 8601 with `Z` (`2024-03-04T09:15:00Z`, fractions as the column has them),
 *   through ClickHouse's `date_time_output_format = 'iso'`, which writes every DateTime and
 *   DateTime64 in UTC whatever the column's zone.
 * - parquet: ClickHouse writes timestamps with the UTC zone itself.
 * - arrow, arrowstream: ClickHouse writes a DateTime column as a bare uint32 (no setting changes
 *   that) and a DateTime64 with the column's zone (`Etc/UTC` for one without). So the statement is
 *   wrapped once more, turning each such column into `DateTime64(scale, 'UTC')`: Arrow timestamps
 *   with the UTC zone, which pyarrow, pandas and polars read as zone-aware datetimes. The wrapper
 *   only projects the judged statement's own columns (SELECT * REPLACE), so it reads nothing new.
 *
 * Date columns (a calendar day, no instant) stay dates everywhere. Instants nested in an Array,
 * Tuple or Map leave Arrow as ClickHouse writes them (integers): only top-level (and Nullable)
 * columns are cast, which covers every route and what a notebook selects from the tables.
 */
/** Output setting of the text formats: ISO 8601 instants in UTC with `Z`. */
export const ISO_TIME_SETTINGS = { date_time_output_format: 'iso' } as const;

export interface ResultColumn {
  name: string;
  type: string;
}

/** DateTime / DateTime64 at the top level, or inside Nullable / LowCardinality: its scale. */
const TIME_TYPE =
  /^(?:(?:Nullable|LowCardinality)\()*DateTime(?:64\((\d+)(?:,\s*'[^']*')?\)|\('[^']*'\))?\)*$/;

/** The scale an instant column keeps as an Arrow timestamp (0 = seconds), or undefined. */
export function instantScale(type: string): number | undefined {
  const match = TIME_TYPE.exec(type.trim());
  if (!match) return undefined;
  return match[1] === undefined ? 0 : Number(match[1]);
}

/** A column name as a ClickHouse identifier, whatever characters it holds. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/**
 * The statement whose result carries every instant column as `DateTime64(scale, 'UTC')`, or the
 * statement itself when it has none (most of the routes' own queries are written that way).
 */
export function utcInstantsSql(sql: string, columns: readonly ResultColumn[]): string {
  const replaced: string[] = [];
  for (const column of columns) {
    const scale = instantScale(column.type);
    if (scale === undefined) continue;
    if (/^DateTime64\(\d+, 'UTC'\)$/.test(column.type)) continue;
    const name = quoteIdentifier(column.name);
    replaced.push(`toDateTime64(${name}, ${scale}, 'UTC') AS ${name}`);
  }
  if (replaced.length === 0) return sql;
  return `SELECT * REPLACE (${replaced.join(', ')}) FROM (\n${sql}\n)`;
}

/** The result columns of a statement, from ClickHouse's analysis (nothing is read). */
export function describeSql(sql: string): string {
  return `DESCRIBE TABLE (\n${sql}\n)`;
}
