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

import type { QueryParams } from '@feedpipe/store';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest } from '../errors.js';
import { FORMAT_PROPERTY, READ_SECURITY, TABULAR_RESPONSE } from '../http/schemas.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../query/formats.js';
import { sendTabular } from '../query/query-runner.js';
import { MARKET_DATA_TABLES } from './allowed-tables.js';
import type { CallerSql } from './caller-sql.js';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

interface SqlInput {
  sql: string;
  format: OutputFormat;
  /** JSON values, as the body schema lets through. */
  params?: QueryParams;
}

export function registerSqlRoutes(app: FastifyInstance, ctx: ApiContext, callerSql: CallerSql): void {
  const limits = ctx.config.sql;
  const description = `One SELECT over the market-data tables (${MARKET_DATA_TABLES.join(', ')}), run read-only (readonly = ${ctx.runner.readonlyLevel}), at most ${limits.maxExecutionSec} s, ${limits.maxMemoryBytes} bytes of memory and ${limits.maxResultRows} result rows; also SHOW TABLES, SHOW DATABASES, DESCRIBE market.<table> and EXISTS market.<table>. Values go in as ClickHouse parameters: write {name:Type} in the SQL and pass params.name. Other statements, other tables, table functions, functions that reach outside the query (dictGet, joinGet, file, ...), SETTINGS, FORMAT and INTO OUTFILE are refused with 400 (code SQL_REFUSED).`;

  async function run(input: SqlInput, reply: FastifyReply): Promise<FastifyReply> {
    const callerParams = input.params ?? {};
    for (const name of Object.keys(callerParams)) {
      if (!PARAM_NAME.test(name))
        throw badRequest(`params.${name}`, 'parameter names are letters, digits and _');
    }
    const { stream } = await callerSql.run(input.sql, callerParams, () => ({
      format: input.format,
      settings: 'api',
    }));
    return sendTabular(reply, input.format, stream, 'result');
  }

  app.post<{ Body: SqlInput }>(
    '/v1/sql',
    {
      schema: {
        tags: ['sql'],
        summary: 'Run read-only SQL over market data',
        description,
        security: READ_SECURITY,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['sql'],
          properties: {
            sql: { type: 'string', minLength: 1, maxLength: limits.maxSqlLength },
            params: {
              type: 'object',
              description: 'values of {name:Type} placeholders',
              additionalProperties: {
                anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array' }],
              },
            },
            ...FORMAT_PROPERTY,
          },
        },
        response: { 200: TABULAR_RESPONSE },
      },
    },
    (request, reply) => run(request.body, reply),
  );

  app.get<{ Querystring: { q: string; format: OutputFormat } }>(
    '/v1/sql',
    {
      schema: {
        tags: ['sql'],
        summary: 'Run read-only SQL given in the URL (for pandas.read_parquet(url) and friends)',
        description,
        security: READ_SECURITY,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['q'],
          properties: {
            q: { type: 'string', minLength: 1, maxLength: limits.maxSqlLength },
            ...FORMAT_PROPERTY,
          },
        },
        response: { 200: TABULAR_RESPONSE },
      },
    },
    (request, reply) => run({ sql: request.query.q, format: request.query.format }, reply),
  );
}
