/**
 * Query settings go into the statement's own SETTINGS clause, never into the driver's
 * `clickhouse_settings`: embedded chDB turns `clickhouse_settings` into session-wide `SET`
 * statements that outlive the query (a readonly=1 would make the whole process read-only), while a
 * SETTINGS clause is scoped to its query on chDB and on a server alike. Both adapters use it, so a
 * statement behaves the same on either. Names and values come from code, never from requests; they
 * are checked all the same, since they are spliced into the SQL text.
 */
import { StoreError } from './errors.js';
import type { QuerySettings } from './port.js';

const NAME = /^[a-z_][a-z0-9_]*$/;
const WORD = /^[A-Za-z0-9_]+$/;

export function settingsClause(settings: QuerySettings): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (!NAME.test(name)) throw new StoreError('STORE_QUERY_INVALID', `invalid setting name ${name}`);
    if (typeof value === 'number') {
      if (!Number.isFinite(value))
        throw new StoreError('STORE_QUERY_INVALID', `invalid value of setting ${name}`);
      parts.push(`${name} = ${value}`);
    } else {
      if (!WORD.test(value)) throw new StoreError('STORE_QUERY_INVALID', `invalid value of setting ${name}`);
      parts.push(`${name} = '${value}'`);
    }
  }
  return parts.length === 0 ? '' : `SETTINGS ${parts.join(', ')}`;
}

/** `sql` with its settings clause appended (unchanged when there are none). */
export function withSettings(sql: string, settings: QuerySettings | undefined): string {
  const clause = settings === undefined ? '' : settingsClause(settings);
  return clause === '' ? sql : `${sql}\n${clause}`;
}
