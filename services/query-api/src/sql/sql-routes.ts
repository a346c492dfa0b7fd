/**
 * Read-only SQL for research. Three layers: the statement gate (sql-guard.ts), ClickHouse's own
 * readonly = 1 with time, memory and result limits in the query's SETTINGS clause, and a wrapping
 * `SELECT * FROM (...)` for SELECTs so the limits bind the whole result even through UNION ALL
 * (a trailing SETTINGS clause would otherwise bind to the last SELECT of a union only).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest } from '../errors.js';
import { FORMAT_PROPERTY, READ_SECURITY, TABULAR_RESPONSE } from '../http/schemas.js';
import type { OutputFormat } from '../query/formats.js';
import { sendTabular } from '../query/query-runner.js';
import { checkSql } from './sql-guard.js';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

interface SqlInput {
  sql: string;
  format: OutputFormat;
  params?: Record<string, unknown>;
}

export function registerSqlRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const limits = ctx.config.sql;
  const settings = {
    readonly: 1,
    max_execution_time: limits.maxExecutionSec,
    max_memory_usage: limits.maxMemoryBytes,
    max_result_rows: limits.maxResultRows,
    max_result_bytes: limits.maxResultBytes,
    result_overflow_mode: 'throw',
  } as const;
  const description = `One read-only statement (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) run with readonly = 1, at most ${limits.maxExecutionSec} s, ${limits.maxMemoryBytes} bytes of memory and ${limits.maxResultRows} result rows. Values go in as ClickHouse parameters: write {name:Type} in the SQL and pass params.name. SETTINGS, FORMAT, INTO OUTFILE and multiple statements are refused with 400.`;

  async function run(input: SqlInput, reply: FastifyReply): Promise<FastifyReply> {
    const checked = checkSql(input.sql, limits.maxSqlLength);
    const params = input.params ?? {};
    for (const name of Object.keys(params)) {
      if (!PARAM_NAME.test(name))
        throw badRequest(`params.${name}`, 'parameter names are letters, digits and _');
    }
    const sql = checked.kind === 'select' ? `SELECT * FROM (\n${checked.sql}\n)` : checked.sql;
    const stream = await ctx.runner.stream({ sql, params, format: input.format, settings }, 'caller');
    return sendTabular(reply, input.format, stream, 'result');
  }

  app.post<{ Body: SqlInput }>(
    '/v1/sql',
    {
      schema: {
        tags: ['sql'],
        summary: 'Run read-only SQL',
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
