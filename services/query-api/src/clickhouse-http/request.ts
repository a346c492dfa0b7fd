/**
 * A ClickHouse HTTP request read into what the caller-SQL path needs. ClickHouse's rules:
 * - the SQL is the `query` URL parameter, the POST body, or both (URL text, a newline, then the
 *   body); GET carries it in the URL only;
 * - `param_<name>` URL parameters bind `{name:Type}` placeholders (as text, parsed by the engine);
 * - the output is the query's FORMAT clause, else `default_format`, else the X-ClickHouse-Format
 *   header, else TabSeparated;
 * - every other URL parameter is a setting.
 *
 * Settings: callers run read-only, so like a readonly = 1 user they cannot change settings. The
 * transport and session settings clients send by habit are accepted and have no effect (this
 * endpoint keeps no sessions, compresses nothing and sends no progress headers); the numeric
 * limits may be lowered, never raised; anything else is refused with ClickHouse's READONLY error,
 * naming the setting.
 */
import { randomUUID } from 'node:crypto';
import type { QuerySettings } from '@feedpipe/store';
import type { FastifyRequest } from 'fastify';
import type { QueryParams } from '../query/query-runner.js';
import { MARKET_DATABASE } from '../sql/allowed-tables.js';
import { ClickHouseHttpError } from './exceptions.js';

export interface ClickHouseRequest {
  text: string;
  params: QueryParams;
  /** default_format or X-ClickHouse-Format; the query's FORMAT clause wins over it. */
  defaultFormat: string | undefined;
  queryId: string;
  /** Limits the caller asked to lower. */
  tighter: QuerySettings;
}

/** Parameters that are the protocol's, not settings. */
const PROTOCOL_PARAMS = new Set(['query', 'default_format', 'database', 'query_id']);

/** Sent by clients by habit, meaningless here: accepted, no effect. */
const IGNORED_SETTINGS = new Set([
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'buffer_size',
  'wait_end_of_query',
  'http_wait_end_of_query',
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'cancel_http_readonly_queries_on_client_close',
  'client_protocol_version',
  'date_time_input_format',
  'cast_string_to_dynamic_use_inference',
  'quota_key',
  'log_comment',
  'readonly',
]);

/** Limits a caller may lower (caller-sql.ts keeps only values below the API's own). */
const TIGHTENABLE = new Set([
  'max_execution_time',
  'max_result_rows',
  'max_result_bytes',
  'max_memory_usage',
]);

/** Databases a client may name: tables are always named `market.<table>` in the SQL. */
const DATABASES = new Set([MARKET_DATABASE, 'default']);

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const QUERY_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const MAX_PARAM_CHARS = 1_000_000;

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    throw new ClickHouseHttpError('BAD_ARGUMENTS', `URL parameter ${name} is given more than once`);
  }
  return value;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function settingValue(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new ClickHouseHttpError('BAD_ARGUMENTS', `setting ${name}: ${JSON.stringify(raw)} is not a number`);
  }
  return value;
}

/** URL parameters other than the protocol's: bind values, ignored settings, lowered limits. */
function readParams(query: Query): { params: Record<string, string>; tighter: Record<string, number> } {
  const params: Record<string, string> = {};
  const tighter: Record<string, number> = {};
  let chars = 0;
  for (const name of Object.keys(query)) {
    if (PROTOCOL_PARAMS.has(name)) continue;
    const value = single(query, name) ?? '';
    if (name === 'user' || name === 'password') {
      throw new ClickHouseHttpError(
        'AUTHENTICATION_FAILED',
        'credentials in the URL are not accepted: send the API key as the basic-auth password or in the X-ClickHouse-Key header',
      );
    }
    if (name.startsWith('param_')) {
      const param = name.slice('param_'.length);
      if (!PARAM_NAME.test(param)) {
        throw new ClickHouseHttpError('BAD_ARGUMENTS', `${name}: parameter names are letters, digits and _`);
      }
      chars += value.length;
      if (chars > MAX_PARAM_CHARS) {
        throw new ClickHouseHttpError(
          'QUERY_IS_TOO_LARGE',
          `query parameters exceed ${MAX_PARAM_CHARS} characters`,
        );
      }
      params[param] = value;
    } else if (TIGHTENABLE.has(name)) {
      tighter[name] = settingValue(name, value);
    } else if (!IGNORED_SETTINGS.has(name)) {
      throw new ClickHouseHttpError(
        'READONLY',
        `Cannot modify '${name.slice(0, 100)}' setting in readonly mode`,
      );
    }
  }
  return { params, tighter };
}

/** The SQL text: URL `query`, then (POST) the body, joined by a newline as ClickHouse does. */
function queryText(request: FastifyRequest, query: Query): string {
  const inUrl = single(query, 'query');
  const body =
    request.method === 'POST' && Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const text = [inUrl, body].filter((part): part is string => part !== undefined && part !== '').join('\n');
  if (text.trim() === '') {
    throw new ClickHouseHttpError(
      'SYNTAX_ERROR',
      'Empty query: send it in the query URL parameter or the POST body',
    );
  }
  return text;
}

export function readClickHouseRequest(request: FastifyRequest): ClickHouseRequest {
  const query = (request.query ?? {}) as Query;
  const database = single(query, 'database') ?? header(request, 'x-clickhouse-database');
  if (database !== undefined && !DATABASES.has(database)) {
    throw new ClickHouseHttpError(
      'UNKNOWN_DATABASE',
      `Database ${database.slice(0, 100)} does not exist: the market data is in database ${MARKET_DATABASE}`,
    );
  }
  const queryId = single(query, 'query_id') || randomUUID();
  if (!QUERY_ID.test(queryId)) {
    throw new ClickHouseHttpError('BAD_ARGUMENTS', 'query_id: up to 128 letters, digits and _.:-');
  }
  const { params, tighter } = readParams(query);
  return {
    text: queryText(request, query),
    params,
    defaultFormat: single(query, 'default_format') || header(request, 'x-clickhouse-format'),
    queryId,
    tighter,
  };
}

/** The key a ClickHouse client presents: X-ClickHouse-Key, or the basic-auth password. */
export function clickHouseKey(request: FastifyRequest): string | undefined {
  const key = header(request, 'x-clickhouse-key');
  if (key !== undefined) return key;
  const auth = header(request, 'authorization');
  if (auth === undefined || !/^Basic /i.test(auth)) return undefined;
  const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  return password.length > 0 ? password : undefined;
}
