/**
 * Query settings go into the statement's own SETTINGS clause, never into `clickhouse_settings`:
 * embedded chDB turns `clickhouse_settings` into session-wide `SET` statements that outlive the
 * query (a readonly=1 would make the whole process read-only), while a SETTINGS clause is scoped
 * to its query on chDB and on a server alike. Names and values come from code, never from requests.
 */
export type SettingValue = number | string;

const NAME = /^[a-z_][a-z0-9_]*$/;
const WORD = /^[A-Za-z0-9_]+$/;

export function settingsClause(settings: Readonly<Record<string, SettingValue>>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(settings)) {
    if (!NAME.test(name)) throw new Error(`invalid setting name ${name}`);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`invalid value of setting ${name}`);
      parts.push(`${name} = ${value}`);
    } else {
      if (!WORD.test(value)) throw new Error(`invalid value of setting ${name}`);
      parts.push(`${name} = '${value}'`);
    }
  }
  return parts.length === 0 ? '' : `SETTINGS ${parts.join(', ')}`;
}
