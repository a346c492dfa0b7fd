/**
 * The catalogue questions SQL clients ask before (or instead of) a query, answered from the
 * allow-list by SELECTs the API writes itself, so no caller text ever reads a system table:
 *
 * - `SHOW DATABASES`: the market database only.
 * - `EXISTS [TABLE] db.table`: 1 for an allowed market-data table, 0 for anything else (tables
 *   outside the allow-list do not exist for a caller).
 * - `SELECT version()`, `SELECT version(), timezone()`, the JDBC driver's `SELECT currentUser() AS
 *   user, timezone() AS timezone, version() AS version LIMIT 1` and `SELECT version() AS
 *   server_version`, `currentUser()`, `currentDatabase()`: what clickhouse-connect, Grafana's data
 *   source and JDBC drivers ask at connect (version() and currentUser() are refused in caller SQL).
 * - `SELECT name, value, readonly FROM system.settings LIMIT 10000`: clickhouse-connect's settings
 *   probe, answered with the limits the API applies, every one read-only (readonly = 1), so the
 *   client knows not to send settings of its own.
 *
 * Matching is on the canonical text (the engine's formatQuerySingleLine of the caller's text), so
 * spacing, case of keywords and comments do not matter, and anything else falls through to the
 * guard's SELECT checks.
 */
import type { QueryParams } from '../query/query-runner.js';
import { MARKET_DATA_TABLES, MARKET_DATABASE } from './allowed-tables.js';

export interface CatalogFacts {
  /** The `readonly` level caller queries run with. */
  readonlyLevel: 1 | 2;
  limits: {
    maxExecutionSec: number;
    maxMemoryBytes?: number;
    maxResultRows?: number;
    maxResultBytes?: number;
  };
}

export interface CatalogAnswer {
  sql: string;
  params: QueryParams;
}

/**
 * The user name reported to clients that ask (`currentUser()`): callers are API keys, not engine
 * users, and the engine's own user name is not theirs to know.
 */
const CALLER_USER = 'feedpipe_reader';

/** `EXISTS TABLE [db.]name`: without a database, the market database's (see sql-guard.ts). */
const EXISTS = /^EXISTS TABLE (?:([A-Za-z_][A-Za-z0-9_]*)\.)?([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * Settings the probe reports: the API's limits, and the HTTP settings clients look for, at the
 * values this endpoint behaves with (no compression, no progress headers).
 */
function reportedSettings(facts: CatalogFacts): [string, string][] {
  const { limits } = facts;
  const settings: [string, string | number | undefined][] = [
    ['readonly', facts.readonlyLevel],
    ['max_execution_time', limits.maxExecutionSec],
    ['max_memory_usage', limits.maxMemoryBytes],
    ['max_result_rows', limits.maxResultRows],
    ['max_result_bytes', limits.maxResultBytes],
    ['result_overflow_mode', 'throw'],
    ['enable_http_compression', 0],
    ['send_progress_in_http_headers', 0],
    ['cancel_http_readonly_queries_on_client_close', 0],
    ['date_time_input_format', 'basic'],
  ];
  return settings
    .filter((s): s is [string, string | number] => s[1] !== undefined)
    .map(([n, v]) => [n, String(v)]);
}

const ANSWERS = new Map<string, (facts: CatalogFacts) => CatalogAnswer>([
  ['SHOW DATABASES', () => ({ sql: 'SELECT {db:String} AS name', params: { db: MARKET_DATABASE } })],
  ['SELECT version()', () => ({ sql: 'SELECT version() AS `version()`', params: {} })],
  // The JDBC driver's (client-v2) connect probe and its server-version query.
  [
    'SELECT currentUser() AS user, timezone() AS timezone, version() AS version LIMIT 1',
    () => ({
      sql: 'SELECT {user:String} AS user, timezone() AS timezone, version() AS version',
      params: { user: CALLER_USER },
    }),
  ],
  ['SELECT version() AS server_version', () => ({ sql: 'SELECT version() AS server_version', params: {} })],
  [
    'SELECT currentUser()',
    () => ({ sql: 'SELECT {user:String} AS `currentUser()`', params: { user: CALLER_USER } }),
  ],
  [
    'SELECT currentDatabase()',
    () => ({ sql: 'SELECT {db:String} AS `currentDatabase()`', params: { db: MARKET_DATABASE } }),
  ],
  [
    'SELECT version(), timezone()',
    () => ({ sql: 'SELECT version() AS `version()`, timezone() AS `timezone()`', params: {} }),
  ],
  [
    'SELECT name, value, readonly FROM system.settings LIMIT 10000',
    (facts) => {
      const settings = reportedSettings(facts);
      return {
        sql: `SELECT tupleElement(s, 1) AS name, tupleElement(s, 2) AS value, toUInt8(1) AS readonly
        FROM (SELECT arrayJoin(arrayZip({names:Array(String)}, {values:Array(String)})) AS s)`,
        params: { names: settings.map((s) => s[0]), values: settings.map((s) => s[1]) },
      };
    },
  ],
]);

/** The API's own SELECT for a catalogue question, or undefined when `canonical` is not one. */
export function catalogAnswer(canonical: string, facts: CatalogFacts): CatalogAnswer | undefined {
  const fixed = ANSWERS.get(canonical);
  if (fixed) return fixed(facts);
  const exists = EXISTS.exec(canonical);
  if (exists) {
    const [, db = MARKET_DATABASE, name] = exists as unknown as [string, string | undefined, string];
    return {
      sql: 'SELECT toUInt8({exists:UInt8}) AS result',
      params: { exists: MARKET_DATA_TABLES.includes(`${db}.${name}`) ? 1 : 0 },
    };
  }
  return undefined;
}
