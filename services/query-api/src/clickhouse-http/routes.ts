/**
 * ClickHouse's HTTP protocol, read-only, under /clickhouse: point a ClickHouse client (clickhouse-
 * connect, Grafana's ClickHouse data source, DBeaver/JDBC, curl) at http://host:port/clickhouse
 * with any user name and an API key (read scope) as the password. The SQL takes the one caller-SQL
 * path of /v1/sql (sql/caller-sql.ts: the same guard, the same limits appended by code); only the
 * output format (the query's FORMAT clause or default_format, in ClickHouse's own encodings) and
 * the framing (ClickHouse's headers and error texts) are this module's.
 *
 * Routes live in their own plugin so that their body parser (raw text of any content type) and
 * their error handler (ClickHouse's error texts, also for the auth hook's refusals) apply to them
 * alone.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import type { CallerSql } from '../sql/caller-sql.js';
import { ClickHouseHttpError, clickHouseError } from './exceptions.js';
import { CLICKHOUSE_FORMAT_NAMES, clickHouseFormat, DEFAULT_FORMAT } from './output-formats.js';
import { clickHouseKey, readClickHouseRequest } from './request.js';
import { DISPLAY_NAME, ServerInfoSource } from './server-info.js';

export const CLICKHOUSE_PREFIX = '/clickhouse';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A ClickHouse-protocol route: the key may come as basic auth or X-ClickHouse-Key. */
    clickhouseProtocol?: boolean;
  }
}

/** For installAuth's `keyFrom`: ClickHouse clients' ways of sending the key, on these routes only. */
export function clickHouseKeyFrom(request: FastifyRequest): string | undefined {
  return request.routeOptions.config?.clickhouseProtocol === true ? clickHouseKey(request) : undefined;
}

const CLICKHOUSE_SECURITY: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { clickhouseBasic: [] }];

const TEXT_RESPONSE = {
  description: 'the result in the format asked for (FORMAT clause, default_format or X-ClickHouse-Format)',
  content: {
    'text/tab-separated-values': { schema: { type: 'string' } },
    'text/csv': { schema: { type: 'string' } },
    'application/json': { schema: { type: 'object', additionalProperties: true } },
    'application/x-ndjson': { schema: { type: 'string' } },
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
  },
} as const;

function errorResponse(description: string) {
  return {
    description: `${description}: ClickHouse's plain-text error (Code: N. DB::Exception: ...), the code in X-ClickHouse-Exception-Code`,
    content: { 'text/plain': { schema: { type: 'string' } } },
  };
}

const ERROR_RESPONSES = {
  400: errorResponse('syntax error or bad parameter (SYNTAX_ERROR, BAD_ARGUMENTS)'),
  401: errorResponse('no API key (REQUIRED_PASSWORD)'),
  403: errorResponse(
    'wrong or revoked key, a refused statement, table or function (AUTHENTICATION_FAILED, ACCESS_DENIED, READONLY)',
  ),
  404: errorResponse('unknown column, table, function, format or database (UNKNOWN_*)'),
  429: errorResponse('too many queries of this key (TOO_MANY_SIMULTANEOUS_QUERIES)'),
  500: errorResponse('the engine failed the query'),
  503: errorResponse('the store is busy or unreachable'),
} as const;

const QUERYSTRING = {
  type: 'object',
  additionalProperties: { type: 'string' },
  properties: {
    query: { type: 'string', description: 'the SQL (with a POST, the body is appended after a newline)' },
    default_format: {
      type: 'string',
      description: `output format when the SQL has no FORMAT clause (default ${DEFAULT_FORMAT}); one of ${CLICKHOUSE_FORMAT_NAMES.join(', ')}`,
    },
    database: {
      type: 'string',
      description: 'market or default; tables are named market.<table> either way',
    },
    query_id: { type: 'string', description: 'echoed in X-ClickHouse-Query-Id (default: a random UUID)' },
  },
  description:
    'param_<name>=<value> binds {name:Type} in the SQL. Other parameters are settings: session and transport settings are accepted without effect, max_execution_time / max_result_rows / max_result_bytes / max_memory_usage may lower the limits, anything else is refused (READONLY).',
} as const;

