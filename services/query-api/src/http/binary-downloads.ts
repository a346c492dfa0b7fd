/**
 * Binary answers as operations of their own, so client generators return bytes. A tabular route
 * answers json, csv, ndjson, arrow, arrowstream and parquet from one operation (format= or Accept),
 * and a generator types that operation by one of its media types: openapi-python-client takes the
 * first it knows (application/json) and decodes every answer as JSON, so a Parquet answer raised
 * UnicodeDecodeError (issue #33). The same route at `<path>.parquet` and `<path>.arrow` answers
 * that format only, declared as binary the way OpenAPI 3.1 says (`type: string` with
 * `contentMediaType`; `format: binary` for 3.0 tools), under its own media type and
 * application/octet-stream, the binary type every generator knows.
 */
import { routeDoc } from '@feedpipe/service-http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import { mediaTypeOf, type OutputFormat } from '../query/formats.js';
import type { ResponseDoc } from './tabular-doc.js';

/** The formats that get a download operation: Parquet and the Arrow IPC file. */
export const DOWNLOAD_FORMATS = ['parquet', 'arrow'] as const satisfies readonly OutputFormat[];

/** How an operation id names each (`getBarsParquet`, `runSqlArrow`). */
export const DOWNLOAD_TITLES: Record<(typeof DOWNLOAD_FORMATS)[number], string> = {
  parquet: 'Parquet',
  arrow: 'Arrow',
};

/** The 200 answer of a download: the bytes, under the format's media type or application/octet-stream. */
export function binaryResponse(format: OutputFormat): Record<string, unknown> {
  const media = mediaTypeOf(format);
  const schema = { type: 'string', format: 'binary', contentMediaType: media };
  return {
    description: `the rows as ${format} (${media})`,
    content: { [media]: { schema }, 'application/octet-stream': { schema } },
  };
}

/**
 * A tabular route's 200 answer declared bytes first, for a route whose binary answers matter more to
 * generated clients than its JSON rows as models (the bars, read into pandas from Parquet). A
 * generator types the operation by the first media type it knows (openapi-python-client 0.29:
 * application/json, application/octet-stream, text/*, and nothing else), so the binary formats'
 * own types come first, then application/octet-stream for them, then the rest as they were. Such a
 * client returns every answer of the operation as bytes (JSON too, for json.loads), where a
 * JSON-first declaration decoded a Parquet answer as JSON and raised UnicodeDecodeError.
 */
export function bytesFirstResponse(tabular: ResponseDoc): ResponseDoc {
  const binary = Object.entries(tabular.content).filter(([, media]) => isBinary(media));
  const rest = Object.entries(tabular.content).filter(([, media]) => !isBinary(media));
  const octets = { schema: { type: 'string', format: 'binary' } };
  return {
    description: `${tabular.description}. Declared bytes first: application/octet-stream stands for the binary formats (format=arrow|arrowstream|parquet), whose own media type the answer carries`,
    content: Object.fromEntries([...binary, ['application/octet-stream', octets], ...rest]),
  };
}

function isBinary(media: unknown): boolean {
  return (media as { schema?: { format?: string } }).schema?.format === 'binary';
}

export interface DownloadRoute {
  /** The tabular route's path (`/v1/instruments/:securityId/bars`). */
  path: string;
  /** Its operationId; a download's is this with the format's title (`getBarsParquet`). */
  operationId: string;
  summary: string;
  tags: string[];
  params?: Record<string, unknown>;
  /** Its querystring schema; `format` is dropped (the path names it). */
  querystring: { properties: Record<string, unknown> } & Record<string, unknown>;
}

/**
 * Registers `<path>.parquet` and `<path>.arrow` with the tabular route's own handler, the format
 * set before it runs (the handler reads it as it reads format=).
 */
export function registerDownloads<R extends RouteGenericInterface>(
  app: FastifyInstance,
  route: DownloadRoute,
  handler: (request: FastifyRequest<R>, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  const { format: _format, ...properties } = route.querystring.properties;
  for (const format of DOWNLOAD_FORMATS) {
    app.get(
      `${route.path}.${format}`,
      {
        schema: routeDoc({
          operationId: `${route.operationId}${DOWNLOAD_TITLES[format]}`,
          tags: route.tags,
          summary: `${route.summary}, as ${DOWNLOAD_TITLES[format]} bytes`,
          description: `The answer of ${route.operationId} with format=${format}, declared as binary so that generated clients return its bytes.`,
          ...(route.params === undefined ? {} : { params: route.params }),
          querystring: { ...route.querystring, properties },
          responses: { 200: binaryResponse(format) },
        }),
      },
      (request, reply) => {
        (request.query as Record<string, unknown>).format = format;
        // The same schema as the tabular route's (less format), validated before this runs.
        return handler(request as unknown as FastifyRequest<R>, reply);
      },
    );
  }
}
