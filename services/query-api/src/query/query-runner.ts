/**
 * Runs ClickHouse queries for the routes: typed rows for small answers, and byte streams in any
 * output format for tabular answers. Over a server the bytes stream as ClickHouse writes them
 * (wait_end_of_query = 0); embedded chDB hands over a finished buffer (its connection cannot
 * stream), which is then sent as is.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ClickHouseClient } from '@feedpipe/store';
import type { FastifyReply } from 'fastify';
import { QueryApiError } from '../errors.js';
import { FORMAT_SETTINGS, OUTPUT_FORMATS, type OutputFormat } from './formats.js';
import type { CachedResponse } from './result-cache.js';
import { type SettingValue, settingsClause } from './settings.js';

export type QueryParams = Record<string, unknown>;

export interface TabularQuery {
  sql: string;
  params?: QueryParams;
  format: OutputFormat;
  /** Query-scoped settings (limits); format settings are added. */
  settings?: Readonly<Record<string, SettingValue>>;
}

const NETWORK_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|EPIPE|closed/i;

/**
 * `caller` = the SQL came from the caller (POST /v1/sql): a ClickHouse refusal is their 400.
 * `internal` = our own query failed: the store is in trouble, 503.
 */
export function storeError(error: unknown, origin: 'caller' | 'internal'): QueryApiError {
  const message = error instanceof Error ? error.message : String(error);
  if (origin === 'caller' && !NETWORK_ERROR.test(message)) {
    return new QueryApiError(
      'QUERY_FAILED',
      `ClickHouse refused the query: ${message.trim().slice(0, 2_000)}`,
      {
        cause: error,
      },
    );
  }
  return new QueryApiError('STORE_UNAVAILABLE', 'the store failed the query; try again later', {
    cause: error,
    retryable: true,
  });
}

/** Sentinel queries tried after a failed embedded query before giving up on a clean session. */
const MAX_DRAINS = 3;

export class QueryRunner {
  readonly #client: ClickHouseClient;
  readonly #embedded: boolean;
  readonly #baseSettings: Readonly<Record<string, SettingValue>>;

  constructor(client: ClickHouseClient, maxExecutionSec: number, embedded: boolean) {
    this.#client = client;
    this.#embedded = embedded;
    this.#baseSettings = { max_execution_time: maxExecutionSec };
  }

  /**
   * Embedded chDB (3.4) keeps the partial output of a query that failed while producing rows
   * (result limit, timeout, an exception mid-stream) and hands it to the NEXT query of the
   * session as that query's result. After such a failure a sentinel query takes the stale bytes
   * until its own answer comes back. Another component's query that slips in between the failure
   * and the sentinel can still be hit: see the README's note on embedded mode.
   */
  async #drainAfterFailure(): Promise<void> {
    if (!this.#embedded) return;
    for (let attempt = 0; attempt < MAX_DRAINS; attempt++) {
      const token = randomUUID();
      try {
        const result = await this.#client.query({
          query: `SELECT '${token}' AS drain`,
          format: 'TabSeparatedRaw',
        });
        if ((await result.text()).trim() === token) return;
      } catch {
        // A failed sentinel is itself drained by the next attempt.
      }
    }
  }

  get client(): ClickHouseClient {
    return this.#client;
  }

  async rows<T>(sql: string, params: QueryParams = {}): Promise<T[]> {
    try {
      const result = await this.#client.query({
        query: `${sql}\n${settingsClause({ ...this.#baseSettings, ...FORMAT_SETTINGS })}`,
        query_params: params,
        format: 'JSONEachRow',
      });
      return await result.json<T>();
    } catch (error) {
      await this.#drainAfterFailure();
      throw storeError(error, 'internal');
    }
  }

  /** The result as a byte stream; errors before the first byte are thrown as QueryApiError. */
  async stream(query: TabularQuery, origin: 'caller' | 'internal' = 'internal'): Promise<Readable> {
    const settings = { ...this.#baseSettings, ...query.settings, ...FORMAT_SETTINGS };
    try {
      const result = await this.#client.exec({
        query: `${query.sql}\n${settingsClause(settings)}\nFORMAT ${OUTPUT_FORMATS[query.format].clickhouse}`,
        query_params: query.params ?? {},
        // Server only (chDB drops HTTP settings): send blocks as they are produced.
        clickhouse_settings: { wait_end_of_query: 0 },
      });
      return result.stream;
    } catch (error) {
      await this.#drainAfterFailure();
      throw storeError(error, origin);
    }
  }

  async buffer(query: TabularQuery): Promise<CachedResponse> {
    const stream = await this.stream(query);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream)
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    } catch (error) {
      throw storeError(error, 'internal');
    }
    return { body: Buffer.concat(chunks), contentType: OUTPUT_FORMATS[query.format].contentType };
  }
}

/** Sends a tabular result with its content type and a file name a browser or notebook can use. */
export function sendTabular(
  reply: FastifyReply,
  format: OutputFormat,
  body: Readable | Buffer,
  baseName: string,
): FastifyReply {
  const spec = OUTPUT_FORMATS[format];
  reply.header('content-type', spec.contentType);
  reply.header('content-disposition', `inline; filename="${baseName}.${spec.extension}"`);
  return reply.send(body);
}