// The ClickHouse protocol is not part of the OpenAPI document (`hide`): its clients are ClickHouse's
// own (docs/sql-clients.md), its errors ClickHouse's plain text, not the API's ErrorBody, and a
// client generator has nothing to make of it. The schemas still validate and describe the routes.
function queryRouteSchema(method: 'GET' | 'POST') {
  return {
    hide: true,
    tags: ['clickhouse'],
    operationId: method === 'GET' ? 'clickhouseQueryGet' : 'clickhouseQueryPost',
    summary: `Run read-only SQL over ClickHouse's HTTP protocol (${method})`,
    description:
      'For ClickHouse clients: user = anything (the key id, say), password = an API key with the read scope (basic auth), or X-ClickHouse-User / X-ClickHouse-Key. The SQL goes through the same guard and limits as /v1/sql; the FORMAT clause (last) names the output.',
    security: CLICKHOUSE_SECURITY,
    querystring: QUERYSTRING,
    response: { 200: TEXT_RESPONSE, ...ERROR_RESPONSES },
  };
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown, info: ServerInfoSource) {
  const hadKey =
    request.headers['x-api-key'] !== undefined ||
    clickHouseKey(request) !== undefined ||
    /^Bearer /i.test(String(request.headers.authorization ?? ''));
  const answer = clickHouseError(error, info.known.version, hadKey);
  if (answer.status >= 500) request.log.error({ err: error }, 'clickhouse endpoint error');
  return reply
    .status(answer.status)
    .header('content-type', 'text/plain; charset=UTF-8')
    .header('x-clickhouse-exception-code', String(answer.code))
    .header('x-clickhouse-server-display-name', DISPLAY_NAME)
    .send(answer.body);
}

/**
 * The protocol's routes under `prefix`: `/clickhouse` on the API's port, '' (the root) on the
 * ClickHouse port of its own (config `clickhousePort`).
 */
export function registerClickHouseRoutes(
  app: FastifyInstance,
  ctx: ApiContext,
  callerSql: CallerSql,
  prefix: string = CLICKHOUSE_PREFIX,
): void {
  const info = new ServerInfoSource(ctx.runner);

  async function query(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const started = process.hrtime.bigint();
    const asked = readClickHouseRequest(request);
    const server = await info.get();
    let chosen = DEFAULT_FORMAT;
    const { stream } = await callerSql.run(
      asked.text,
      asked.params,
      (guarded) => {
        const name = guarded.format ?? asked.defaultFormat ?? DEFAULT_FORMAT;
        const format = clickHouseFormat(name);
        if (format === undefined) {
          throw new ClickHouseHttpError(
            'UNKNOWN_FORMAT',
            `Unknown output format ${name.slice(0, 100)}: this endpoint writes ${CLICKHOUSE_FORMAT_NAMES.join(', ')}`,
          );
        }
        chosen = format.name;
        return { format: format.name, settings: 'engine' };
      },
      {
        output: 'clause',
        tighter: asked.tighter,
        ...(request.apiKey === undefined ? {} : { keyId: request.apiKey.keyId }),
      },
    );
    const format = clickHouseFormat(chosen);
    // The numbers a server counts while reading are not known here; the summary says so with zeros.
    const summary = {
      read_rows: '0',
      read_bytes: '0',
      written_rows: '0',
      written_bytes: '0',
      total_rows_to_read: '0',
      result_rows: '0',
      result_bytes: '0',
      elapsed_ns: String(process.hrtime.bigint() - started),
    };
    return reply
      .header('content-type', format?.contentType ?? 'application/octet-stream')
      .header('x-clickhouse-format', chosen)
      .header('x-clickhouse-query-id', asked.queryId)
      .header('x-clickhouse-timezone', server.timezone)
      .header('x-clickhouse-server-display-name', DISPLAY_NAME)
      .header('x-clickhouse-summary', JSON.stringify(summary))
      .send(stream);
  }

  function ping(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
    return reply.header('content-type', 'text/plain; charset=UTF-8').send('Ok.\n');
  }

  const queryConfig = { clickhouseProtocol: true, storeQuery: true } as const;

  app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.setErrorHandler((error, request, reply) => sendError(request, reply, error, info));
      const pingSchema = {
        hide: true,
        tags: ['clickhouse'],
        operationId: 'clickhousePing',
        summary: "ClickHouse's liveness check: answers Ok.",
        response: { 200: { description: 'Ok.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      };
      scope.get('/ping', { config: { scope: 'open', clickhouseProtocol: true }, schema: pingSchema }, ping);
      // /clickhouse and /clickhouse/ are one operation, as on a ClickHouse server; at the root, `/`.
      for (const slash of prefix === '' ? [true] : [false, true]) {
        const prefixTrailingSlash = slash ? 'slash' : 'no-slash';
        scope.route({
          method: 'GET',
          url: '/',
          prefixTrailingSlash,
          config: queryConfig,
          schema: queryRouteSchema('GET'),
          handler: (request, reply) => {
            // A GET without a query is a server's liveness answer, as on a ClickHouse server.
            const q = request.query as Record<string, unknown>;
            return q.query === undefined ? ping(request, reply) : query(request, reply);
          },
        });
        scope.route({
          method: 'POST',
          url: '/',
          prefixTrailingSlash,
          config: queryConfig,
          schema: queryRouteSchema('POST'),
          handler: query,
        });
      }
    },
    { prefix },
  );
}
