/**
 * Read-only SQL for research over the market-data tables, through the one caller-SQL path
 * (caller-sql.ts; the ClickHouse endpoint takes it too). The guard (sql-guard.ts) has ClickHouse
 * parse and analyse the caller's text and hands back the statement to run: the canonical SELECT
 * wrapped in `SELECT * FROM (...)`, or the API's own SELECT for SHOW TABLES / DESCRIBE. It runs with
 * readonly = 1 (2 as a server's reader user, whose profile pins it) and the time, memory and result
 * limits in its SETTINGS clause, appended by code; the wrapper makes them bind the whole result
 * even through UNION ALL (a trailing SETTINGS clause would otherwise bind to the last SELECT of a
 * union only).
 */

import { routeDoc } from '@feedpipe/service-http';
import type { QueryParams } from '@feedpipe/store';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest } from '../errors.js';
import { binaryResponse, DOWNLOAD_FORMATS, DOWNLOAD_TITLES } from '../http/binary-downloads.js';
import { FORMAT_PROPERTY } from '../http/schemas.js';
import { tabularResponseOf } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { sendTabular } from '../query/query-runner.js';
import { MARKET_DATA_TABLES } from './allowed-tables.js';
import type { CallerSql } from './caller-sql.js';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A row of a caller's query: its columns are whatever the SELECT names (see `meta`). */
const SQL_ROW = {
  title: 'SqlRow',
  type: 'object',
  additionalProperties: true,
  description: "one row: the query's columns by name, typed as meta says",
} as const;

const SQL_RESPONSE = tabularResponseOf('Sql', SQL_ROW);

interface SqlInput {
  sql: string;
  format?: OutputFormat;
  /** JSON values, as the body schema lets through. */
  params?: QueryParams;
}

export function registerSqlRoutes(app: FastifyInstance, ctx: ApiContext, callerSql: CallerSql): void {
  const limits = ctx.config.sql;
  const description = `One SELECT over the market-data tables (${MARKET_DATA_TABLES.join(', ')}), run read-only (readonly = ${ctx.runner.readonlyLevel}), at most ${limits.maxExecutionSec} s, ${limits.maxMemoryBytes} bytes of memory and ${limits.maxResultRows} result rows; also the catalogue tools browse (system.databases, system.tables, system.columns, restricted to those tables), SHOW TABLES, SHOW DATABASES, SHOW COLUMNS, SHOW CREATE TABLE, DESCRIBE market.<table>, EXISTS market.<table> and EXPLAIN of an allowed SELECT. Values go in as ClickHouse parameters: write {name:Type} in the SQL and pass params.name. Other statements, other tables, table functions, functions that reach outside the query (dictGet, joinGet, file, ...), SETTINGS, FORMAT and INTO OUTFILE are refused with 400 (code SQL_REFUSED).`;

  async function run(input: SqlInput, reply: FastifyReply, keyId?: string): Promise<FastifyReply> {
    const callerParams = input.params ?? {};
    for (const name of Object.keys(callerParams)) {
      if (!PARAM_NAME.test(name))
        throw badRequest(`params.${name}`, 'parameter names are letters, digits and _');
    }
    const format = input.format as OutputFormat;
    const { stream } = await callerSql.run(input.sql, callerParams, () => ({ format, settings: 'api' }), {
      ...(keyId === undefined ? {} : { keyId }),
    });
    return sendTabular(reply, format, stream, 'result');
  }

  const bodyProperties = {
    sql: {
      type: 'string',
      minLength: 1,
      maxLength: limits.maxSqlLength,
      description: 'one SELECT (or SHOW TABLES, DESCRIBE market.<table>)',
    },
    params: {
      type: 'object',
      description: 'values of {name:Type} placeholders',
      additionalProperties: {
        anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: {} }],
      },
    },
  };

  app.post<{ Body: SqlInput }>(
    '/v1/sql',
    {
      schema: routeDoc({
        operationId: 'runSql',
        tags: ['sql'],
        summary: 'Run read-only SQL over market data',
        description,
        body: {
          title: 'SqlRequest',
          type: 'object',
          additionalProperties: false,
          required: ['sql'],
          properties: { ...bodyProperties, ...FORMAT_PROPERTY },
        },
        responses: { 200: SQL_RESPONSE },
        errors: [406, 503],
      }),
    },
    (request, reply) =>
      run({ ...request.body, format: outputFormatOf(request) }, reply, request.apiKey?.keyId),
  );

  registerSqlDownloads(app, description, bodyProperties, run);

  app.get<{ Querystring: { q: string; format?: OutputFormat } }>(
    '/v1/sql',
    {
      schema: routeDoc({
        operationId: 'runSqlFromUrl',
        tags: ['sql'],
        summary: 'Run read-only SQL given in the URL (for pandas.read_parquet(url) and friends)',
        description,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['q'],
          properties: {
            q: {
              type: 'string',
              minLength: 1,
              maxLength: limits.maxSqlLength,
              description: 'the SQL: one SELECT (or SHOW TABLES, DESCRIBE market.<table>)',
            },
            ...FORMAT_PROPERTY,
          },
        },
        responses: { 200: SQL_RESPONSE },
        errors: [406, 503],
      }),
    },
    (request, reply) =>
      run({ sql: request.query.q, format: outputFormatOf(request) }, reply, request.apiKey?.keyId),
  );
}

type RunSql = (input: SqlInput, reply: FastifyReply, keyId?: string) => Promise<FastifyReply>;

/** runSql as bytes for client generators (http/binary-downloads.ts): runSqlParquet, runSqlArrow. */
function registerSqlDownloads(
  app: FastifyInstance,
  description: string,
  bodyProperties: Record<string, unknown>,
  run: RunSql,
): void {
  for (const format of DOWNLOAD_FORMATS) {
    app.post<{ Body: Omit<SqlInput, 'format'> }>(
      `/v1/sql.${format}`,
      {
        schema: routeDoc({
          operationId: `runSql${DOWNLOAD_TITLES[format]}`,
          tags: ['sql'],
          summary: `Run read-only SQL over market data, the result as ${DOWNLOAD_TITLES[format]} bytes`,
          description: `runSql with format=${format}, declared as binary so that generated clients return its bytes. ${description}`,
          body: {
            title: 'SqlDownloadRequest',
            type: 'object',
            additionalProperties: false,
            required: ['sql'],
            properties: bodyProperties,
          },
          responses: { 200: binaryResponse(format) },
          errors: [503],
        }),
      },
      (request, reply) => run({ ...request.body, format }, reply, request.apiKey?.keyId),
    );
  }
}
