/**
 * A cross-section in one request: the bars of many instruments (a list, or every instrument with
 * trades in the range) at one interval over one range, as one table (security_id, then the bar
 * columns), written by ClickHouse in the asked format and sent as the engine produces it: Parquet
 * or Arrow for notebooks, CSV, and the other tabular formats. GET takes the ids in the query
 * string; POST in a JSON body, for lists too long for a URL.
 *
 * Bounds: at most MAX_IDS instruments named, `query.maxBars` bars per instrument, the answer at most
 * `sql.maxResultBytes` (the result memory budget reserves that much while it is held on embedded
 * chDB; a server streams it through a small reservation), the aggregation and the final sort
 * spilling to disk beyond SPILL_BYTES.
 */
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../context.js';
import { badRequest } from '../errors.js';
import { FORMAT_PROPERTY } from '../http/schemas.js';
import { tabularResponse } from '../http/tabular-doc.js';
import type { OutputFormat } from '../query/formats.js';
import { outputFormatOf } from '../query/negotiation.js';
import { DURATION_SCHEMA, parseDurationSec, parseRange, TIME_SCHEMA } from '../query/time.js';
import { CROSS_SECTION_COLUMNS, crossSectionSqlFor } from './cross-section-sql.js';
import { streamedTabular } from './tabular-reply.js';

/** Instruments one request may name (a day of 1-minute bars of each is ~375 rows). */
export const MAX_IDS = 10_000;
/** The aggregation and the sort go to disk beyond this, so a whole market's day stays bounded. */
const SPILL_BYTES = 256 * 1024 ** 2;
const IDS_TEXT = /^[0-9]{1,10}(,[0-9]{1,10}){0,9999}$/;

interface CrossSectionInput {
  ids?: string | number[];
  from: string;
  to?: string;
  interval: string;
  format?: OutputFormat;
}

const COMMON = {
  from: { ...TIME_SCHEMA, description: `start of the range (inclusive): ${TIME_SCHEMA.description}` },
  to: {
    ...TIME_SCHEMA,
    description: `end of the range (exclusive), default now: ${TIME_SCHEMA.description}`,
  },
  interval: {
    ...DURATION_SCHEMA,
    default: '1m',
    description: `bar length: ${DURATION_SCHEMA.description}, 1s to 1d`,
  },
  ...FORMAT_PROPERTY,
} as const;

const DESCRIPTION =
  'The bars of many instruments in one table (security_id, then the columns of getBars, each instrument exactly its getBars answer), ordered by instrument and time; without ids, every instrument with trades in the range. Written by ClickHouse in the asked format and streamed: parquet or arrow for notebooks (pandas.read_parquet, polars.read_ipc), csv.';

export function registerCrossSectionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const tags = ['instruments'];
  const responses = { 200: tabularResponse('CrossSectionBar', CROSS_SECTION_COLUMNS) };
  app.get<{ Querystring: CrossSectionInput }>(
    '/v1/bars',
    {
      schema: routeDoc({
        operationId: 'getCrossSection',
        tags,
        summary: 'Bars of many instruments (or all with trades) for one range and interval, in one answer',
        description: DESCRIPTION,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['from'],
          properties: {
            ids: {
              type: 'string',
              pattern: IDS_TEXT.source,
              description: `comma-separated security ids (at most ${MAX_IDS}); without it, every instrument with trades in the range`,
            },
            ...COMMON,
          },
        },
        responses,
        errors: [406],
      }),
    },
    (request, reply) => answer(ctx, request, reply, request.query),
  );
  app.post<{ Body: CrossSectionInput }>(
    '/v1/bars',
    {
      schema: routeDoc({
        operationId: 'postCrossSection',
        tags,
        summary: 'Bars of many instruments for one range and interval, the ids in the body',
        description: DESCRIPTION,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['from'],
          properties: {
            ids: {
              type: 'array',
              maxItems: MAX_IDS,
              items: { type: 'integer', minimum: 1, maximum: 4_294_967_295 },
              description: 'security ids; without it, every instrument with trades in the range',
            },
            ...COMMON,
          },
        },
        responses,
        errors: [406],
      }),
    },
    (request, reply) => answer(ctx, request, reply, request.body),
  );
}

function idsOf(ids: string | number[] | undefined): number[] | undefined {
  if (ids === undefined) return undefined;
  const list = typeof ids === 'string' ? ids.split(',').map(Number) : ids;
  if (list.length > MAX_IDS) throw badRequest('ids', `names more than ${MAX_IDS} instruments`);
  if (list.some((id) => !Number.isInteger(id) || id < 1 || id > 4_294_967_295))
    throw badRequest('ids', 'must be security ids from 1 to 4294967295');
  return [...new Set(list)];
}

async function answer(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  input: CrossSectionInput,
): Promise<FastifyReply> {
  const format = outputFormatOf(request);
  const step = parseDurationSec('interval', input.interval, 1, 86_400);
  const range = parseRange(input.from, input.to, ctx.now());
  const fromSec = Math.floor(range.fromMs / 1000);
  const toSec = Math.ceil(range.toMs / 1000);
  if ((toSec - fromSec) / step > ctx.config.query.maxBars) {
    throw badRequest(
      'interval',
      `asks for more than ${ctx.config.query.maxBars} bars an instrument: use a longer interval or a shorter range`,
    );
  }
  const ids = idsOf(input.ids);
  return streamedTabular(
    ctx,
    reply,
    {
      sql: crossSectionSqlFor(step, fromSec, toSec),
      params: { all: ids === undefined ? 1 : 0, ids: ids ?? [], step, fromSec, toSec },
      format,
      settings: {
        max_result_bytes: ctx.config.sql.maxResultBytes,
        result_overflow_mode: 'throw',
        max_bytes_before_external_sort: SPILL_BYTES,
        max_bytes_before_external_group_by: SPILL_BYTES,
        max_memory_usage: ctx.config.sql.maxMemoryBytes,
      },
    },
    `bars-${ids === undefined ? 'all' : `${ids.length}-instruments`}-${input.interval}`,
  );
}
