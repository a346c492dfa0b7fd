/**
 * Which output format a tabular answer takes: `format=` when the request names one (a URL that
 * pandas.read_csv or a browser opens carries it and cannot set headers), else the Accept header by
 * RFC 9110 rules: each of our media types gets the quality of the most specific range that matches
 * it (`text/csv` over `text/*` over `*\/*`), the highest quality wins, ties go to the order of
 * OUTPUT_FORMATS (json first). No Accept, or an empty one, means json. An Accept that allows none of
 * our types is a 406 that lists them.
 */
import type { FastifyRequest } from 'fastify';
import { QueryApiError } from '../errors.js';
import { mediaTypeOf, OUTPUT_FORMAT_NAMES, type OutputFormat } from './formats.js';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** At most this many ranges are read from one header: a longer one is not a real client's. */
const MAX_RANGES = 64;
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',').slice(0, MAX_RANGES)) {
    const [mediaRange = '', ...params] = part.split(';').map((p) => p.trim());
    const [type = '', subtype = ''] = mediaRange.toLowerCase().split('/');
    if (!TOKEN.test(type) || !TOKEN.test(subtype)) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((p) => p.trim());
      if (name?.toLowerCase() === 'q') q = Number(value);
    }
    if (!Number.isFinite(q) || q < 0 || q > 1) q = 1;
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality of `mediaType` under `ranges`: that of its most specific matching range, else 0. */
function qualityOf(mediaType: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = mediaType.split('/');
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity > best) {
      best = specificity;
      q = range.q;
    }
  }
  return q;
}

/** The format the Accept header asks for; throws NOT_ACCEPTABLE (406) when it allows none. */
export function formatFromAccept(accept: string | undefined): OutputFormat {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'json';
  let chosen: OutputFormat | undefined;
  let chosenQ = 0;
  for (const format of OUTPUT_FORMAT_NAMES) {
    const q = qualityOf(mediaTypeOf(format), ranges);
    if (q > chosenQ) {
      chosen = format;
      chosenQ = q;
    }
  }
  if (chosen === undefined) {
    throw new QueryApiError(
      'NOT_ACCEPTABLE',
      `Accept allows none of the media types this route answers in: ${OUTPUT_FORMAT_NAMES.map(mediaTypeOf).join(', ')} (or name one with format=)`,
    );
  }
  return chosen;
}

/** The output format of a tabular request: `format` from its query or body, else its Accept. */
export function outputFormatOf(request: FastifyRequest): OutputFormat {
  const named =
    (request.query as { format?: OutputFormat } | undefined)?.format ??
    (request.body as { format?: OutputFormat } | undefined)?.format;
  return named ?? formatFromAccept(request.headers.accept);
}
