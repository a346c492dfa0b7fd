/**
 * Errors as a ClickHouse server words them, which is what ClickHouse clients parse: a plain-text
 * body `Code: 62. DB::Exception: <message>. (SYNTAX_ERROR) (version 26.7.2.1)`, the code again in
 * the X-ClickHouse-Exception-Code header, and the HTTP status ClickHouse gives that code (its
 * exceptionCodeToHTTPStatus table; codes it does not list are 500 there, as here).
 *
 * The API's own errors map onto ClickHouse's codes: a guard refusal by its reason, an engine error
 * with the code the engine printed, authentication and rate limits as a server would report them.
 */
import { isHttpError } from '@feedpipe/service-http';
import { callerMessage, engineErrorName, ScrubbedEngineError } from '../query/engine-errors.js';
import { SqlRefusal } from '../sql/sql-guard.js';

/** The ClickHouse error codes this endpoint answers with itself (names as ClickHouse spells them). */
export const CLICKHOUSE_CODES = {
  UNKNOWN_SETTING: 115,
  BAD_ARGUMENTS: 36,
  NOT_IMPLEMENTED: 48,
  SYNTAX_ERROR: 62,
  UNKNOWN_FORMAT: 73,
  UNKNOWN_DATABASE: 81,
  TIMEOUT_EXCEEDED: 159,
  READONLY: 164,
  REQUIRED_PASSWORD: 194,
  TOO_MANY_SIMULTANEOUS_QUERIES: 202,
  NETWORK_ERROR: 210,
  QUERY_IS_TOO_LARGE: 393,
  ACCESS_DENIED: 497,
  AUTHENTICATION_FAILED: 516,
  UNKNOWN_EXCEPTION: 1002,
} as const;

export type ClickHouseCodeName = keyof typeof CLICKHOUSE_CODES;

/** An error this endpoint raises in ClickHouse's terms (request framing, formats, settings). */
export class ClickHouseHttpError extends Error {
  override readonly name = 'ClickHouseHttpError';
  readonly codeName: ClickHouseCodeName;
  constructor(codeName: ClickHouseCodeName, message: string) {
    super(message);
    this.codeName = codeName;
  }
}

/** ClickHouse's HTTP status per code (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp), for the codes seen here. */
const STATUS_BY_CODE = new Map<number, number>([
  [194, 401],
  [192, 403],
  [193, 403],
  [516, 403],
  [497, 403],
  [36, 400],
  [62, 400],
  [6, 400],
  [27, 400],
  [41, 400],
  [53, 400],
  [117, 400],
  [60, 404],
  [46, 404],
  [47, 404],
  [50, 404],
  [73, 404],
  [81, 404],
  [115, 404],
  [393, 413],
  [48, 501],
  [209, 503],
  [159, 408],
  // READONLY is a 500 on a server (not in its table); a refusal is the caller's, so 403 here.
  [164, 403],
]);

export interface ClickHouseErrorReply {
  status: number;
  code: number;
  body: string;
}

/**
 * The engine's own error as a ClickHouse server would report it: its number, and its name from our
 * table by that number; the message is ours (engine-errors.ts), since the engine's text can quote
 * values the query read.
 */
function engineError(cause: unknown, version: string): ClickHouseErrorReply | undefined {
  if (!(cause instanceof ScrubbedEngineError) || cause.failure.code === undefined) return undefined;
  const { code } = cause.failure;
  const name = engineErrorName(code) ?? 'UNKNOWN_EXCEPTION';
  const text = callerMessage(cause.failure).replace(/\.$/, '');
  return {
    status: STATUS_BY_CODE.get(code) ?? 500,
    code,
    body: `Code: ${code}. DB::Exception: ${text}. (${name}) (version ${version})\n`,
  };
}

function ours(
  codeName: ClickHouseCodeName,
  message: string,
  version: string,
  status?: number,
): ClickHouseErrorReply {
  const code = CLICKHOUSE_CODES[codeName];
  const text = message.trim().replace(/\.$/, '');
  return {
    status: status ?? STATUS_BY_CODE.get(code) ?? 500,
    code,
    body: `Code: ${code}. DB::Exception: ${text}. (${codeName}) (version ${version})\n`,
  };
}

function refusal(error: SqlRefusal, version: string): ClickHouseErrorReply {
  switch (error.reason) {
    case 'syntax':
      return ours('SYNTAX_ERROR', error.message, version);
    case 'size':
      return ours('QUERY_IS_TOO_LARGE', error.message, version);
    case 'readonly':
      return ours('READONLY', `Cannot execute query in readonly mode: ${error.message}`, version);
    default:
      return ours('ACCESS_DENIED', `Not enough privileges: ${error.message}`, version);
  }
}

/** A request fastify's schema validation refused (its errors carry `validation` and a 400). */
function isRequestValidation(error: unknown): boolean {
  const { validation, statusCode } = (error ?? {}) as { validation?: unknown; statusCode?: unknown };
  return Array.isArray(validation) && statusCode === 400;
}

/**
 * Any error of a /clickhouse request as ClickHouse words it. `hadCredentials` tells a missing key
 * (REQUIRED_PASSWORD, 401) from a wrong or revoked one (AUTHENTICATION_FAILED).
 */
export function clickHouseError(
  error: unknown,
  version: string,
  hadCredentials: boolean,
): ClickHouseErrorReply {
  if (error instanceof ClickHouseHttpError) return ours(error.codeName, error.message, version);
  if (error instanceof SqlRefusal) return refusal(error, version);
  if (isRequestValidation(error)) {
    // fastify refused the request's shape before the route ran (a URL parameter given twice, a
    // value of the wrong kind): the caller's mistake, answered without echoing what was sent.
    return ours(
      'BAD_ARGUMENTS',
      'the URL parameters are not valid (one given more than once, or a value of the wrong kind)',
      version,
      400,
    );
  }
  if (!isHttpError(error)) return ours('UNKNOWN_EXCEPTION', 'internal error', version, 500);
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return hadCredentials
        ? ours('AUTHENTICATION_FAILED', `feedpipe: ${error.message}: Authentication failed`, version)
        : ours(
            'REQUIRED_PASSWORD',
            'feedpipe: an API key is required: send it as the basic-auth password or in the X-ClickHouse-Key header (never in the URL)',
            version,
          );
    case 'FORBIDDEN':
      return ours('ACCESS_DENIED', `Not enough privileges: ${error.message}`, version);
    case 'RATE_LIMITED':
      return ours('TOO_MANY_SIMULTANEOUS_QUERIES', error.message, version, 429);
    case 'OVERLOADED':
      return ours('TOO_MANY_SIMULTANEOUS_QUERIES', error.message, version, 503);
    case 'STORE_UNAVAILABLE':
      return ours('NETWORK_ERROR', error.message, version, 503);
    case 'QUERY_FAILED':
      return engineError(error.cause, version) ?? ours('BAD_ARGUMENTS', error.message, version);
    case 'BAD_REQUEST':
      return ours('BAD_ARGUMENTS', error.message, version, error.status === 413 ? 413 : 400);
    default:
      return ours('UNKNOWN_EXCEPTION', error.message, version, error.status);
  }
}
